import { memo, useId, useMemo, useState } from 'react'
import { type CountedProgress, countedProgressText } from '../../../../src-shared/progress'
import type { Question } from '../../../../src-shared/questions'
import type { ToolCallState } from '../../../../src-shared/tool-calls'
import type { ToolDisplay, ToolErrorType } from '../../../../src-shared/tools'
import { sandboxBadge } from '../sandbox-words'
import { ApprovalQuestion, ConfirmationQuestion, DecisionLine } from './ApprovalCard'
import { ChatIcon } from './ChatIcon'
import type { PartialResult, ShellChunk, ToolCallView, ToolResultView } from './conversation'
import { DiffView } from './DiffView'
import { AnsweredQuestion, ElicitationQuestion } from './ElicitationCard'
import { MarkdownText } from './MarkdownText'
import { ShellOutput } from './ShellOutput'
import { ToolImages } from './ToolImages'
import { resultRows, resultSize, ToolResultBody } from './ToolResultBody'
import { formatDuration, headline, parseJson, prettyArguments } from './tool-display'

/** Arguments this short show open; results only when tiny (or failed): the card stays calm. */
const SHORT_ARGUMENTS = { lines: 10, chars: 800 }
const SHORT_RESULT = { lines: 3, chars: 240 }

/** What the card says of the call: its state, in a person's words. */
type CardState =
  | 'writing'
  | 'preparing'
  | 'checking'
  | 'queued'
  | 'waiting'
  | 'running'
  | 'asking'
  | 'done'
  | 'error'
  | 'denied'
  | 'cancelled'
  | 'timeout'
  | 'not-offered'
  | 'interrupted'
  | 'not-run'

const STATE_LABEL: Record<CardState, string> = {
  writing: 'Preparing…',
  preparing: 'Preparing…',
  checking: 'Checking…',
  queued: 'Queued',
  waiting: 'Waiting for approval',
  running: 'Running…',
  asking: 'Waiting for you',
  done: 'Done',
  error: 'Error',
  denied: 'Denied',
  cancelled: 'Cancelled',
  timeout: 'Timed out',
  'not-offered': 'Not offered',
  interrupted: 'Interrupted',
  'not-run': 'Not run',
}

/** Failures a person reads differently from a plain error; every other type is an Error. */
const ERROR_STATES: Partial<Record<ToolErrorType, CardState>> = {
  timeout: 'timeout',
  not_offered: 'not-offered',
  denied: 'denied',
  interrupted: 'interrupted',
}

const BUSY: ReadonlySet<CardState> = new Set(['writing', 'preparing', 'checking', 'running'])

interface ToolCallCardProps {
  call: ToolCallView
  /** Its state, once the scheduler has it. */
  state: ToolCallState | undefined
  /** What it wrote while it ran (a command's output). */
  output: ShellChunk[] | undefined
  /** Whether the turn that made the call is still running (else a call without a state never ran). */
  active: boolean
}

/** The card's state, from the call's own state alone (before it has one: from the model's stream). */
function stateOf(call: ToolCallView, state: ToolCallState | undefined, active: boolean): CardState {
  if (!state) return !active ? 'not-run' : call.complete ? 'preparing' : 'writing'
  switch (state.status) {
    case 'validating':
      return 'checking'
    case 'scheduled':
      return 'queued'
    case 'awaiting_approval':
      return 'waiting'
    case 'executing':
      return 'running'
    case 'awaiting_input':
      return 'asking'
    case 'succeeded':
      return 'done'
    case 'cancelled':
      return 'cancelled'
    case 'failed':
      return (state.errorType && ERROR_STATES[state.errorType]) ?? 'error'
  }
}

/** The question a call waits on, put to the person inside its card. */
function QuestionView({ question }: { question: Question }) {
  switch (question.kind) {
    case 'approval':
      return <ApprovalQuestion question={question} />
    case 'confirmation':
      return <ConfirmationQuestion question={question} />
    case 'elicitation':
      return <ElicitationQuestion question={question} />
  }
}

function isShort(text: string, limit: { lines: number; chars: number }): boolean {
  return text.length <= limit.chars && text.split('\n').length <= limit.lines
}

/** One argument, already shown in the header: no need to open the arguments too. */
function saysItAll(args: string, summary: string | undefined): boolean {
  const value = parseJson(args)
  if (summary === undefined || typeof value !== 'object' || value === null) return false
  const values = Object.values(value)
  return values.length === 1 && values[0] === summary
}

