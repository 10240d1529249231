import { memo, useMemo } from 'react'
import { type CountedProgress, countedProgress, countedProgressText } from '../../../../src-shared/progress'
import { ChatIcon } from './ChatIcon'
import type { ToolCallView, ToolProgress, ToolResultView } from './conversation'
import { DiffView } from './DiffView'
import { GeneratedImages } from './GeneratedImages'
import { ShellOutput } from './ShellOutput'
import {
  durationOf,
  fileChangeOf,
  formatDuration,
  headline,
  imagesOf,
  inlineImagesOf,
  isTruncated,
  outcomeOf,
  parseJson,
  prettyArguments,
  progressText,
  shellData,
} from './tool-display'

const SHELLS = new Set(['bash', 'zsh', 'powershell'])
/** Arguments this short show open; results only when tiny (or failed): the card stays calm. */
const SHORT_ARGUMENTS = { lines: 10, chars: 800 }
const SHORT_RESULT = { lines: 3, chars: 240 }

type CardState = 'writing' | 'running' | 'done' | 'error' | 'aborted' | 'timeout' | 'not-run'

const STATE_LABEL: Record<CardState, string> = {
  writing: 'Preparing…',
  running: 'Running…',
  done: 'Done',
  error: 'Error',
  aborted: 'Aborted',
  timeout: 'Timed out',
  'not-run': 'Not run',
}

interface ToolCallCardProps {
  call: ToolCallView
  result: ToolResultView | undefined
  progress: ToolProgress | undefined
  /** Whether the turn that made the call is still running (else a call without a result never ran). */
  active: boolean
}

function stateOf(call: ToolCallView, result: ToolResultView | undefined, active: boolean): CardState {
  if (result) {
    const outcome = outcomeOf(result)
    if (outcome === 'Aborted') return 'aborted'
    if (outcome === 'Timed out') return 'timeout'
    return outcome === 'Error' ? 'error' : 'done'
  }
  if (!active) return 'not-run'
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

/** An MCP tool's progress: a real progress bar (indeterminate without a total) and its words. */
function CountedProgressBar({ name, progress }: { name: string; progress: CountedProgress }) {
  const { total } = progress
  return (
    <div className="tool-progress tool-progress--counted">
      <progress
        aria-label={`Progress of ${name}`}
        value={total !== undefined ? Math.min(progress.progress, total) : undefined}
        max={total}
      />
      <span>{countedProgressText(progress)}</span>
    </div>
  )
}

/** One tool call: what was asked, what it is doing, and how it ended. */
export const ToolCallCard = memo(function ToolCallCard({
  call,
  result,
  progress,
  active,
}: ToolCallCardProps) {
  const state = stateOf(call, result, active)
  const args = useMemo(() => prettyArguments(call.arguments), [call.arguments])
  const summary = useMemo(() => headline(call.arguments), [call.arguments])
  const isShell = SHELLS.has(call.name)
  const shell = useMemo(() => (result ? shellData(result.data) : undefined), [result])
  const change = useMemo(
    () => fileChangeOf(call.name, call.arguments, result),
    [call.name, call.arguments, result],
  )
  const images = useMemo(() => imagesOf(result), [result])
  const inlineImages = useMemo(() => inlineImagesOf(result), [result])
  const duration = result ? durationOf(result) : undefined
  const truncated = useMemo(() => (result ? isTruncated(result) : false), [result])
  const visual = Boolean(shell || change || images.length > 0 || inlineImages.length > 0)
  const otherProgress = !result ? progress?.other.at(-1) : undefined
  const counted = useMemo(() => countedProgress(otherProgress), [otherProgress])

  return (
    <article className={`tool-card tool-card--${state}`} aria-label={`Tool call ${call.name}`}>
      <header className="tool-card-head">
        <span className="tool-card-icon">
          <ChatIcon name={isShell ? 'terminal' : 'tool'} size={15} />
        </span>
        <span className="tool-card-name">{call.name}</span>
        {summary && (
          <code className="tool-card-summary" title={summary}>
            {summary}
          </code>
        )}
        <span className="tool-card-badges">
          {truncated && <span className="badge badge--warning">Truncated</span>}
          <span className={`badge badge--${state}`}>
            {(state === 'running' || state === 'writing') && <span className="spinner" aria-hidden="true" />}
            {STATE_LABEL[state]}
          </span>
          {duration !== undefined && (
            <span className="tool-card-duration" title="How long the call took">
              {formatDuration(duration)}
            </span>
          )}
        </span>
      </header>

      {args && (
        <details
          className="tool-section"
          open={!change && !saysItAll(call.arguments, summary) && isShort(args, SHORT_ARGUMENTS)}
        >
          <summary>Arguments</summary>
          <pre className="tool-args">{args}</pre>
        </details>
      )}

      {isShell && !shell && progress && progress.shell.length > 0 && (
        <ShellOutput chunks={progress.shell} label={`Live output of ${call.name}`} />
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
      {change && <DiffView change={change} />}
      {(images.length > 0 || (progress && progress.images.length > 0)) && (
        <GeneratedImages outcomes={progress?.images ?? []} saved={images} />
      )}
      {inlineImages.length > 0 && (
        <div className="generated-images">
          {inlineImages.map((source, index) => (
            <img
              key={source.slice(-64)}
              className="tool-inline-image"
              src={source}
              alt={`Returned by ${call.name} (${index + 1} of ${inlineImages.length})`}
            />
          ))}
        </div>
      )}
      {counted ? (
        <CountedProgressBar name={call.name} progress={counted} />
      ) : (
        otherProgress !== undefined && <p className="tool-progress">{progressText(otherProgress)}</p>
      )}

      {result && (
        <details
          className={`tool-section tool-result${result.isError ? ' tool-result--error' : ''}`}
          open={result.isError || (!visual && isShort(result.content, SHORT_RESULT))}
        >
          <summary>
            {result.isError ? 'Result (error)' : 'Result'}
            <span className="tool-section-meta"> · {sizeOf(result.content)}</span>
          </summary>
          <pre className="tool-result-content">{result.content}</pre>
        </details>
      )}
    </article>
  )
})
