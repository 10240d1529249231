import { memo, useDeferredValue } from 'react'
import type { Usage } from '../../../../src-shared/agent'
import type { ToolCallState } from '../../../../src-shared/tool-calls'
import { type AssistantPart, responsePieces, type ShellChunk } from './conversation'
import { MarkdownText } from './MarkdownText'
import { ToolActivity } from './ToolActivity'
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

/** One model response: its text as Markdown and its tool calls (those made together under one line), in the order they came. */
export const AssistantMessage = memo(function AssistantMessage({
  turnId,
  parts,
  calls,
  output,
  active,
  live,
  usage,
}: AssistantMessageProps) {
  const pieces = responsePieces(parts)
  const lastText = pieces.findLastIndex((piece) => piece.kind === 'text')
  return (
    <div className={`assistant-message${live ? ' assistant-message--live' : ''}`}>
      {pieces.map((piece, index) =>
        piece.kind === 'text' ? (
          live && index === lastText ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: pieces only ever grow at the end
            <StreamingText key={index} text={piece.text} />
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: pieces only ever grow at the end
            <MarkdownText key={index} text={piece.text} />
          )
        ) : (
          <ToolActivity
            key={piece.calls[0]?.id}
            turnId={turnId}
            calls={piece.calls}
            states={calls}
            output={output}
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
