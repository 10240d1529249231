import { useId, useRef, useState } from 'react'
import { PLAN_CONTINUE_MODES, type PlanContinueMode, type PlanStep } from '../../../../src-shared/plans'
import type { PlanReviewRequest } from '../../../../src-shared/questions'
import { APPROVAL_MODE_LABELS } from '../approval-words'
import { useReply, WaitingCard } from './ApprovalCard'
import { MarkdownText } from './MarkdownText'

const STEP_WORDS: Record<PlanStep['status'], string> = {
  pending: 'to do',
  in_progress: 'in progress',
  completed: 'done',
}

const STEP_MARKS: Record<PlanStep['status'], string> = { pending: '○', in_progress: '◐', completed: '✓' }

/**
 * A plan as a checklist: each step with its state, the one in progress marked as the current one.
 * Pinned above the composer while the turn runs; inside the call's card afterwards.
 */
export function PlanChecklist({
  steps,
  explanation,
  label,
}: {
  steps: readonly PlanStep[]
  explanation?: string | undefined
  label: string
}) {
  const done = steps.filter((step) => step.status === 'completed').length
  return (
    <section className="plan-checklist" aria-label={label}>
      <header className="plan-checklist-head">
        <span className="plan-checklist-title">{label}</span>
        <span className="plan-checklist-count">
          {done} of {steps.length} done
        </span>
      </header>
      {explanation && <p className="plan-checklist-explanation">{explanation}</p>}
      <ol className="plan-steps">
        {steps.map(({ step, status }, index) => (
          <li
            // biome-ignore lint/suspicious/noArrayIndexKey: a plan's steps are its positions; update_plan sends them all again
            key={index}
            className={`plan-step plan-step--${status}`}
            aria-current={status === 'in_progress' ? 'step' : undefined}
          >
            <span className="plan-step-mark" aria-hidden="true">
              {STEP_MARKS[status]}
            </span>
            <span className="plan-step-text">{step}</span>
            <span className="visually-hidden"> ({STEP_WORDS[status]})</span>
          </li>
        ))}
      </ol>
    </section>
  )
}

/**
 * A plan proposed in plan mode, waiting for the person: Approve, going on in the mode chosen, or
 * Keep planning, with what the model should reconsider. Enter approves; Esc keeps planning.
 */
export function PlanQuestion({ question }: { question: PlanReviewRequest }) {
  const id = useId()
  const group = useRef<HTMLDivElement>(null)
  const { reply, disabled, error } = useReply({ question, group })
  // Ask is the careful default: approving a plan is not approving each of its edits.
  const [mode, setMode] = useState<PlanContinueMode>('ask')
  const [feedback, setFeedback] = useState('')
  const approve = () => void reply({ decision: 'approve-plan', mode })
  const keepPlanning = () => {
    const said = feedback.trim()
    void reply({ decision: 'keep-planning', ...(said && { feedback: said }) })
  }

  return (
    <WaitingCard
      question={question}
      group={group}
      describedBy={`${id}-plan`}
      className="approval--plan"
      title="The agent proposes a plan"
      onEscape={keepPlanning}
      onEnter={approve}
      error={error}
      keys={
        <>
          <kbd>Enter</kbd> approves · <kbd>Esc</kbd> keeps planning
        </>
      }
    >
      <section className="approval-body plan-proposed" id={`${id}-plan`} aria-label="Proposed plan">
        <MarkdownText text={question.plan} />
      </section>
      <div className="approval-actions plan-actions">
        <div className="approval-allow">
          <label className="plan-mode-field">
            Go on in{' '}
            <select
              value={mode}
              disabled={disabled}
              onChange={(event) => setMode(event.target.value as PlanContinueMode)}
            >
              {PLAN_CONTINUE_MODES.map((choice) => (
                <option key={choice} value={choice}>
                  {APPROVAL_MODE_LABELS[choice]}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="approval-primary" disabled={disabled} onClick={approve}>
            Approve
          </button>
        </div>
        <div className="plan-feedback">
          <label className="plan-feedback-field">
            What should the plan reconsider?
            <textarea
              rows={2}
              value={feedback}
              disabled={disabled}
              onChange={(event) => setFeedback(event.target.value)}
              onKeyDown={(event) => {
                // Esc while writing leaves the box; a second Esc, on the card, sends it back.
                if (event.key !== 'Escape') return
                event.preventDefault()
                group.current?.focus()
              }}
            />
          </label>
          <button type="button" className="approval-deny-button" disabled={disabled} onClick={keepPlanning}>
            Keep planning
          </button>
        </div>
      </div>
    </WaitingCard>
  )
}
