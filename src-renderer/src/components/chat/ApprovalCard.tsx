import {
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react'
import type {
  ApprovalAnswer,
  ApprovalRequest,
  CommandVerdict,
  PendingActionView,
} from '../../../../src-shared/approvals'
import { errorMessage } from '../../errors'
import { ACTION_OUTCOME_LABELS, OUTCOME_LABELS } from '../approval-words'
import { AlwaysAllowEditor } from './AlwaysAllowEditor'
import { useApprovals } from './approvals-context'
import { ChatIcon } from './ChatIcon'
import type { ApprovalView } from './conversation'
import { DiffView } from './DiffView'

const VERDICT_LABELS: Record<CommandVerdict['verdict'], string> = {
  allow: 'Runs',
  ask: 'Asks',
  deny: 'Refused',
}

/** Cards that have taken focus once; a card the list renders again (scrolled back) leaves focus be. */
const focusTaken = new Set<string>()

/**
 * A waiting card takes focus so Enter and Esc answer it, unless the person is writing somewhere:
 * any text field, select or editable element keeps focus, except the empty message box, where
 * focus sits right after Send.
 */
export function mayTakeFocus(): boolean {
  const focused = document.activeElement
  if (!(focused instanceof HTMLElement) || focused === document.body) return true
  if (focused instanceof HTMLTextAreaElement && focused.classList.contains('composer-input'))
    return focused.value === ''
  return !(
    focused instanceof HTMLInputElement ||
    focused instanceof HTMLTextAreaElement ||
    focused instanceof HTMLSelectElement ||
    focused.isContentEditable
  )
}

/**
 * A call that waits for the person: what it is and would do, why it asks, and the answers. Once
 * answered (or cancelled by a stop) it folds to one line that stays for the session.
 */
export function ApprovalCard({ card }: { card: ApprovalView }) {
  const { activeId, answer, returnFocus } = useApprovals()
  const { request, outcome } = card
  const active = outcome === undefined && activeId === request.id
  const group = useRef<HTMLDivElement>(null)

  useEffect(() => {
    if (!active || focusTaken.has(request.id)) return
    focusTaken.add(request.id)
    if (mayTakeFocus()) group.current?.focus({ preventScroll: true })
  }, [active, request.id])

  if (outcome !== undefined) {
    const summary = request.action?.label ?? request.description.summary
    return (
      // biome-ignore lint/a11y/useSemanticElements: a fieldset groups form controls; this is one call's card
      <div
        role="group"
        aria-label={`Approval for ${request.tool}`}
        className={`approval approval--settled approval--${outcome}`}
      >
        <ChatIcon name="shield" size={14} />
        <span className="approval-outcome">
          {request.action ? ACTION_OUTCOME_LABELS[outcome] : OUTCOME_LABELS[outcome]}
        </span>
        <code className="approval-outcome-summary" title={summary}>
          {request.tool} · {summary}
        </code>
      </div>
    )
  }
  if (request.action) {
    return (
      <PendingActionApproval
        request={request}
        action={request.action}
        active={active}
        group={group}
        answer={answer}
        returnFocus={returnFocus}
      />
    )
  }
  return (
    <WaitingApproval
      request={request}
      active={active}
      group={group}
      answer={answer}
      returnFocus={returnFocus}
    />
  )
}

interface WaitingApprovalProps {
  request: ApprovalRequest
  active: boolean
  group: RefObject<HTMLDivElement | null>
  answer(request: ApprovalRequest, answer: ApprovalAnswer): Promise<void>
  returnFocus(): void
}

/** What sending a card's answer needs: the card, whether it may answer now, and where focus goes after. */
interface ReplyProps<Request, Answer> {
  request: Request
  active: boolean
  group: { readonly current: Element | null }
  answer(request: Request, answer: Answer): Promise<void>
  returnFocus(): void
  /** Told of a refusal before it shows (a question card marks the fields main found wrong). */
  onRefused?(failure: unknown): void
}

/**
 * Sends a card's answer once — an approval's or a server question's; while it travels the card is
 * disabled, and a refusal shows on it.
 */
export function useReply<Request, Answer>({
  request,
  active,
  group,
  answer,
  returnFocus,
  onRefused,
}: ReplyProps<Request, Answer>) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const disabled = !active || busy

  async function reply(decision: Answer) {
    if (disabled) return
    const hadFocus = group.current?.contains(document.activeElement) ?? false
    setBusy(true)
    setError(undefined)
    try {
      await answer(request, decision)
      // The card folds and the focused control goes with it: hand focus on rather than drop it.
      if (hadFocus) requestAnimationFrame(returnFocus)
    } catch (failure) {
      onRefused?.(failure)
      setError(errorMessage(failure))
      setBusy(false)
    }
  }

  return { reply, disabled, error }
}

