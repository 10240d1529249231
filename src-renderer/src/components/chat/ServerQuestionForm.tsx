/**
 * What the cards of an MCP server's questions share — a form (elicitation) and a sampling request:
 * the form around them, with its header, its first focus and Esc, and its buttons.
 */
import { type FormEvent, type KeyboardEvent, type ReactNode, type RefObject, useEffect } from 'react'
import { mayTakeFocus } from './ApprovalCard'
import { ChatIcon } from './ChatIcon'

/** Questions that have taken focus once; a card the list renders again (scrolled back) leaves focus be. */
const focusTaken = new Set<string>()

interface ServerQuestionFormProps {
  form: RefObject<HTMLFormElement | null>
  question: { id: string; server: string }
  /** The form's accessible name. */
  label: string
  /** The id of what says what is asked. */
  describedBy: string
  /** After the server's name in the header: what it does (`asks`). */
  asks: string
  /** The control that takes focus when the card first shows. */
  focus: string
  onSubmit(event: FormEvent): void
  /** Esc: Cancel or Decline, as the question has. */
  onEscape(): void
  children: ReactNode
}

export function ServerQuestionForm({
  form,
  question,
  label,
  describedBy,
  asks,
  focus,
  onSubmit,
  onEscape,
  children,
}: ServerQuestionFormProps) {
  useEffect(() => {
    if (focusTaken.has(question.id)) return
    focusTaken.add(question.id)
    if (mayTakeFocus()) form.current?.querySelector<HTMLElement>(focus)?.focus({ preventScroll: true })
  }, [question.id, form, focus])

  const onKeyDown = (event: KeyboardEvent<HTMLFormElement>) => {
    if (event.key !== 'Escape' || event.defaultPrevented || event.nativeEvent.isComposing) return
    // Handled here, so the chat's own Esc (stop the turn) does not also fire.
    event.preventDefault()
    onEscape()
  }

  return (
    <form
      ref={form}
      className="approval approval--waiting approval--active elicitation"
      aria-label={label}
      aria-describedby={describedBy}
      noValidate
      onSubmit={onSubmit}
      onKeyDown={onKeyDown}
    >
      <header className="approval-head">
        <span className="approval-icon">
          <ChatIcon name="info" size={16} />
        </span>
        <span className="approval-title">
          <code className="approval-code">{question.server}</code> {asks}
        </span>
        <span className="badge badge--approval">Waiting for you</span>
      </header>
      {children}
    </form>
  )
}

interface ServerQuestionActionsProps {
  /** The form's submit button's words. */
  submit: string
  /** Why the last answer was not taken. */
  error: string | undefined
  disabled: boolean
  onDecline(): void
  /** Buttons after Decline. */
  children?: ReactNode
}

/** A server's question's buttons (its form's submit, then Decline), under why an answer was not taken. */
export function ServerQuestionActions({
  submit,
  error,
  disabled,
  onDecline,
  children,
}: ServerQuestionActionsProps) {
  return (
    <>
      {error && (
        <p className="inline-error approval-error" role="alert">
          The answer was not taken: {error}
        </p>
      )}
      <div className="approval-actions">
        <div className="approval-allow">
          <button type="submit" className="approval-primary" disabled={disabled}>
            {submit}
          </button>
          <button type="button" className="approval-deny-button" disabled={disabled} onClick={onDecline}>
            Decline
          </button>
          {children}
        </div>
      </div>
    </>
  )
}
