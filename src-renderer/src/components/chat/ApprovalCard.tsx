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
import type { ApprovalRequest, CommandVerdict, ConfirmationRequest } from '../../../../src-shared/approvals'
import type { Answer, CallDecision, Question } from '../../../../src-shared/questions'
import { errorMessage } from '../../errors'
import { decisionLabel } from '../approval-words'
import { AlwaysAllowEditor } from './AlwaysAllowEditor'
import { ChatIcon } from './ChatIcon'
import { DiffView } from './DiffView'
import { useQuestions } from './questions-context'
import { formatDuration } from './tool-display'

const VERDICT_LABELS: Record<CommandVerdict['verdict'], string> = {
  allow: 'Runs',
  ask: 'Asks',
  deny: 'Refused',
}

type LeavingRun = 'network' | 'everything'

const LEAVING_TITLES: Record<LeavingRun, string> = {
  network: 'This command asks to leave the sandbox for the network',
  everything: 'This command asks to run outside the sandbox entirely',
}

const LEAVING_MEANS: Record<LeavingRun, string> = {
  network:
    'It could reach other machines. It still writes only in the working folder and reads none of your secrets.',
  everything:
    'It would run with your own permissions: write anywhere you can, read your secrets, and reach the network.',
}

/** A shell call's request to leave the sandbox, with the model's justification; undefined when it asks none. */
function leavingSandbox(
  question: ApprovalRequest,
): { run: LeavingRun; justification: string | undefined } | undefined {
  const sandbox = question.description.command?.sandbox
  if (sandbox?.run !== 'network' && sandbox?.run !== 'everything') return undefined
  return { run: sandbox.run, justification: sandbox.justification }
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
 * How a question of a call was decided — an approval or a change a tool proposed — as one line in
 * the call's card, kept after a reload: what happened, by whom, under which rule, and how long the
 * person took.
 */
export function DecisionLine({ decision, tool }: { decision: CallDecision; tool: string }) {
  const { outcome, by, rules, message, waitedMs } = decision
  return (
    // biome-ignore lint/a11y/useSemanticElements: a fieldset groups form controls; this is one call's decision
    <div
      role="group"
      aria-label={`Approval for ${tool}`}
      className={`approval approval--settled approval--${outcome}`}
    >
      <ChatIcon name="shield" size={14} />
      <span className="approval-outcome">{decisionLabel(decision)}</span>
      {decision.summary && (
        <code className="approval-outcome-summary" title={decision.summary}>
          {decision.summary}
        </code>
      )}
      {by === 'rule' && rules && (
        <span className="approval-outcome-detail">
          by rule <code className="approval-code">{rules.join(', ')}</code>
        </span>
      )}
      {by === 'person' && rules && decision.scope !== 'chat' && (
        <span className="approval-outcome-detail">
          saved <code className="approval-code">{rules.join(', ')}</code>
        </span>
      )}
      {by === 'nobody' && <span className="approval-outcome-detail">nobody could be asked</span>}
      {by === 'hook' && <span className="approval-outcome-detail">by a hook</span>}
      {message && <span className="approval-outcome-detail">“{message}”</span>}
      {by === 'person' && waitedMs !== undefined && (
        <span className="approval-outcome-detail" title="How long the answer took">
          after {formatDuration(waitedMs)}
        </span>
      )}
    </div>
  )
}

interface QuestionProps<Q extends Question> {
  question: Q
}

/** What sending a card's answer needs: the card, whether it may answer now, and where focus goes after. */
interface ReplyProps {
  question: Question
  group: { readonly current: Element | null }
  /** Told of a refusal before it shows (a form marks the fields main found wrong). */
  onRefused?(failure: unknown): void
}

/**
 * Sends the answer to a question once — an approval's, a proposed change's, a server's form; while
 * it travels the question is disabled, and a refusal shows on it.
 */
export function useReply({ question, group, onRefused }: ReplyProps) {
  const { answer, returnFocus } = useQuestions()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const disabled = busy

  async function reply(decision: Answer) {
    if (disabled) return
    const hadFocus = group.current?.contains(document.activeElement) ?? false
    setBusy(true)
    setError(undefined)
    try {
      await answer(question, decision)
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
  question: Exclude<Question, { kind: 'elicitation' }>
  group: RefObject<HTMLDivElement | null>
  /** The ids (space-separated) of what describes the question besides its key hint. */
  describedBy: string
  /** Class names beyond `approval approval--waiting`. */
  className?: string
  /** The head line's words, after the shield. */
  title: ReactNode
  /** Esc on the question or inside it. */
  onEscape(): void
  /** Enter on the question itself: on a button Enter presses that button, in a field it submits that field. */
  onEnter(): void
  error: string | undefined
  keys: ReactNode
  children: ReactNode
}

/**
 * A question's frame inside its call's card: the focusable group and its keys, its head, then its
 * body, error and key hint. It takes focus when it appears, so Enter and Esc answer it — and only
 * it: the person is asked one question at a time.
 */
export function WaitingCard({
  question,
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

  useEffect(() => {
    if (focusTaken.has(question.id)) return
    focusTaken.add(question.id)
    if (mayTakeFocus()) group.current?.focus({ preventScroll: true })
  }, [question.id, group])

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
    // biome-ignore lint/a11y/useSemanticElements: a fieldset groups form controls; this is one call's question
    <div
      ref={group}
      role="group"
      aria-label={`Approval for ${question.tool}`}
      aria-describedby={`${describedBy} ${id}-keys`}
      className={`approval approval--waiting approval--active${className ? ` ${className}` : ''}`}
      tabIndex={-1}
      onKeyDown={onKeyDown}
    >
      <header className="approval-head">
        <span className="approval-icon">
          <ChatIcon name="shield" size={16} />
        </span>
        <span className="approval-title">{title}</span>
        <span className="badge badge--approval">Waiting for you</span>
      </header>
      {question.subagent && (
        <p className="approval-subagent">
          Asked by the subagent <strong>{question.subagent.agent}</strong>: {question.subagent.description}
        </p>
      )}
      {children}
      <AnswerError error={error} />
      <p className="approval-keys" id={`${id}-keys`}>
        {keys}
      </p>
    </div>
  )
}

/**
 * A change a custom tool proposes (`pushPendingAction`): what it is, what it would change, and two
 * answers only — Apply (the tool then makes the change) or Discard. No rule can be saved for it.
 */
export function ConfirmationQuestion({ question }: QuestionProps<ConfirmationRequest>) {
  const { action } = question
  const id = useId()
  const group = useRef<HTMLDivElement>(null)
  const { reply, disabled, error } = useReply({ question, group })
  const apply = () => void reply({ decision: 'allow-once' })
  const discard = () => void reply({ decision: 'deny' })

  return (
    <WaitingCard
      question={question}
      group={group}
      describedBy={`${id}-label`}
      className="approval--action"
      title={
        <>
          <code className="approval-code">{question.tool}</code> proposes a change
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

/**
 * May this call run? Why the policy asks, what it touches, each sub-command of a shell with its
 * verdict, the diff an edit would make — and the answers. The call itself (its arguments) is the
 * card around it.
 */
export function ApprovalQuestion({ question }: QuestionProps<ApprovalRequest>) {
  const id = useId()
  const group = useRef<HTMLDivElement>(null)
  const [editing, setEditing] = useState(false)
  const [message, setMessage] = useState('')
  const { reply, disabled, error } = useReply({ question, group })
  const diff = question.preview?.kind === 'diff' ? question.preview : undefined
  const leaving = leavingSandbox(question)

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
      question={question}
      group={group}
      describedBy={leaving ? `${id}-leave ${id}-reasons` : `${id}-reasons`}
      className={leaving ? 'approval--escalation' : undefined}
      title={
        <>
          Allow <code className="approval-code">{question.tool}</code>?
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
        {leaving && (
          <section className="approval-escalation" aria-labelledby={`${id}-leave-title`}>
            <h4 id={`${id}-leave-title`} className="approval-escalation-title">
              <ChatIcon name="alert" size={15} />
              {LEAVING_TITLES[leaving.run]}
            </h4>
            <div id={`${id}-leave`}>
              <p className="approval-escalation-what">{LEAVING_MEANS[leaving.run]}</p>
              <p className="approval-escalation-why">
                <span className="approval-label">The model’s reason</span>
                <q className="approval-justification">{leaving.justification ?? '(none given)'}</q>
              </p>
            </div>
          </section>
        )}
        {question.reasons.length > 0 && (
          <section aria-labelledby={`${id}-why`}>
            <h4 id={`${id}-why`} className="approval-label">
              Why it asks
            </h4>
            <ul className="approval-reasons" id={`${id}-reasons`}>
              {question.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
          </section>
        )}
        {question.description.locations.length > 0 && (
          <section aria-labelledby={`${id}-locations`}>
            <h4 id={`${id}-locations`} className="approval-label">
              Touches
            </h4>
            <ul className="approval-locations">
              {question.description.locations.map((location) => (
                <li key={location}>
                  <code className="approval-code">{location}</code>
                </li>
              ))}
            </ul>
          </section>
        )}
        {question.commands && question.commands.length > 0 && (
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
              {question.commands.map((command, index) => (
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

      {editing ? (
        <AlwaysAllowEditor
          request={question}
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
            {/* Leaving the sandbox is asked call by call: no answer here may stand for the next one. */}
            {leaving ? (
              <span className="approval-once-only">Asked every time</span>
            ) : (
              <>
                <button
                  type="button"
                  disabled={disabled}
                  onClick={() => void reply({ decision: 'allow-chat' })}
                >
                  Allow for this chat
                </button>
                <button
                  type="button"
                  disabled={disabled || question.suggestedRules.length === 0}
                  title={
                    question.suggestedRules.length === 0 ? 'No rule can be saved for this call' : undefined
                  }
                  onClick={() => setEditing(true)}
                >
                  Always allow…
                </button>
              </>
            )}
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
