import type { Chat } from '../../../../src-shared/contract'
import { ChatIcon } from './ChatIcon'
import '../../message-actions.css'

/** What a message action did to the chat: where the replaced turns are kept, or why it was refused. */
export type BranchOutcome =
  | { kind: 'kept'; what: 'version' | 'answer'; fork: Chat }
  /** A fork with its files, where some files could not be set back (changed since, or too large). */
  | { kind: 'forked'; fork: Chat; unrestored: string[] }
  | { kind: 'failed'; message: string }

interface BranchNoticeProps {
  outcome: BranchOutcome
  /** Opens the chat the earlier turns were kept in; absent where chats cannot be switched. */
  onOpenChat: ((chatId: string) => void) | undefined
  onDismiss(): void
}

/** "Earlier version kept in <chat>", with the way there; or why an action was refused. */
export function BranchNotice({ outcome, onOpenChat, onDismiss }: BranchNoticeProps) {
  const failed = outcome.kind === 'failed'
  return (
    <div
      className={`rewind-notice${failed ? ' branch-notice--failed' : ''}`}
      role={failed ? 'alert' : 'status'}
    >
      <ChatIcon name={failed ? 'alert' : 'fork'} size={14} />
      <p>{noticeText(outcome)}</p>
      {!failed && onOpenChat && (
        <button type="button" className="head-button" onClick={() => onOpenChat(outcome.fork.id)}>
          {outcome.kind === 'forked' ? 'Open fork' : `Open earlier ${outcome.what}`}
        </button>
      )}
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={onDismiss}>
        <ChatIcon name="close" size={14} />
      </button>
    </div>
  )
}

function noticeText(outcome: BranchOutcome): string {
  switch (outcome.kind) {
    case 'failed':
      return outcome.message
    case 'kept':
      return `Earlier ${outcome.what} kept in “${outcome.fork.title}”.`
    case 'forked':
      return `Forked as “${outcome.fork.title}”; not set back, as you have them: ${outcome.unrestored.join(', ')}.`
  }
}
