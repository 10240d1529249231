import { useEffect, useState } from 'react'
import type { Compaction } from '../../../../src-shared/agent'
import { errorMessage } from '../../errors'
import { ChatIcon } from './ChatIcon'
import { shortTokens } from './tokens'

interface CompactButtonProps {
  /** A turn runs: compacting waits for it. */
  running: boolean
  onCompact(): Promise<Compaction | null>
  onError(message: string): void
}

/** What "Compact now" (the button or `/compact`) did, in one line. */
export function compactionOutcome(compaction: Compaction | null): string {
  return compaction
    ? `Compacted · ${shortTokens(compaction.tokensBefore)} → ${shortTokens(compaction.tokensAfter)} tokens`
    : 'Nothing to compact yet'
}

/** How long the one-line outcome stays beside the button. */
const OUTCOME_MS = 8000

/**
 * "Compact now": everything before the latest prompt summarized by the chat's model, then a short
 * outcome beside the button; a failure goes to the pane's notice.
 */
export function CompactButton({ running, onCompact, onError }: CompactButtonProps) {
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<string>()

  useEffect(() => {
    if (!outcome) return
    const timer = setTimeout(() => setOutcome(undefined), OUTCOME_MS)
    return () => clearTimeout(timer)
  }, [outcome])

  const compact = async () => {
    setBusy(true)
    setOutcome(undefined)
    try {
      const compaction = await onCompact()
      setOutcome(compactionOutcome(compaction))
    } catch (failure) {
      onError(`Compacting failed: ${errorMessage(failure)}`)
    } finally {
      setBusy(false)
    }
  }

  return (
    <>
      <span className="compact-outcome" role="status">
        {busy ? 'Compacting context…' : outcome}
      </span>
      <button
        type="button"
        className="head-button"
        disabled={running || busy}
        aria-busy={busy || undefined}
        title={
          running
            ? 'Wait for the turn to finish, or stop it'
            : 'Summarize everything before the latest prompt, so later requests carry less'
        }
        onClick={() => void compact()}
      >
        <ChatIcon name="compress" size={14} />
        <span className="head-button-label">Compact now</span>
      </button>
    </>
  )
}
