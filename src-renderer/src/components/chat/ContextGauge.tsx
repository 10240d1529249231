import { useId } from 'react'
import type { ContextStatus } from '../../../../src-shared/agent'
import { fullTokens, gaugeLevel, shortTokens, usedPercent, WINDOW_SOURCES } from './tokens'

/**
 * How full the model's context is: what the next request carries against the window, a bar with a
 * tick at the compaction threshold, its colour warming as the threshold nears.
 */
export function ContextGauge({ context }: { context: ContextStatus | null }) {
  const id = useId()
  if (!context) return null
  const { usedTokens, windowTokens, windowSource, thresholdPercent } = context
  const percent = usedPercent(context)
  const level = gaugeLevel(context)
  const shown = `${shortTokens(usedTokens)} / ${shortTokens(windowTokens)} tokens`
  const title = [
    `${fullTokens(usedTokens)} of ${fullTokens(windowTokens)} tokens (${Math.round(percent)}%)`,
    `Context window ${WINDOW_SOURCES[windowSource]}`,
    `Compacts automatically past ${thresholdPercent}%`,
  ].join('\n')
  return (
    <div className={`context-gauge context-gauge--${level}`} title={title}>
      {/* biome-ignore lint/a11y/useSemanticElements: a drawn bar, for the threshold's tick and both themes' colours */}
      <div
        className="context-gauge-bar"
        role="meter"
        aria-label="Context used"
        aria-valuemin={0}
        aria-valuemax={windowTokens}
        aria-valuenow={Math.min(usedTokens, windowTokens)}
        aria-valuetext={`${shown}, ${Math.round(percent)}%; compacts past ${thresholdPercent}%`}
        aria-describedby={`${id}-source`}
      >
        <span className="context-gauge-fill" style={{ width: `${Math.min(100, percent)}%` }} />
        <span className="context-gauge-threshold" style={{ left: `${thresholdPercent}%` }} />
      </div>
      <span className="context-gauge-text" aria-hidden="true">
        {shown}
      </span>
      <span id={`${id}-source`} className="visually-hidden">
        Context window {WINDOW_SOURCES[windowSource]}.
      </span>
    </div>
  )
}
