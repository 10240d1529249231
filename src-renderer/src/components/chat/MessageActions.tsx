import type { KeyboardEvent, ReactNode } from 'react'
import { ChatIcon, type IconName } from './ChatIcon'
import '../../message-actions.css'

/** The attribute that marks a message as a stop for ↑/↓ between messages. */
const MESSAGE_ATTRIBUTE = 'data-message'

/**
 * A message's props for taking focus: a tab stop with a name, and ↑/↓ to the message before or
 * after it (those in the DOM: the list renders the ones near the view).
 */
export function focusableMessage(label: string) {
  return {
    role: 'article',
    'aria-label': label,
    tabIndex: 0,
    [MESSAGE_ATTRIBUTE]: '',
    onKeyDown: (event: KeyboardEvent<HTMLElement>) => {
      if (event.target !== event.currentTarget) return
      if (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') return
      const all = [
        ...(event.currentTarget
          .closest('[role="log"]')
          ?.querySelectorAll<HTMLElement>(`[${MESSAGE_ATTRIBUTE}]`) ?? []),
      ]
      const next = all[all.indexOf(event.currentTarget) + (event.key === 'ArrowUp' ? -1 : 1)]
      if (!next) return
      event.preventDefault()
      next.focus()
    },
  } as const
}

/** A message's toolbar: quiet until the message is pointed at or the keyboard is in it. */
export function MessageActions({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="message-actions" role="toolbar" aria-label={label}>
      {children}
    </div>
  )
}

/** One of a message's actions. */
export function MessageAction({
  icon,
  label,
  title,
  disabled = false,
  onClick,
}: {
  icon: IconName
  label: string
  title: string
  disabled?: boolean
  onClick(): void
}) {
  return (
    <button type="button" className="message-action" disabled={disabled} title={title} onClick={onClick}>
      <ChatIcon name={icon} size={12} />
      {label}
    </button>
  )
}
