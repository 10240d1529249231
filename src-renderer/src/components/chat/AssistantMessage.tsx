import { memo, useDeferredValue } from 'react'
import type { ToolCallState } from '../../../../src-shared/tool-calls'
import type { Usage, UsageTotal } from '../../../../src-shared/usage'
import { CopyButton } from './CopyButton'
import { type AssistantPart, responsePieces, type ShellChunk } from './conversation'
import { MarkdownText } from './MarkdownText'
import { focusableMessage, MessageAction, MessageActions } from './MessageActions'
import { useMessageActionsContext } from './message-actions-context'
import { ToolActivity } from './ToolActivity'
import { usageText } from './tokens'
import { Citations, WebSearchCard } from './WebSearchCard'

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
  /** What the subagents of its `task` calls used, in all (not in the context: their own). */
  subagentUsage?: UsageTotal | undefined
  /** What its whole turn used, on the turn's last response (when the turn had more than it). */
  turnUsage?: UsageTotal | undefined
}

function StreamingText({ text }: { text: string }) {
  const deferred = useDeferredValue(text)
  return <MarkdownText text={deferred} />
}

/** A response's text as the Markdown it was written in, its tool calls left out. */
function markdownOf(parts: readonly AssistantPart[]): string {
  return parts.flatMap((part) => (part.kind === 'text' ? [part.text.trim()] : [])).join('\n\n')
}

/**
 * One model response: its text as Markdown and its tool calls (those made together under one line),
 * in the order they came. Once it has ended it takes focus; its actions (copy as Markdown, regenerate
 * the latest, fork from here) and its tokens show while it is pointed at or the keyboard is in it.
 */
export const AssistantMessage = memo(function AssistantMessage({
  turnId,
  parts,
  calls,
  output,
  active,
  live,
  usage,
  subagentUsage,
  turnUsage,
}: AssistantMessageProps) {
  const actions = useMessageActionsContext()
  const pieces = responsePieces(parts)
  const lastText = pieces.findLastIndex((piece) => piece.kind === 'text')
  const body = pieces.map((piece, index) => {
    switch (piece.kind) {
      case 'text':
        return live && index === lastText ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: pieces only ever grow at the end
          <StreamingText key={index} text={piece.text} />
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: pieces only ever grow at the end
          <MarkdownText key={index} text={piece.text} />
        )
      case 'web_search':
        // biome-ignore lint/suspicious/noArrayIndexKey: pieces only ever grow at the end
        return <WebSearchCard key={index} search={piece} cardKey={`${turnId}:search:${index}`} />
      case 'citations':
        // biome-ignore lint/suspicious/noArrayIndexKey: pieces only ever grow at the end
        return <Citations key={index} citations={piece} />
      default:
        return (
          <ToolActivity
            key={piece.calls[0]?.id}
            turnId={turnId}
            calls={piece.calls}
            states={calls}
            output={output}
            active={active}
          />
        )
    }
  })
  if (live) return <div className="assistant-message assistant-message--live">{body}</div>
  return (
    <div className="assistant-message message" {...focusableMessage('Answer')}>
      {body}
      <MessageActions label="Answer actions">
        {lastText >= 0 && <CopyButton text={() => markdownOf(parts)} label="Copy answer" />}
        {actions.lastResponse === parts && (
          <MessageAction
            icon="retry"
            label="Regenerate"
            title={
              actions.running
                ? 'Wait for the turn to end'
                : 'Answer this prompt again; the earlier answer is kept in a new chat'
            }
            disabled={actions.running}
            onClick={() => actions.regenerate(turnId)}
          />
        )}
        <MessageAction
          icon="fork"
          label="Fork from here"
          title="A new chat with the conversation up to here"
          disabled={active}
          onClick={() => actions.fork(turnId)}
        />
        {actions.filesChangedAfter(turnId) && (
          <MessageAction
            icon="fork"
            label="Fork with files"
            title="A new chat with the conversation up to here, and the folder's files set back to how they were then"
            disabled={active}
            onClick={() => actions.fork(turnId, true)}
          />
        )}
        {usage && (
          <span
            className="message-usage"
            title="Tokens of this response, as the provider counted them, and its cost where the model has a price"
          >
            <span className="visually-hidden">Tokens: </span>
            {usageText(usage)}
          </span>
        )}
        {subagentUsage && (
          <span className="message-usage" title="Tokens its subagents used, in their own contexts">
            subagents: {usageText(subagentUsage)}
          </span>
        )}
        {turnUsage && (
          <span
            className="message-usage"
            title="What the whole turn used: every response, its subagents’ included"
          >
            turn: {usageText(turnUsage)}
          </span>
        )}
      </MessageActions>
    </div>
  )
})
