import { useId, useState } from 'react'
import type { Preferences } from '../../../../src-shared/contract'
import type { NotificationSettings } from '../../../../src-shared/notifications'
import { SwitchField } from './SwitchField'

const KINDS: { kind: keyof NotificationSettings; label: string; hint: string }[] = [
  { kind: 'finished', label: 'A turn finished', hint: 'Its answer is ready (or it was stopped).' },
  { kind: 'failed', label: 'A turn failed', hint: 'It ended on an error.' },
  {
    kind: 'waiting',
    label: 'A turn waits for you',
    hint: 'A call needs your approval, or the agent asks a question.',
  },
]

/** Whether this window may show notifications at all: the browser's (or Electron's) permission. */
function permissionNow(): NotificationPermission | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission
}

interface NotificationsGroupProps {
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
}

/**
 * Which turn events raise a desktop notification while Atelier's window is not in front, and the
 * browser's permission for them: asked for when the person turns one on (or presses Allow).
 */
export function NotificationsGroup({ preferences, onChange }: NotificationsGroupProps) {
  const id = useId()
  const [permission, setPermission] = useState(permissionNow)
  const settings = preferences?.notifications

  async function askPermission() {
    if (permissionNow() === 'default') setPermission(await Notification.requestPermission())
  }

  function save(kind: keyof NotificationSettings, on: boolean) {
    if (!settings) return
    onChange({ notifications: { ...settings, [kind]: on } })
    if (on) void askPermission()
  }

  return (
    <section className="setting-group" aria-labelledby={`${id}-notifications`}>
      <h3 id={`${id}-notifications`}>Notifications</h3>
      <p className="muted">
        While Atelier’s window is not in front. A notification names the chat and what happened — never a
        file’s content, an answer or a command. Clicking it opens the chat.
      </p>
      {KINDS.map(({ kind, label, hint }) => (
        <SwitchField
          key={kind}
          label={label}
          hint={hint}
          checked={settings?.[kind] ?? false}
          locked={!settings}
          onChange={(on) => save(kind, on)}
        />
      ))}
      {permission === 'default' && (
        <p>
          <button type="button" className="small" onClick={() => void askPermission()}>
            Allow notifications
          </button>{' '}
          <span className="muted">This window has not been allowed to show them yet.</span>
        </p>
      )}
      {permission === 'denied' && (
        <p className="muted">
          Notifications are blocked for this page: allow them in the browser’s site settings.
        </p>
      )}
      {permission === 'unsupported' && <p className="muted">This browser cannot show notifications.</p>}
    </section>
  )
}
