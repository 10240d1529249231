import { type FormEvent, useId, useRef, useState } from 'react'
import type { SamplingMessage, SamplingRequest } from '../../../../src-shared/sampling'
import { useReply } from './ApprovalCard'
import { ServerQuestionActions, ServerQuestionForm } from './ServerQuestionForm'

/**
 * An MCP server's sampling request during a call: the messages it wants the chat's model to
 * complete, its system prompt and the most tokens it may use — each editable — and Approve /
 * Decline. Only what is approved, as it stands here, reaches the model.
 */
export function SamplingQuestion({ question: request }: { question: SamplingRequest }) {
  const id = useId()
  const form = useRef<HTMLFormElement>(null)
  const [messages, setMessages] = useState<SamplingMessage[]>(request.messages)
  const [systemPrompt, setSystemPrompt] = useState(request.systemPrompt)
  const [maxTokens, setMaxTokens] = useState(String(request.maxTokens))
  const [problem, setProblem] = useState<string>()
  const { reply, disabled, error } = useReply({ question: request, group: form })

  const approve = (event: FormEvent) => {
    event.preventDefault()
    const tokens = Number(maxTokens.trim())
    if (!Number.isInteger(tokens) || tokens < 1) {
      setProblem('Max tokens must be a whole number above 0.')
      form.current?.querySelector<HTMLElement>(`#${CSS.escape(`${id}-max`)}`)?.focus()
      return
    }
    void reply({ action: 'approve', messages, systemPrompt, maxTokens: tokens })
  }

  return (
    <ServerQuestionForm
      form={form}
      question={request}
      label={`Sampling request from ${request.server}`}
      describedBy={`${id}-what`}
      asks="asks the model"
      focus='button[type="submit"]'
      onSubmit={approve}
      onEscape={() => void reply({ action: 'decline' })}
    >
      <div className="approval-body">
        <p className="elicitation-message" id={`${id}-what`}>
          The server wants a completion from this chat’s model. Check what it sends (you may change it): only
          what you approve is sent, and its tokens count in this chat.
        </p>
        {messages.map((message, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the messages are a fixed list, edited in place
          <div className="elicitation-field" key={index}>
            <label htmlFor={`${id}-message-${index}`}>
              {message.role === 'user' ? 'User' : 'Assistant'} message
              {messages.length > 1 ? ` ${index + 1}` : ''}
            </label>
            <textarea
              id={`${id}-message-${index}`}
              rows={Math.min(8, message.text.split('\n').length + 1)}
              disabled={disabled}
              value={message.text}
              onChange={(event) =>
                setMessages((current) =>
                  current.map((each, at) => (at === index ? { ...each, text: event.target.value } : each)),
                )
              }
            />
          </div>
        ))}
        <div className="elicitation-field">
          <label htmlFor={`${id}-system`}>System prompt</label>
          <textarea
            id={`${id}-system`}
            rows={Math.min(6, systemPrompt.split('\n').length + 1)}
            disabled={disabled}
            value={systemPrompt}
            placeholder="(none)"
            onChange={(event) => setSystemPrompt(event.target.value)}
          />
        </div>
        <div className="elicitation-field">
          <label htmlFor={`${id}-max`}>Max tokens</label>
          <input
            id={`${id}-max`}
            type="number"
            min={1}
            step={1}
            disabled={disabled}
            value={maxTokens}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-problem` : undefined}
            onChange={(event) => {
              setMaxTokens(event.target.value)
              setProblem(undefined)
            }}
          />
          {problem && (
            <span className="elicitation-problem" id={`${id}-problem`}>
              {problem}
            </span>
          )}
        </div>
      </div>
      <ServerQuestionActions
        submit="Approve"
        error={error}
        disabled={disabled}
        onDecline={() => void reply({ action: 'decline' })}
      />
      <p className="approval-keys">
        <kbd>Enter</kbd> on Approve sends it · <kbd>Esc</kbd> declines
      </p>
    </ServerQuestionForm>
  )
}
