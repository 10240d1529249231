/**
 * MCP sampling on Atelier's side of the wire: a server's `sampling/createMessage` as the question the
 * person sees, and the chat model's completion as the result the server reads. Text only — Atelier
 * declares neither tool use nor context inclusion — so a request with images, audio or tool content
 * is refused as invalid before anyone is asked; the server's model preferences, temperature and
 * stop sequences are hints the client may ignore, and are.
 */
import {
  type CreateMessageRequest,
  type CreateMessageResult,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js'
import type { SamplingMessage, SamplingQuestion } from '../../../src-shared/sampling'
import type { SampledCompletion } from '../types'

type SamplingParams = CreateMessageRequest['params']
type ContentBlock = SamplingParams['messages'][number]['content']

/** The request as the person is asked about it; throws `InvalidParams` for content other than text. */
export function samplingQuestion(server: string, params: SamplingParams): SamplingQuestion {
  const messages = params.messages.map(
    (message): SamplingMessage => ({ role: message.role, text: textOf(message.content) }),
  )
  if (messages.length === 0) throw new McpError(ErrorCode.InvalidParams, 'The request has no messages.')
  return { server, messages, systemPrompt: params.systemPrompt ?? '', maxTokens: params.maxTokens }
}

function textOf(content: ContentBlock): string {
  const blocks = Array.isArray(content) ? content : [content]
  return blocks
    .map((block) => {
      if (block.type !== 'text') {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Atelier samples text only; the request holds ${block.type} content.`,
        )
      }
      return block.text
    })
    .join('\n')
}

/** The completion as the server reads it. */
export function samplingResult(completion: SampledCompletion): CreateMessageResult {
  const stopReason = {
    end_turn: 'endTurn',
    max_tokens: 'maxTokens',
    tool_calls: 'endTurn',
    content_filter: 'contentFilter',
    other: 'endTurn',
  }[completion.stopReason]
  return {
    role: 'assistant',
    content: { type: 'text', text: completion.text },
    model: completion.model,
    stopReason,
  }
}
