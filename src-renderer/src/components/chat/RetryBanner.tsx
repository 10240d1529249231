import { ChatIcon } from './ChatIcon'
import type { RetryNotice } from './conversation'

/** A provider hiccup being retried: transient, it goes once the stream resumes. */
export function RetryBanner({ notice }: { notice: RetryNotice | null }) {
  return (
    <div className="retry-banner-slot" role="status">
      {notice && (
        <p className="retry-banner">
          <ChatIcon name="retry" size={14} />
          <span>
            The provider did not answer ({notice.message}). Trying again in{' '}
            {Math.max(1, Math.round(notice.delayMs / 1000))} s — attempt {notice.attempt + 1}.
          </span>
        </p>
      )}
    </div>
  )
}