function sizeOf(text: string): string {
  const lines = text.split('\n').length
  if (lines > 1) return `${lines.toLocaleString()} lines`
  return `${text.length.toLocaleString()} characters`
}

/** A counted progress: a real progress bar (indeterminate without a total) and its words. */
function CountedProgressBar({ name, progress }: { name: string; progress: CountedProgress }) {
  const { done, total } = progress
  return (
    <div className="tool-progress tool-progress--counted">
      <progress
        aria-label={`Progress of ${name}`}
        value={total !== undefined ? Math.min(done, total) : undefined}
        max={total}
      />
      <span>{countedProgressText(progress)}</span>
    </div>
  )
}

/** A custom tool's latest partial result while its call runs: its render hook's Markdown, else its text. */
function PartialView({ name, partial }: { name: string; partial: PartialResult }) {
  return (
    <div className="tool-partial" role="status" aria-label={`Partial result of ${name}`}>
      {partial.rendered ? (
        <MarkdownText text={partial.rendered} />
      ) : (
        <p className="tool-partial-text">{partial.text}</p>
      )}
    </div>
  )
}

type RenderedDisplay = Extract<ToolDisplay, { kind: 'rendered' }>

/**
 * A result as a custom tool's render hooks made it: their collapsed or expanded Markdown, the
 * plain content where a hook gave nothing (collapsed to its first line when long).
 */
function RenderedResult({
  name,
  result,
  display,
}: {
  name: string
  result: ToolResultView
  display: RenderedDisplay
}) {
  const bodyId = useId()
  const [expanded, setExpanded] = useState(result.isError)
  const markdown = expanded ? display.expanded : display.collapsed
  const short = isShort(result.content, SHORT_RESULT)
  const firstLine = result.content.split('\n')[0] ?? ''
  return (
    <section
      className={`tool-section tool-result tool-result--rendered${result.isError ? ' tool-result--error' : ''}`}
      aria-label={`Result of ${name}`}
    >
      <div className="tool-result-bar">
        <span className="tool-result-title">
          {result.isError ? 'Result (error)' : 'Result'}
          <span className="tool-section-meta"> · {sizeOf(result.content)}</span>
        </span>
        <button
          type="button"
          className="tool-result-toggle"
          aria-expanded={expanded}
          aria-controls={bodyId}
          aria-label={`${expanded ? 'Collapse' : 'Expand'} the result of ${name}`}
          onClick={() => setExpanded((open) => !open)}
        >
          <ChatIcon name={expanded ? 'chevron-up' : 'chevron-down'} size={13} />
          {expanded ? 'Collapse' : 'Expand'}
        </button>
      </div>
      <div id={bodyId} className="tool-rendered">
        {markdown !== undefined ? (
          <MarkdownText text={markdown} />
        ) : (
          <pre className="tool-result-content">
            {expanded || short ? result.content : `${firstLine}${firstLine === result.content ? '' : ' …'}`}
          </pre>
        )}
      </div>
    </section>
  )
}

/**
 * One tool call — what was asked, what it is doing, and how it ended — with, inside it, the question
 * it waits on and what was decided for it: one card per call.
 */
