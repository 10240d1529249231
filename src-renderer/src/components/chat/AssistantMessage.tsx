import { Fragment, memo, useDeferredValue } from 'react'
import type { Usage } from '../../../../src-shared/agent'
import { ApprovalCard } from './ApprovalCard'
import { useApprovals } from './approvals-context'
import type { AssistantPart, ToolCallProgress, ToolResultView } from './conversation'
import { ElicitationCard } from './ElicitationCard'
import { MarkdownText } from './MarkdownText'
import { ToolCallCard } from './ToolCallCard'
import { usageText } from './tokens'

interface AssistantMessageProps {
  parts: AssistantPart[]
  results: Map<string, ToolResultView>
  progress: Record<string, ToolCallProgress>
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

/**
 * One model response: its text as Markdown and a card per tool call, in the order they came, each
 * followed by the approval it waits (or waited) for and the questions its MCP server asked.
 */
export const AssistantMessage = memo(function AssistantMessage({
  parts,
  results,
  progress,
  active,
  live,
  usage,
}: AssistantMessageProps) {
  const { byCall, questionsByCall } = useApprovals()
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
          <Fragment key={part.id}>
            <ToolCallCard
              call={part}
              result={results.get(part.id)}
              progress={progress[part.id]}
              active={active}
              waiting={byCall.get(part.id)?.some((card) => card.outcome === undefined) ?? false}
            />
            {byCall.get(part.id)?.map((card) => (
              <ApprovalCard key={card.request.id} card={card} />
            ))}
            {questionsByCall.get(part.id)?.map((card) => (
              <ElicitationCard key={card.request.id} card={card} />
            ))}
          </Fragment>
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
