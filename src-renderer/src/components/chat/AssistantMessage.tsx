import { memo, useDeferredValue } from 'react'
import type { AssistantPart, ToolCallProgress, ToolResultView } from './conversation'
import { MarkdownText } from './MarkdownText'
import { ToolCallCard } from './ToolCallCard'

interface AssistantMessageProps {
  parts: AssistantPart[]
  results: Map<string, ToolResultView>
  progress: Record<string, ToolCallProgress>
  /** Whether this response's turn is still running. */
  active: boolean
  /** Still streaming: the text is parsed a beat behind the stream, so typing stays smooth. */
  live: boolean
}

function StreamingText({ text }: { text: string }) {
  const deferred = useDeferredValue(text)
  return <MarkdownText text={deferred} />
}

/** One model response: its text as Markdown and a card per tool call, in the order they came. */
export const AssistantMessage = memo(function AssistantMessage({
  parts,
  results,
  progress,
  active,
  live,
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
            result={results.get(part.id)}
            progress={progress[part.id]}
            active={active}
          />
        ),
      )}
    </div>
  )
})
