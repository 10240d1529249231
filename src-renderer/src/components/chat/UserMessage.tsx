import { memo } from 'react'
import type { ChatMessage } from '../../../../src-shared/agent'

/** The person's prompt: a right-aligned bubble, as typed (never parsed as Markdown). */
export const UserMessage = memo(function UserMessage({ message }: { message: ChatMessage }) {
  const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
  return (
    <div className="user-message">
      <div className="user-bubble">
        <span className="visually-hidden">You said: </span>
        {text}
      </div>
    </div>
  )
})
