import { memo } from 'react'
import type { ChatMessage } from '../../../../src-shared/agent'
import { AttachmentChips } from './AttachmentChips'

/** The person's prompt: a right-aligned bubble, as typed (never parsed as Markdown), under what it attached. */
export const UserMessage = memo(function UserMessage({ message }: { message: ChatMessage }) {
  const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
  const attached = message.parts.flatMap((part) => (part.type === 'attachment' ? [part.attachment] : []))
  return (
    <div className="user-message">
      <div className="user-bubble">
        <span className="visually-hidden">You said: </span>
        {attached.length > 0 && <AttachmentChips attachments={attached} label="Attached to this message" />}
        {text}
      </div>
    </div>
  )
})
