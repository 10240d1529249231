import { memo, useState } from 'react'
import type { Compaction } from '../../../../src-shared/agent'
import { ChatIcon } from './ChatIcon'
import { MarkdownText } from './MarkdownText'
import { Modal } from './Modal'
import { shortTokens } from './tokens'

const REASONS: Record<Compaction['reason'], string> = {
  threshold: 'the context passed its threshold',
  overflow: 'the provider refused the request as too long',
  manual: 'you asked for it',
}

/**
 * Where the context was compacted: from here on the model sees a summary of what came before (or
 * older tool outputs as one-line stubs); the conversation above stays as it was, for the person.
 */
export const CompactionMarker = memo(function CompactionMarker({ compaction }: { compaction: Compaction }) {
  const [open, setOpen] = useState(false)
  const { summary, tokensBefore, tokensAfter, reason } = compaction
  const what = summary
    ? 'Summarized earlier messages: the model now reads the summary instead of them.'
    : 'Older tool outputs elided: the model now reads one-line stubs instead of them.'
  return (
    <div className="compaction-marker" role="note" aria-label="Context compacted">
      <span className="compaction-marker-rule" aria-hidden="true" />
      <div className="compaction-marker-body">
        <p className="compaction-marker-title">
          <ChatIcon name="compress" size={13} />
          Context compacted · {shortTokens(tokensBefore)} → {shortTokens(tokensAfter)} tokens
        </p>
        <p className="compaction-marker-text">
          {what} <span className="muted">(Because {REASONS[reason]}.)</span>
        </p>
        {summary && (
          <button type="button" className="compaction-marker-show" onClick={() => setOpen(true)}>
            Show summary
          </button>
        )}
      </div>
      <span className="compaction-marker-rule" aria-hidden="true" />
      {open && summary && (
        <Modal
          title="Summary of earlier messages"
          description="What the model reads in place of the conversation before this point."
          className="summary-dialog"
          onClose={() => setOpen(false)}
        >
          <MarkdownText text={summary} />
        </Modal>
      )}
    </div>
  )
})
