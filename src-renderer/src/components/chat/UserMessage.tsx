import { memo } from 'react'
import type { ChatMessage } from '../../../../src-shared/agent'
import { AttachmentChips } from './AttachmentChips'
import { ChatIcon } from './ChatIcon'
import { useCheckpointsContext } from './checkpoints-context'
import { promptText } from './prompt-history'

/**
 * The person's prompt: a right-aligned bubble, as typed (never parsed as Markdown), under what it
 * attached; below it, Rewind to here (the folder, the conversation or both, back to before it).
 */
export const UserMessage = memo(function UserMessage({ message }: { message: ChatMessage }) {
  const { running, rewind } = useCheckpointsContext()
  const text = promptText(message)
  const attached = message.parts.flatMap((part) => (part.type === 'attachment' ? [part.attachment] : []))
  return (
    <div className="user-message">
      <div className="user-bubble">
        <span className="visually-hidden">You said: </span>
        {attached.length > 0 && <AttachmentChips attachments={attached} label="Attached to this message" />}
        {text}
      </div>
      <div className="user-message-actions">
        <button
          type="button"
          className="user-message-action"
          disabled={running}
          title={
            running
              ? 'Wait for the turn to end'
              : 'Go back to before this prompt: files, conversation, or both'
          }
          onClick={() => rewind(message.turnId)}
        >
          <ChatIcon name="retry" size={12} />
          Rewind to here
        </button>
      </div>
    </div>
  )
})
