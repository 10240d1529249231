import type { RestoreOutcome, RestoreScope } from '../../../../src-shared/checkpoints'
import { ChatIcon } from './ChatIcon'
import { outcomeSentences } from './checkpoint-words'

interface RewindNoticeProps {
  outcome: RestoreOutcome
  scope: RestoreScope
  /** Opens the chat the later turns were moved to; absent where chats cannot be switched. */
  onOpenChat: ((chatId: string) => void) | undefined
  onDismiss(): void
}

/** What a rewind did: the files it set back, and where the later turns went (with the way there). */
export function RewindNotice({ outcome, scope, onOpenChat, onDismiss }: RewindNoticeProps) {
  const fork = outcome.forkChatId
  return (
    <div className="rewind-notice" role="status">
      <ChatIcon name="retry" size={14} />
      <p>
        Rewound. {scope !== 'conversation' && `${outcomeSentences(outcome).join(' ')} `}
        {fork && 'The later turns are in a new chat.'}
      </p>
      {fork && onOpenChat && (
        <button type="button" className="head-button" onClick={() => onOpenChat(fork)}>
          Open fork chat
        </button>
      )}
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={onDismiss}>
        <ChatIcon name="close" size={14} />
      </button>
    </div>
  )
}