export const ToolCallCard = memo(function ToolCallCard({ call, state, output, active }: ToolCallCardProps) {
  const cardState = stateOf(call, state, active)
  const result = state?.result
  const args = useMemo(() => prettyArguments(call.arguments), [call.arguments])
  const summary = useMemo(() => headline(call.arguments), [call.arguments])
  const display = result?.display
  const diff = display?.kind === 'diff' ? display : undefined
  const shell = display?.kind === 'shell' ? display : undefined
  const images = display?.kind === 'images' ? display.images : []
  const rendered = display?.kind === 'rendered' ? display : undefined
  const liveOutput = output ?? []
  const counted = result ? undefined : state?.progress?.counted
  const partial = result ? undefined : state?.progress?.partial
  // A custom tool's renderCall: the head line instead of the argument it would show.
  const callLine = rendered ? rendered.call : partial?.call
  const visual = Boolean(diff || shell || images.length > 0)
  const title = state?.title ?? call.name
  const question = state?.question
  const previewed = question?.kind === 'approval' && question.preview?.kind === 'diff'
  const sandbox = shell?.sandbox && sandboxBadge(shell.sandbox)

  return (
    <article className={`tool-card tool-card--${cardState}`} aria-label={`Tool call ${call.name}`}>
      <header className="tool-card-head">
        <span className="tool-card-icon">
          <ChatIcon name={shell || liveOutput.length > 0 ? 'terminal' : 'tool'} size={15} />
        </span>
        {/* The title Settings shows, with the name the model called it by (the card's accessible name). */}
        <span className="tool-card-name">{title}</span>
        {title !== call.name && <code className="tool-card-id">{call.name}</code>}
        {callLine ? (
          <div className="tool-card-call">
            <MarkdownText text={callLine} />
          </div>
        ) : (
          summary && (
            <code className="tool-card-summary" title={summary}>
              {summary}
            </code>
          )
        )}
        {shell?.cwd && (
          <span className="tool-card-where" title={`Ran in ${shell.cwd}`}>
            <ChatIcon name="folder" size={12} />
            <span className="visually-hidden">Ran in </span>
            {shell.cwd}
          </span>
        )}
        <span className="tool-card-badges">
          {result?.truncated && <span className="badge badge--warning">Truncated</span>}
          {sandbox && (
            <span className={`badge badge--sandbox-${sandbox.tone}`} title={sandbox.title}>
              <ChatIcon name="shield" size={11} />
              {sandbox.label}
              {/* The tooltip's why, for those who cannot hover: a command that ran unconfined says why. */}
              {sandbox.tone === 'open' && <span className="visually-hidden"> — {sandbox.title}</span>}
            </span>
          )}
          <span className={`badge badge--${cardState}`}>
            {BUSY.has(cardState) && <span className="spinner" aria-hidden="true" />}
            {STATE_LABEL[cardState]}
          </span>
          {result && result.durationMs > 0 && (
            <span className="tool-card-duration" title="How long the call ran (waits for you left out)">
              {formatDuration(result.durationMs)}
            </span>
          )}
        </span>
      </header>

      {state?.decisions.map((decision) =>
        decision.kind === 'elicitation' ? (
          <AnsweredQuestion key={decision.at + decision.kind} decision={decision} />
        ) : decision.by === 'mode' && decision.outcome === 'allowed' ? null : (
          <DecisionLine key={decision.at + decision.kind} decision={decision} tool={call.name} />
        ),
      )}
      {question && <QuestionView key={question.id} question={question} />}

      {args && (
        <details
          className="tool-section"
          open={!diff && !previewed && !saysItAll(call.arguments, summary) && isShort(args, SHORT_ARGUMENTS)}
        >
          <summary>Arguments</summary>
          <pre className="tool-args">{args}</pre>
        </details>
      )}

      {!shell && liveOutput.length > 0 && (
        <ShellOutput chunks={liveOutput} label={`Live output of ${call.name}`} />
      )}
      {shell && (
        <div className="shell-result">
          <ShellOutput
            chunks={[
              { stream: 'stdout', text: shell.stdout },
              { stream: 'stderr', text: shell.stderr },
            ]}
            label={`Output of ${call.name}`}
          />
          <p className="shell-status">
            {shell.termination === 'signalled'
              ? `Killed by ${shell.signal ?? 'a signal'}`
              : shell.termination === 'aborted'
                ? 'Stopped before it finished'
                : shell.termination === 'timed_out'
                  ? 'Timed out; the command and what it started were killed'
                  : `Exit code ${shell.exitCode ?? 'none'}`}
            {(shell.truncated.stdout || shell.truncated.stderr) && ' · the middle of long output was cut'}
          </p>
        </div>
      )}
      {diff && <DiffView path={diff.path} patch={diff.patch} />}
      <ToolImages name={call.name} outcomes={state?.progress?.images ?? []} images={images} />
      {counted && <CountedProgressBar name={call.name} progress={counted} />}
      {partial && <PartialView name={call.name} partial={partial} />}

      {result && rendered && <RenderedResult name={call.name} result={result} display={rendered} />}
      {result && !rendered && (
        <details
          className={`tool-section tool-result${result.isError ? ' tool-result--error' : ''}`}
          aria-label={`Result of ${call.name}`}
          open={
            result.isError ||
            (!visual && isShort(result.content, SHORT_RESULT)) ||
            (!visual && (resultRows(result) ?? Number.POSITIVE_INFINITY) <= SHORT_RESULT.lines)
          }
        >
          <summary>
            {result.isError ? 'Result (error)' : 'Result'}
            <span className="tool-section-meta"> · {resultSize(result, call.name)}</span>
          </summary>
          <ToolResultBody name={call.name} result={result} />
        </details>
      )}
    </article>
  )
})
