import type { HookDecision, HookRun } from '../../../../src-shared/hooks'
import { formatDuration } from './tool-display'

/** What each decision reads as on a card. */
const DECISION_WORDS: Record<HookDecision, string> = {
  none: 'ran',
  allow: 'allowed',
  ask: 'asked you',
  block: 'blocked',
  stop: 'stopped the turn',
  error: 'failed (did not block)',
}

/**
 * The person's hooks that ran on a call: which, what each decided and why, its output folded. A
 * hook that blocked says so first, for that is why the call did not run.
 */
export function HookRuns({
  name,
  runs,
  title = 'Hooks',
}: {
  name: string
  runs: readonly HookRun[]
  /** The heading over the runs; none where the place already names them (Settings' last runs). */
  title?: string
}) {
  return (
    <section className="tool-section hook-runs" aria-label={`Hooks of ${name}`}>
      {title && <h4 className="hook-runs-title">{title}</h4>}
      <ul>
        {runs.map((run) => (
          <li key={`${run.at} ${run.event} ${run.command}`} className={`hook-run hook-run--${run.decision}`}>
            <p className="hook-run-line">
              <span className="hook-run-event">{run.event}</span> <code>{run.command}</code>{' '}
              <span className="hook-run-decision">{DECISION_WORDS[run.decision]}</span>
              <span className="tool-section-meta"> · {formatDuration(run.durationMs)}</span>
            </p>
            {run.reason && <p className="hook-run-reason">{run.reason}</p>}
            {run.output && (
              <details className="hook-run-output">
                <summary>Output</summary>
                <pre>{run.output}</pre>
              </details>
            )}
          </li>
        ))}
      </ul>
    </section>
  )
}
