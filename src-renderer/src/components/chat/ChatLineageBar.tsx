import { Fragment } from 'react'
import type { Chat } from '../../../../src-shared/contract'
import { ChatIcon } from './ChatIcon'

/** Where a chat comes from and what came of it: the chat it was forked from, and its own forks. */
export interface ChatLineage {
  /** The chat it was forked from; null when that chat was deleted since; undefined for no fork. */
  source: Chat | null | undefined
  forks: Chat[]
}

/**
 * A fork's link back to the chat it was forked from, and a chat's links to its forks, under the
 * header: both ways, so a person can go back and forth between the versions of a conversation.
 */
export function ChatLineageBar({
  lineage,
  onOpenChat,
}: {
  lineage: ChatLineage
  onOpenChat: ((chatId: string) => void) | undefined
}) {
  const { source, forks } = lineage
  if (source === undefined && forks.length === 0) return null
  const link = (chat: Chat) => (
    <button type="button" className="link-button" onClick={() => onOpenChat?.(chat.id)}>
      {chat.title}
    </button>
  )
  return (
    <nav className="chat-lineage" aria-label="Forks">
      <ChatIcon name="fork" size={13} />
      {source !== undefined && (
        <span>Forked from {source === null ? <em>a chat deleted since</em> : link(source)}</span>
      )}
      {forks.length > 0 && (
        <span>
          {forks.length === 1 ? 'Fork: ' : 'Forks: '}
          {forks.map((fork, index) => (
            <Fragment key={fork.id}>
              {index > 0 && ', '}
              {link(fork)}
            </Fragment>
          ))}
        </span>
      )}
    </nav>
  )
}
