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

/** The most of a chat's title a notification shows. */
const NOTIFIED_TITLE_CHARS = 60

/**
 * A chat's title as a notification shows it, on a lock screen too. A title is the first line of the
 * first prompt unless renamed, so it may hold what was pasted: a value after `=` or `:` and a long
 * word of letters and digits together (a key, a token) are masked, and the rest cut short.
 */
export function notificationTitle(title: string): string {
  const masked = title
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/([=:])\S+/g, '$1•••')
    .replace(/\S{20,}/g, (word) => (/\d/.test(word) && /[a-z]/i.test(word) ? '•••' : word))
  return masked.length > NOTIFIED_TITLE_CHARS ? `${masked.slice(0, NOTIFIED_TITLE_CHARS - 1)}…` : masked
}