function AnswerError({ error }: { error: string | undefined }) {
  if (!error) return null
  return (
    <p className="inline-error approval-error" role="alert">
      The answer was not taken: {error}
    </p>
  )
}

interface WaitingCardProps {
  request: ApprovalRequest
  active: boolean
  group: RefObject<HTMLDivElement | null>
  /** The ids (space-separated) of what describes the card besides its key hint. */
  describedBy: string
  /** Class names beyond `approval approval--waiting`. */
  className?: string
  /** The head line's words, after the shield. */
  title: ReactNode
  /** Esc on the card or inside it. */
  onEscape(): void
  /** Enter on the card itself: on a button Enter presses that button, in a field it submits that field. */
  onEnter(): void
  error: string | undefined
  /** The key hint while the card is the one waiting. */
  keys: ReactNode
  children: ReactNode
}

/** A waiting card's frame: the focusable group and its keys, its head, then its body, error and key hint. */
function WaitingCard({
  request,
  active,
  group,
  describedBy,
  className,
  title,
  onEscape,
  onEnter,
  error,
  keys,
  children,
}: WaitingCardProps) {
  const id = useId()

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.defaultPrevented || event.nativeEvent.isComposing) return
    if (event.key === 'Escape') {
      // Handled here, so the chat's own Esc (stop the turn) does not also fire.
      event.preventDefault()
      onEscape()
    } else if (event.key === 'Enter' && event.target === event.currentTarget) {
      event.preventDefault()
      onEnter()
    }
  }

  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset groups form controls; this is one call's card
    <div
      ref={group}
      role="group"
      aria-label={`Approval for ${request.tool}`}
      aria-describedby={`${describedBy} ${id}-keys`}
      className={`approval approval--waiting${className ? ` ${className}` : ''}${active ? ' approval--active' : ''}`}
      tabIndex={-1}
      onKeyDown={onKeyDown}
    >
      <header className="approval-head">
        <span className="approval-icon">
          <ChatIcon name="shield" size={16} />
        </span>
        <span className="approval-title">{title}</span>
        <span className="badge badge--approval">{active ? 'Waiting for you' : 'Queued'}</span>
      </header>
      {children}
      <AnswerError error={error} />
      <p className="approval-keys" id={`${id}-keys`}>
        {active ? keys : 'Answer the card above first: calls are asked about one at a time.'}
      </p>
    </div>
  )
}

/**
 * A change a custom tool proposes (`pushPendingAction`): what it is, what it would change, and two
 * answers only — Apply (the tool then makes the change) or Discard. No rule can be saved for it.
 */
function PendingActionApproval(props: WaitingApprovalProps & { action: PendingActionView }) {
  const { request, action, active, group } = props
  const id = useId()
  const { reply, disabled, error } = useReply(props)
  const apply = () => void reply({ decision: 'allow-once' })
  const discard = () => void reply({ decision: 'deny' })

  return (
    <WaitingCard
      request={request}
      active={active}
      group={group}
      describedBy={`${id}-label`}
      className="approval--action"
      title={
        <>
          <code className="approval-code">{request.tool}</code> proposes a change
        </>
      }
      onEscape={discard}
      onEnter={apply}
      error={error}
      keys={
        <>
          <kbd>Enter</kbd> applies · <kbd>Esc</kbd> discards
        </>
      }
    >
      <div className="approval-body">
        <p className="approval-action-label" id={`${id}-label`}>
          {action.label}
        </p>
        {action.detail && <p className="approval-action-detail">{action.detail}</p>}
        {action.preview !== undefined && (
          <section aria-labelledby={`${id}-preview`}>
            <h4 id={`${id}-preview`} className="approval-label">
              Preview
            </h4>
            <pre
              className="approval-preview"
              // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
              tabIndex={0}
            >
              {action.preview}
            </pre>
          </section>
        )}
      </div>

      <div className="approval-actions">
        <div className="approval-allow">
          <button type="button" className="approval-primary" disabled={disabled} onClick={apply}>
            Apply
          </button>
          <button type="button" className="approval-deny-button" disabled={disabled} onClick={discard}>
            Discard
          </button>
        </div>
      </div>
    </WaitingCard>
  )
}

