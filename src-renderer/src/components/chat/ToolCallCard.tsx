import { memo, useId, useMemo, useState } from 'react'
import { type CountedProgress, countedProgressText } from '../../../../src-shared/progress'
import type { ToolDisplay, ToolErrorType } from '../../../../src-shared/tools'
import { ChatIcon } from './ChatIcon'
import type { PartialResult, ToolCallProgress, ToolCallView, ToolResultView } from './conversation'
import { DiffView } from './DiffView'
import { MarkdownText } from './MarkdownText'
import { ShellOutput } from './ShellOutput'
import { ToolImages } from './ToolImages'
import { resultRows, resultSize, ToolResultBody } from './ToolResultBody'
import { formatDuration, headline, parseJson, prettyArguments } from './tool-display'
import { useToolTitle } from './tool-titles'

/** Arguments this short show open; results only when tiny (or failed): the card stays calm. */
const SHORT_ARGUMENTS = { lines: 10, chars: 800 }
const SHORT_RESULT = { lines: 3, chars: 240 }

type CardState =
  | 'writing'
  | 'waiting'
  | 'running'
  | 'done'
  | 'error'
  | 'denied'
  | 'aborted'
  | 'timeout'
  | 'not-offered'
  | 'not-run'

const STATE_LABEL: Record<CardState, string> = {
  writing: 'Preparing…',
  waiting: 'Waiting for approval',
  running: 'Running…',
  done: 'Done',
  error: 'Error',
  denied: 'Denied',
  aborted: 'Aborted',
  timeout: 'Timed out',
  'not-offered': 'Not offered',
  'not-run': 'Not run',
}

/** Failures a person reads differently from a plain error; every other type is an Error. */
const ERROR_STATES: Partial<Record<ToolErrorType, CardState>> = {
  aborted: 'aborted',
  timeout: 'timeout',
  not_offered: 'not-offered',
  denied: 'denied',
}

interface ToolCallCardProps {
  call: ToolCallView
  result: ToolResultView | undefined
  progress: ToolCallProgress | undefined
  /** Whether the turn that made the call is still running (else a call without a result never ran). */
  active: boolean
  /** An approval card for it waits for the person. */
  waiting: boolean
}

function stateOf(
  call: ToolCallView,
  result: ToolResultView | undefined,
  active: boolean,
  waiting: boolean,
): CardState {
  if (result) {
    if (!result.isError) return 'done'
    return (result.errorType && ERROR_STATES[result.errorType]) ?? 'error'
  }
  if (!active) return 'not-run'
  if (waiting) return 'waiting'
  return call.complete ? 'running' : 'writing'
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

/** One tool call: what was asked, what it is doing, and how it ended. */
export const ToolCallCard = memo(function ToolCallCard({
  call,
  result,
  progress,
  active,
  waiting,
}: ToolCallCardProps) {
  const state = stateOf(call, result, active, waiting)
  const args = useMemo(() => prettyArguments(call.arguments), [call.arguments])
  const summary = useMemo(() => headline(call.arguments), [call.arguments])
  const display = result?.display
  const diff = display?.kind === 'diff' ? display : undefined
  const shell = display?.kind === 'shell' ? display : undefined
  const images = display?.kind === 'images' ? display.images : []
  const rendered = display?.kind === 'rendered' ? display : undefined
  const liveOutput = progress?.output ?? []
  const counted = result ? undefined : progress?.counted
  const partial = result ? undefined : progress?.partial
  // A custom tool's renderCall: the head line instead of the argument it would show.
  const callLine = rendered ? rendered.call : partial?.call
  const visual = Boolean(diff || shell || images.length > 0)
  const title = useToolTitle(call.name)

  return (
    <article className={`tool-card tool-card--${state}`} aria-label={`Tool call ${call.name}`}>
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
          <span className={`badge badge--${state}`}>
            {(state === 'running' || state === 'writing') && <span className="spinner" aria-hidden="true" />}
            {STATE_LABEL[state]}
          </span>
          {result?.durationMs !== undefined && (
            <span className="tool-card-duration" title="How long the call took">
              {formatDuration(result.durationMs)}
            </span>
          )}
        </span>
      </header>

      {args && (
        <details
          className="tool-section"
          open={!diff && !saysItAll(call.arguments, summary) && isShort(args, SHORT_ARGUMENTS)}
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
      <ToolImages name={call.name} outcomes={progress?.images ?? []} images={images} />
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
