import { memo, useContext, useId, useMemo, useState } from 'react'
import { type CountedProgress, countedProgressText } from '../../../../src-shared/progress'
import type { Question } from '../../../../src-shared/questions'
import type { ToolCallState } from '../../../../src-shared/tool-calls'
import type { ToolDisplay } from '../../../../src-shared/tools'
import { sandboxBadge } from '../sandbox-words'
import { ApprovalQuestion, ConfirmationQuestion, DecisionLine } from './ApprovalCard'
import { activityLine, isBuiltinTool } from './activity-line'
import { ChatIcon } from './ChatIcon'
import { BUSY, callStatus, FAILED, STATUS_LABEL, WAITING } from './call-status'
import type { PartialResult, ShellChunk, ToolCallView, ToolResultView } from './conversation'
import { DiffView } from './DiffView'
import { AnsweredQuestion, ElicitationQuestion } from './ElicitationCard'
import { HookRuns } from './HookRuns'
import { MarkdownText } from './MarkdownText'
import { PlanChecklist, PlanQuestion } from './PlanCards'
import { RevealedCallContext } from './revealed-call-context'
import { SamplingQuestion } from './SamplingCard'
import { ShellOutput } from './ShellOutput'
import { SubagentSection } from './SubagentSection'
import { ToolImages } from './ToolImages'
import { resultSize, ToolResultBody } from './ToolResultBody'
import { formatDuration, headline, parseJson, prettyArguments } from './tool-display'
import { useDisclosure } from './useDisclosure'

/** Arguments this short show open; results only when tiny (or failed): the card stays calm. */
const SHORT_ARGUMENTS = { lines: 10, chars: 800 }
const SHORT_RESULT = { lines: 3, chars: 240 }

