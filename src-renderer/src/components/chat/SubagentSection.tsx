import { useEffect, useState } from 'react'
import type { ChatMessage } from '../../../../src-shared/agent'
import type { ToolCallState } from '../../../../src-shared/tool-calls'
import type { ToolDisplay } from '../../../../src-shared/tools'
import type { UsageTotal } from '../../../../src-shared/usage'
import { useApi } from './api-context'
import { callKey, type ToolCallView } from './conversation'
import { MarkdownText } from './MarkdownText'
import { Modal } from './Modal'
import { useSubagent } from './subagents-context'
import { ToolActivity } from './ToolActivity'
import { usageText } from './tokens'
import { parseJson } from './tool-display'

type SubagentDisplay = Extract<ToolDisplay, { kind: 'subagent' }>

interface SubagentSectionProps {
  call: ToolCallView
  /** How the task ended, once it has. */
  display: SubagentDisplay | undefined
  /** The result's text when the task failed before or without a subagent. */
  failure: string | undefined
}

/** The task's profile and description: from its result once ended, from its arguments before. */
function taskOf(call: ToolCallView, display: SubagentDisplay | undefined) {
  if (display) return { agent: display.agent, description: display.description }
  const args = parseJson(call.arguments)
  const field = (name: string) =>
    typeof args === 'object' && args !== null && typeof (args as Record<string, unknown>)[name] === 'string'
      ? ((args as Record<string, unknown>)[name] as string)
      : ''
  return { agent: field('agent'), description: field('description') }
}

/**
 * A `task` call's subagent inside its card: the profile and what it was asked, its tool calls live
 * as a folded list of their own cards, the tokens it used, its answer, and its whole transcript.
 */
export function SubagentSection({ call, display, failure }: SubagentSectionProps) {
  const live = useSubagent(call.id)
  const [reading, setReading] = useState(false)
  const { agent, description } = taskOf(call, display)
  const chatId = display?.chatId ?? live?.chatId
  const usage: UsageTotal | undefined = display?.usage ?? live?.usage
  const calls = live?.calls ?? []
  return (
    <section className="subagent" aria-label={`Subagent ${agent}`}>
      <p className="subagent-head">
        <strong className="subagent-agent">{agent}</strong>
        <span className="subagent-description">{description}</span>
      </p>
      {calls.length > 0 && live && (
        <details className="tool-section subagent-calls">
          <summary>
            {calls.length} tool {calls.length === 1 ? 'call' : 'calls'}
            {live.running ? ' so far' : ''}
          </summary>
          <ToolActivity
            turnId={live.turnId ?? ''}
            calls={calls}
            states={live.states}
            output={live.output}
            active={live.running}
          />
        </details>
      )}
      {usage && (usage.inputTokens > 0 || usage.outputTokens > 0) && (
        <p className="subagent-usage">
          <span className="visually-hidden">Tokens: </span>
          {usageText(usage)}
        </p>
      )}
      {display?.answer && (
        <section className="subagent-answer" aria-label={`Answer of ${agent}`}>
          <MarkdownText text={display.answer} />
        </section>
      )}
      {failure && <p className="subagent-failure">{failure}</p>}
      {chatId && (
        <button type="button" className="subagent-open" onClick={() => setReading(true)}>
          Open transcript
        </button>
      )}
      {reading && chatId && (
        <SubagentTranscript
          chatId={chatId}
          title={`${agent}: ${description}`}
          onClose={() => setReading(false)}
        />
      )}
    </section>
  )
}

/** The subagent's whole conversation, read-only: its prompt, its responses and their calls. */
function SubagentTranscript({ chatId, title, onClose }: { chatId: string; title: string; onClose(): void }) {
  const api = useApi()
  const [loaded, setLoaded] = useState<{ messages: ChatMessage[]; calls: Record<string, ToolCallState> }>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    let current = true
    api.chats.messages({ id: chatId }).then(
      ({ messages, calls }) => {
        if (!current) return
        setLoaded({
          messages,
          calls: Object.fromEntries(calls.map((state) => [callKey(state.turnId, state.id), state])),
        })
      },
      (failure: unknown) => current && setError(failure instanceof Error ? failure.message : String(failure)),
    )
    return () => {
      current = false
    }
  }, [api, chatId])
  return (
    <Modal
      title={title}
      description="The subagent's whole conversation."
      onClose={onClose}
      className="subagent-dialog"
    >
      {error && <p className="inline-error">The transcript could not be loaded: {error}</p>}
      {!loaded && !error && <p>Loading…</p>}
      {loaded?.messages.map((message) => (
        <TranscriptMessage key={message.id} message={message} calls={loaded.calls} />
      ))}
    </Modal>
  )
}

function TranscriptMessage({
  message,
  calls,
}: {
  message: ChatMessage
  calls: Record<string, ToolCallState>
}) {
  const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n\n')
  const toolCalls = message.parts.flatMap((part): ToolCallView[] =>
    part.type === 'tool_call'
      ? [{ id: part.id, name: part.name, arguments: part.arguments, complete: true }]
      : [],
  )
  return (
    <article className={`subagent-message subagent-message--${message.role}`}>
      <h3 className="subagent-message-role">{message.role === 'user' ? 'Task' : 'Subagent'}</h3>
      {text && <MarkdownText text={text} />}
      {toolCalls.length > 0 && (
        <ToolActivity turnId={message.turnId} calls={toolCalls} states={calls} output={{}} active={false} />
      )}
    </article>
  )
}
