import { type KeyboardEvent, useEffect, useRef } from 'react'
import { Modal } from './Modal'

/** One of the person's prompts, as the rewind list shows it. */
export interface RewindPoint {
  turnId: string
  text: string
  sentAt: number
  /** How many files its turn changed; undefined when it has no checkpoint (it changed nothing). */
  files: number | undefined
}

interface RewindListDialogProps {
  /** Newest first. */
  points: readonly RewindPoint[]
  onChoose(turnId: string): void
  onClose(): void
}

const filesWord = (files: number | undefined) =>
  files ? `${files.toLocaleString()} ${files === 1 ? 'file' : 'files'} changed` : 'no files changed'

/** ↑/↓ move between the prompts, as in a list; Tab works too. */
function moveFocus(event: KeyboardEvent<HTMLUListElement>) {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return
  const buttons = [...event.currentTarget.querySelectorAll('button')]
  const at = buttons.indexOf(document.activeElement as HTMLButtonElement)
  const next = buttons[at + (event.key === 'ArrowDown' ? 1 : -1)]
  if (!next) return
  event.preventDefault()
  next.focus()
}

/**
 * Esc Esc's list: the chat's prompts, newest first, each with when it was sent and what its turn
 * changed; choosing one opens Rewind to here for it.
 */
export function RewindListDialog({ points, onChoose, onClose }: RewindListDialogProps) {
  const newest = useRef<HTMLButtonElement>(null)
  // After the dialog opens (which focuses its first control, Close): the newest prompt is the likely choice.
  useEffect(() => {
    const frame = requestAnimationFrame(() => newest.current?.focus())
    return () => cancelAnimationFrame(frame)
  }, [])
  return (
    <Modal
      title="Rewind"
      description="Choose a prompt to go back to before it."
      className="rewind-list-dialog"
      onClose={onClose}
    >
      {points.length === 0 ? (
        <p className="muted">There are no prompts yet.</p>
      ) : (
        <ul className="resource-list" aria-label="Prompts" onKeyDown={moveFocus}>
          {points.map((point, index) => (
            <li key={point.turnId}>
              <button
                type="button"
                className="resource-option"
                ref={index === 0 ? newest : undefined}
                onClick={() => onChoose(point.turnId)}
              >
                <span className="resource-option-name rewind-point-text">{point.text || '(no text)'}</span>
                <span className="resource-option-description">
                  {new Date(point.sentAt).toLocaleString(undefined, {
                    dateStyle: 'short',
                    timeStyle: 'short',
                  })}{' '}
                  · {filesWord(point.files)}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </Modal>
  )
}
