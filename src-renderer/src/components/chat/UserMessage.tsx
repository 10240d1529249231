import { memo, useState } from 'react'
import type { ChatMessage } from '../../../../src-shared/agent'
import { AttachmentChips } from './AttachmentChips'
import { CopyButton } from './CopyButton'
import { useCheckpointsContext } from './checkpoints-context'
import { focusableMessage, MessageAction, MessageActions } from './MessageActions'
import { useMessageActionsContext } from './message-actions-context'
import { PromptEditor } from './PromptEditor'
import { promptText } from './prompt-history'

/** Said on the actions that change the chat while a turn runs. */
const WAIT = 'Wait for the turn to end'

/**
 * The person's prompt: a right-aligned bubble, as typed (never parsed as Markdown), under what it
 * attached. It takes focus; its actions: copy it, edit and resend it (the earlier version kept in a
 * new chat), fork the chat from here, and rewind to before it (the folder, the conversation or both).
 */
export const UserMessage = memo(function UserMessage({ message }: { message: ChatMessage }) {
  const { running, rewind } = useCheckpointsContext()
  const actions = useMessageActionsContext()
  const [editing, setEditing] = useState(false)
  const text = promptText(message)
  const attached = message.parts.flatMap((part) => (part.type === 'attachment' ? [part.attachment] : []))
  if (editing) {
    return (
      <div className="user-message">
        <PromptEditor
          initial={text}
          onSend={(prompt) => actions.edit(message.turnId, prompt)}
          onCancel={() => setEditing(false)}
        />
      </div>
    )
  }
  return (
    <div className="user-message message" {...focusableMessage('Your prompt')}>
      <div className="user-bubble">
        <span className="visually-hidden">You said: </span>
        {attached.length > 0 && <AttachmentChips attachments={attached} label="Attached to this message" />}
        {text}
      </div>
      <MessageActions label="Prompt actions">
        <CopyButton text={() => text} label="Copy prompt" />
        <MessageAction
          icon="edit"
          label="Edit"
          title={
            running ? WAIT : 'Edit this prompt and send it again; the earlier version is kept in a new chat'
          }
          disabled={running}
          onClick={() => setEditing(true)}
        />
        <MessageAction
          icon="fork"
          label="Fork from here"
          title="A new chat with the conversation up to here"
          disabled={running}
          onClick={() => actions.fork(message.turnId)}
        />
        {actions.filesChangedAfter(message.turnId) && (
          <MessageAction
            icon="fork"
            label="Fork with files"
            title="A new chat with the conversation up to here, and the folder's files set back to how they were then"
            disabled={running}
            onClick={() => actions.fork(message.turnId, true)}
          />
        )}
        <MessageAction
          icon="retry"
          label="Rewind to here"
          title={running ? WAIT : 'Go back to before this prompt: files, conversation, or both'}
          disabled={running}
          onClick={() => rewind(message.turnId)}
        />
      </MessageActions>
    </div>
  )
})