interface ToolCallCardProps {
  call: ToolCallView
  /** Its state, once the scheduler has it. */
  state: ToolCallState | undefined
  /** What it wrote while it ran (a command's output). */
  output: ShellChunk[] | undefined
  /** Whether the turn that made the call is still running (else a call without a state never ran). */
  active: boolean
  /** Under which the person's opening or closing of the card is remembered (its `callKey`). */
  disclosureKey: string
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
    case 'sampling':
      return <SamplingQuestion question={question} />
    case 'plan':
      return <PlanQuestion question={question} />
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
 * One tool call: a line saying what it did to what and how it came out, which opens in place to the
 * whole card — the question it waits on, what was decided, its arguments, output and result. A
 * call that failed or waits for the person opens by itself.
 */
export const ToolCallCard = memo(function ToolCallCard({
  call,
  state,
  output,
  active,
  disclosureKey,
}: ToolCallCardProps) {
  const cardState = callStatus(call, state, active)
  const result = state?.result
  const args = useMemo(() => prettyArguments(call.arguments), [call.arguments])
  const summary = useMemo(() => headline(call.arguments), [call.arguments])
  const line = activityLine(call.name, call.arguments, state, output)
  const display = result?.display
  const diff = display?.kind === 'diff' ? display : undefined
  const shell = display?.kind === 'shell' ? display : undefined
  const images = display?.kind === 'images' ? display.images : []
  const rendered = display?.kind === 'rendered' ? display : undefined
  const plan = display?.kind === 'plan' ? display : undefined
  const proposed = display?.kind === 'proposed-plan' ? display : undefined
  const subagent = display?.kind === 'subagent' ? display : undefined
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
  const builtin = isBuiltinTool(call.name)
  const bodyId = useId()
  const revealed = useContext(RevealedCallContext) === disclosureKey
  const { open, toggle } = useDisclosure(disclosureKey, {
    // Images are what such a call is for: they show without a click, as a failure does.
    attention:
      revealed || FAILED.has(cardState) || images.length > 0 || (state?.progress?.images ?? []).length > 0,
    pinned: question !== undefined || WAITING.has(cardState),
  })

  return (
    <article
      className={`tool-card tool-card--${cardState}${open ? ' tool-card--open' : ''}`}
      aria-label={`Tool call ${call.name}`}
    >
      <header className="tool-card-head">
        <button
          type="button"
          className="tool-line"
          aria-expanded={open}
          aria-controls={bodyId}
          title={open ? 'Fold the call to its line' : 'Show the whole call'}
          onClick={toggle}
        >
          <span className="tool-line-chevron" aria-hidden="true">
            <ChatIcon name="chevron-down" size={13} />
          </span>
          <span className="tool-card-icon">
            <ChatIcon name={shell || liveOutput.length > 0 ? 'terminal' : 'tool'} size={15} />
          </span>
          {/* A built-in's verb, else the title Settings shows, with the name the model called it by. */}
          <span className="tool-card-name">{line.verb}</span>{' '}
          {!builtin && title !== call.name && <code className="tool-card-id">{call.name}</code>}
          {!callLine && line.subject && (
            <code className="tool-card-summary" title={line.subject}>
              {line.subject}
            </code>
          )}
          {/* Progress shows in the line while folded; opened, the card's own progress says it. */}
          {line.outcome && (result || !open) && (
            <span className="tool-line-outcome" title={line.outcome}>
              <span aria-hidden="true"> · </span>
              {line.outcome}
            </span>
          )}
        </button>
        {callLine && (
          <div className="tool-card-call">
            <MarkdownText text={callLine} />
          </div>
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
          {cardState === 'done' ? (
            // Done is the usual end: a check mark says it without a word in every line.
            <span className="badge badge--done badge--quiet" title={STATUS_LABEL.done}>
              <ChatIcon name="check" size={12} />
              <span className="visually-hidden">{STATUS_LABEL.done}</span>
            </span>
          ) : (
            <span className={`badge badge--${cardState}`}>
              {BUSY.has(cardState) && <span className="spinner" aria-hidden="true" />}
              {STATUS_LABEL[cardState]}
            </span>
          )}
          {result && result.durationMs > 0 && (
            <span className="tool-card-duration" title="How long the call ran (waits for you left out)">
              {formatDuration(result.durationMs)}
            </span>
          )}
        </span>
      </header>

      <div id={bodyId} className="tool-card-body" hidden={!open}>
        {(builtin || shell?.cwd) && (
          // A built-in's line says its verb: opened, the card names the tool as Settings does, by the
          // title and the id the model called, and where a command ran.
          <p className="tool-card-meta">
            {builtin && <span className="tool-card-title">{title}</span>}
            {builtin && title !== call.name && <code className="tool-card-id">{call.name}</code>}
            {shell?.cwd && (
              <span className="tool-card-where" title={`Ran in ${shell.cwd}`}>
                <ChatIcon name="folder" size={12} />
                <span className="visually-hidden">Ran in </span>
                {shell.cwd}
              </span>
            )}
          </p>
        )}
        {state?.decisions.map((decision) =>
          decision.kind === 'elicitation' || decision.kind === 'sampling' ? (
            <AnsweredQuestion key={decision.at + decision.kind} decision={decision} />
          ) : decision.by === 'mode' && decision.outcome === 'allowed' ? null : (
            <DecisionLine key={decision.at + decision.kind} decision={decision} tool={call.name} />
          ),
        )}
        {state?.hooks && state.hooks.length > 0 && <HookRuns name={call.name} runs={state.hooks} />}
        {question && <QuestionView key={question.id} question={question} />}

        {args && (
          <details
            className="tool-section"
            open={
              !diff &&
              !previewed &&
              // A proposed plan shows as the plan itself, above or in place of its arguments.
              question?.kind !== 'plan' &&
              !proposed &&
              !saysItAll(call.arguments, summary) &&
              isShort(args, SHORT_ARGUMENTS)
            }
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
        {diff && <DiffView path={diff.path} patch={diff.patch} diagnostics={diff.diagnostics} />}
        {plan && <PlanChecklist label="Plan update" steps={plan.steps} explanation={plan.explanation} />}
        {proposed && (
          <section className="plan-proposed" aria-label="Proposed plan">
            <MarkdownText text={proposed.plan} />
          </section>
        )}
        <ToolImages name={call.name} outcomes={state?.progress?.images ?? []} images={images} />
        {counted && <CountedProgressBar name={call.name} progress={counted} />}
        {partial && <PartialView name={call.name} partial={partial} />}

        {call.name === 'task' && (
          <SubagentSection
            call={call}
            display={subagent}
            failure={result?.isError && !subagent ? result.content : undefined}
          />
        )}
        {result && rendered && <RenderedResult name={call.name} result={result} display={rendered} />}
        {result && !rendered && call.name !== 'task' && (
          <details
            className={`tool-section tool-result${result.isError ? ' tool-result--error' : ''}`}
            aria-label={`Result of ${call.name}`}
            // The person opened the call to see what it found: a file, matches or text show at once;
            // a diff, a command's output or images already show above, so their raw text waits.
            open={result.isError || !visual}
          >
            <summary>
              {result.isError ? 'Result (error)' : 'Result'}
              <span className="tool-section-meta"> · {resultSize(result, call.name)}</span>
            </summary>
            <ToolResultBody name={call.name} result={result} />
          </details>
        )}
      </div>
    </article>
  )
})
