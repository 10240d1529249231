import type { ErrorCode } from '../../../../src-shared/errors'
import { providerWords } from '../../../../src-shared/providers'
import { ChatIcon } from './ChatIcon'
import { ErrorActions } from './ErrorActions'

interface TurnNoticeProps {
  kind: 'failed' | 'interrupted' | 'stopped' | 'refused'
  message: string | null
  code?: ErrorCode | undefined
  /** The latest failure speaks up (an alert) and offers Retry; older ones stay quiet. */
  latest: boolean
  onRetry?: (() => void) | undefined
}

const TITLES: Record<TurnNoticeProps['kind'], string> = {
  failed: 'This turn failed',
  interrupted: 'This turn was interrupted',
  stopped: 'Stopped',
  refused: 'The prompt was not sent',
}

/** How a turn ended when it did not simply complete: a failure with Retry, or a quiet "Stopped". */
export function TurnNotice({ kind, message, code, latest, onRetry }: TurnNoticeProps) {
  // A provider's failure says why in its own words on the first line; the advice and details follow.
  const reason = message && code?.startsWith('provider_') ? providerWords(message) : undefined
  if (kind === 'stopped') {
    return (
      <p className="turn-stopped">
        <ChatIcon name="stop" size={12} /> {message ? `Stopped: ${message}` : 'Stopped by you'}
      </p>
    )
  }
  return (
    <div className="turn-alert" role={latest ? 'alert' : 'note'}>
      <span className="turn-alert-icon">
        <ChatIcon name="alert" size={18} />
      </span>
      <div className="turn-alert-text">
        <p className="turn-alert-title">
          {TITLES[kind]}
          {reason && `: ${reason}`}
        </p>
        <ErrorActions code={code} message={message} />
      </div>
      {onRetry && (
        <button type="button" className="turn-alert-retry" onClick={onRetry}>
          <ChatIcon name="retry" size={14} />
          Retry
        </button>
      )}
    </div>
  )
}