function WaitingApproval(props: WaitingApprovalProps) {
  const { request, active, group } = props
  const id = useId()
  const [editing, setEditing] = useState(false)
  const [message, setMessage] = useState('')
  const { reply, disabled, error } = useReply(props)
  const diff = request.preview?.kind === 'diff' ? request.preview : undefined
  const args = JSON.stringify(request.arguments, null, 2) ?? 'undefined'

  const deny = () => {
    const text = message.trim()
    void reply(text ? { decision: 'deny', message: text } : { decision: 'deny' })
  }

  const stopEditing = () => {
    setEditing(false)
    group.current?.focus()
  }

  const onDeny = (event: FormEvent) => {
    event.preventDefault()
    deny()
  }

  return (
    <WaitingCard
      request={request}
      active={active}
      group={group}
      describedBy={`${id}-summary`}
      title={
        <>
          Allow <code className="approval-code">{request.tool}</code>?
        </>
      }
      onEscape={editing ? stopEditing : deny}
      onEnter={() => void reply({ decision: 'allow-once' })}
      error={error}
      keys={
        <>
          <kbd>Enter</kbd> allows once · <kbd>Esc</kbd> denies
        </>
      }
    >
      <div className="approval-body">
        <p className="approval-summary" id={`${id}-summary`}>
          <span className="approval-kind">{request.description.kind}</span>
          <code className="approval-code">{request.description.summary}</code>
        </p>
        {request.reasons.length > 0 && (
          <section aria-labelledby={`${id}-reasons`}>
            <h4 id={`${id}-reasons`} className="approval-label">
              Why it asks
            </h4>
            <ul className="approval-reasons">
              {request.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
          </section>
        )}
        {request.description.locations.length > 0 && (
          <section aria-labelledby={`${id}-locations`}>
            <h4 id={`${id}-locations`} className="approval-label">
              Touches
            </h4>
            <ul className="approval-locations">
              {request.description.locations.map((location) => (
                <li key={location}>
                  <code className="approval-code">{location}</code>
                </li>
              ))}
            </ul>
          </section>
        )}
        {request.commands && request.commands.length > 0 && (
          <table className="approval-commands">
            <caption className="approval-label">Commands in this call</caption>
            <thead>
              <tr>
                <th scope="col">Command</th>
                <th scope="col">Verdict</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {request.commands.map((command, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the same sub-command may appear twice
                <tr key={index}>
                  <td>
                    <code className="approval-code">{command.text}</code>
                  </td>
                  <td>
                    <span className={`verdict verdict--${command.verdict}`}>
                      {VERDICT_LABELS[command.verdict]}
                    </span>
                  </td>
                  <td>
                    {command.rule ? (
                      <>
                        Rule <code className="approval-code">{command.rule}</code>
                      </>
                    ) : (
                      'No saved rule'
                    )}
                    {command.reasons.length > 0 && <> · {command.reasons.join('; ')}</>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>

      {diff && <DiffView path={diff.path} patch={diff.patch} />}
      <details className="tool-section" open={!diff}>
        <summary>Arguments</summary>
        <pre className="tool-args">{args}</pre>
      </details>

      {editing ? (
        <AlwaysAllowEditor
          request={request}
          disabled={disabled}
          onCancel={stopEditing}
          onSave={(rules, scope) => void reply({ decision: 'always', rules, scope })}
        />
      ) : (
        <div className="approval-actions">
          <div className="approval-allow">
            <button
              type="button"
              className="approval-primary"
              disabled={disabled}
              onClick={() => void reply({ decision: 'allow-once' })}
            >
              Allow once
            </button>
            <button type="button" disabled={disabled} onClick={() => void reply({ decision: 'allow-chat' })}>
              Allow for this chat
            </button>
            <button
              type="button"
              disabled={disabled || request.suggestedRules.length === 0}
              title={request.suggestedRules.length === 0 ? 'No rule can be saved for this call' : undefined}
              onClick={() => setEditing(true)}
            >
              Always allow…
            </button>
          </div>
          <form className="approval-deny" onSubmit={onDeny}>
            <input
              type="text"
              className="approval-message"
              aria-label="Message to the model (optional)"
              placeholder="Message to the model (optional)"
              value={message}
              disabled={disabled}
              maxLength={10_000}
              onChange={(event) => setMessage(event.target.value)}
            />
            <button type="submit" className="approval-deny-button" disabled={disabled}>
              Deny
            </button>
          </form>
        </div>
      )}
    </WaitingCard>
  )
}
