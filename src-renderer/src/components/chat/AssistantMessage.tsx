import { memo, useDeferredValue } from 'react'
import type { Usage } from '../../../../src-shared/agent'
import type { ToolCallState } from '../../../../src-shared/tool-calls'
import { type AssistantPart, callKey, type ShellChunk } from './conversation'
import { MarkdownText } from './MarkdownText'
import { ToolCallCard } from './ToolCallCard'
import { usageText } from './tokens'

interface AssistantMessageProps {
  turnId: string
  parts: AssistantPart[]
  /** The conversation's calls, by `callKey`. */
  calls: Record<string, ToolCallState>
  /** What running commands wrote, by `callKey`. */
  output: Record<string, ShellChunk[]>
  /** Whether this response's turn is still running. */
  active: boolean
  /** Still streaming: the text is parsed a beat behind the stream, so typing stays smooth. */
  live: boolean
  /** Its tokens, when the provider reported them. */
  usage?: Usage | undefined
}

function StreamingText({ text }: { text: string }) {
  const deferred = useDeferredValue(text)
  return <MarkdownText text={deferred} />
}

/** One model response: its text as Markdown and a card per tool call, in the order they came. */
export const AssistantMessage = memo(function AssistantMessage({
  turnId,
  parts,
  calls,
  output,
  active,
  live,
  usage,
}: AssistantMessageProps) {
  const lastText = parts.findLastIndex((part) => part.kind === 'text')
  return (
    <div className={`assistant-message${live ? ' assistant-message--live' : ''}`}>
      {parts.map((part, index) =>
        part.kind === 'text' ? (
          live && index === lastText ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: parts only ever grow at the end
            <StreamingText key={index} text={part.text} />
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: parts only ever grow at the end
            <MarkdownText key={index} text={part.text} />
          )
        ) : (
          <ToolCallCard
            key={part.id}
            call={part}
            state={calls[callKey(turnId, part.id)]}
            output={output[callKey(turnId, part.id)]}
            active={active}
          />
        ),
      )}
      {usage && (
        <p className="message-usage" title="Tokens of this response, as the provider counted them">
          <span className="visually-hidden">Tokens: </span>
          {usageText(usage)}
        </p>
      )}
    </div>
  )
})
