/** Desktop notifications of a turn, while the window is not in front: which kinds the person wants. */
import { type Static, Type } from '@sinclair/typebox'

export const NotificationSettings = Type.Object({
  /** A turn ended with its answer (or was stopped). */
  finished: Type.Boolean(),
  /** A turn ended by an error. */
  failed: Type.Boolean(),
  /** A call waits for the person: an approval, or a question to answer. */
  waiting: Type.Boolean(),
})
export type NotificationSettings = Static<typeof NotificationSettings>

/** Every kind on: a notification shows only once the OS or browser allows them anyway. */
export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  finished: true,
  failed: true,
  waiting: true,
}
