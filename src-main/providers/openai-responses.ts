/** OpenAI Responses API over the `openai` SDK: strict function tools, reasoning items replayed. */
import type {
  ResponseInputItem,
  ResponseOutputItem,
  ResponseStreamEvent,
  Tool,
} from 'openai/resources/responses/responses'
import type { ProviderStreamEvent, StopReason, WebSource } from '../../src-shared/agent'
import { lazily, loadOpenAI } from './lazily'
import { windowFromListing } from './openai-chat'
import { type ProviderError, streamEndedEarly, toProviderError } from './provider-error'
import { toolDefsToResponsesAPI } from './tool-mapper'
import {
  type ModelMessage,
  NO_KEY,
  opaqueItems,
  type ProviderAdapter,
  type ProviderConfig,
  userContent,
} from './types'

export function createOpenAIResponsesAdapter(config: ProviderConfig): ProviderAdapter {
  const client = lazily(async () => {
    const OpenAI = await loadOpenAI()
    return new OpenAI({ apiKey: config.apiKey || NO_KEY, baseURL: config.baseUrl ?? null, maxRetries: 0 })
  })
  return {
    kind: 'openai-responses',
    async *stream(request, signal) {
      const tools: Tool[] = [
        ...toolDefsToResponsesAPI(request.tools),
        ...(config.hostedSearch ? [{ type: 'web_search' as const }] : []),
      ]
      const stream = await (await client()).responses.create(
        {
          model: request.model,
          instructions: request.system,
          input: toResponsesInput(request.messages),
          ...(tools.length > 0 && { tools, parallel_tool_calls: true }),
          ...(request.maxOutputTokens && { max_output_tokens: request.maxOutputTokens }),
          stream: true,
          // Stateless: the conversation lives in Atelier's database, so reasoning comes back encrypted
          // and is sent again with the next request. A search's card lists the pages it found only
          // when they are asked for.
          store: false,
          include: [
            'reasoning.encrypted_content',
            ...(config.hostedSearch ? ['web_search_call.action.sources' as const] : []),
          ],
        },
        { signal },
      )
      yield* readResponsesStream(stream)
    },
    async listModels(signal) {
      const ids: string[] = []
      for await (const model of (await client()).models.list({ signal })) ids.push(model.id)
      return ids.sort()
    },
    async contextWindowOf(model, signal) {
      // OpenAI's own listing names no window; a compatible server's (LM Studio, OpenRouter) may.
      if (config.baseUrl === undefined) return undefined
      return windowFromListing(await client(), model, signal)
    },
  }
}

async function* readResponsesStream(
  stream: AsyncIterable<ResponseStreamEvent>,
): AsyncIterable<ProviderStreamEvent> {
  // Argument deltas name the output item; the model and our history name the call.
  const callIdByItem = new Map<string, string>()
  let calledTools = false
  for await (const event of stream) {
    switch (event.type) {
      case 'response.output_text.delta':
        yield { type: 'text_delta', text: event.delta }
        break
      case 'response.output_item.added':
        if (event.item.type === 'function_call') {
          callIdByItem.set(event.item.id ?? event.item.call_id, event.item.call_id)
          yield { type: 'tool_call_started', id: event.item.call_id, name: event.item.name }
        }
        break
      case 'response.function_call_arguments.delta': {
        const id = callIdByItem.get(event.item_id)
        if (id) yield { type: 'tool_call_arguments_delta', id, delta: event.delta }
        break
      }
      case 'response.output_item.done':
        if (event.item.type === 'function_call') {
          calledTools = true
          const { call_id, name, arguments: args } = event.item
          yield { type: 'tool_call_completed', id: call_id, name, arguments: args }
        } else if (event.item.type === 'reasoning') {
          yield { type: 'opaque', item: event.item }
        } else if (event.item.type === 'web_search_call' && event.item.action.type === 'search') {
          // Not kept as an opaque item: a stateless request cannot point back at a search it ran.
          const { query, queries, sources = [] } = event.item.action
          yield {
            type: 'web_search',
            queries: queries ?? (query ? [query] : []),
            sources: sources.map(({ url }) => ({ url })),
          }
        } else if (event.item.type === 'message') {
          const cited = citedPages(event.item)
          if (cited.length > 0) yield { type: 'citations', sources: cited }
        }
        break
      case 'response.completed':
      case 'response.incomplete': {
        const { usage, incomplete_details } = event.response
        if (usage) {
          // input_tokens counts the whole prompt, cached part included (input_tokens_details.cached_tokens).
          const cached = usage.input_tokens_details?.cached_tokens
          yield {
            type: 'usage',
            usage: {
              inputTokens: usage.input_tokens,
              outputTokens: usage.output_tokens,
              ...(typeof cached === 'number' && { cachedTokens: cached }),
            },
          }
        }
        yield { type: 'done', stopReason: stopReason(calledTools, incomplete_details?.reason) }
        return
      }
      case 'response.failed': {
        const { code, message } = event.response.error ?? {}
        throw streamError(message ?? 'The response failed.', code)
      }
      case 'error': {
        // Typed with code and message on the event; streams seen in the wild nest them in `error`.
        const nested = (event as { error?: { code?: string | null; message?: string } }).error
        throw streamError(
          event.message ?? nested?.message ?? 'The response failed.',
          event.code ?? nested?.code,
        )
      }
    }
  }
  throw streamEndedEarly('openai-responses')
}

/** The pages a message's text cites (its `url_citation` annotations). */
function citedPages(message: Extract<ResponseOutputItem, { type: 'message' }>): WebSource[] {
  return message.content.flatMap((content) =>
    content.type === 'output_text'
      ? content.annotations.flatMap((annotation) =>
          annotation.type === 'url_citation' ? [{ url: annotation.url, title: annotation.title }] : [],
        )
      : [],
  )
}

/** A failure the stream reported, read with the provider's code (`context_length_exceeded`, …). */
function streamError(message: string, code: string | null | undefined): ProviderError {
  return toProviderError('openai-responses', Object.assign(new Error(message), code ? { code } : {}))
}

function stopReason(calledTools: boolean, incomplete: string | undefined): StopReason {
  if (incomplete === 'max_output_tokens') return 'max_tokens'
  if (incomplete === 'content_filter') return 'content_filter'
  return calledTools ? 'tool_calls' : 'end_turn'
}

function toResponsesInput(messages: ModelMessage[]): ResponseInputItem[] {
  return messages.flatMap(toItems)
}

function toItems(message: ModelMessage): ResponseInputItem[] {
  switch (message.role) {
    case 'user': {
      const { text, images } = userContent(message)
      if (images.length === 0) return [{ role: 'user', content: text }]
      // The Responses API's own image input: input_image with a data: URL.
      return [
        {
          role: 'user',
          content: [
            ...images.map(({ mimeType, base64 }) => ({
              type: 'input_image' as const,
              image_url: `data:${mimeType};base64,${base64}`,
              detail: 'auto' as const,
            })),
            { type: 'input_text' as const, text },
          ],
        },
      ]
    }
    case 'tool':
      return message.results.map((result) => ({
        type: 'function_call_output',
        call_id: result.callId,
        output: result.content,
      }))
    case 'assistant':
      return message.parts.flatMap((part): ResponseInputItem[] => {
        if (part.type === 'text') return part.text ? [{ role: 'assistant', content: part.text }] : []
        if (part.type === 'tool_call') {
          return [{ type: 'function_call', call_id: part.id, name: part.name, arguments: part.arguments }]
        }
        return opaqueItems('openai-responses', [part]) as ResponseInputItem[]
      })
  }
}
