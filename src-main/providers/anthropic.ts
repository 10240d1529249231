/** Anthropic Messages over `@anthropic-ai/sdk`: tool_use blocks, thinking blocks replayed with signatures. */
import type Anthropic from '@anthropic-ai/sdk'
import type {
  ContentBlockParam,
  MessageParam,
  RawMessageStreamEvent,
} from '@anthropic-ai/sdk/resources/messages/messages'
import type { ProviderStreamEvent, StopReason } from '../../src-shared/agent'
import { lazily, loadAnthropic } from './lazily'
import { streamEndedEarly } from './provider-error'
import { toolDefsToAnthropic } from './tool-mapper'
import {
  argumentsObject,
  type ModelMessage,
  NO_KEY,
  opaqueItems,
  type ProviderAdapter,
  type ProviderConfig,
  userContent,
} from './types'

/** The image types an Anthropic image block names; the composer only attaches these. */
type AnthropicImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'

/**
 * Anthropic's web search server tool: Anthropic runs the searches. Its uses per response are capped
 * so one answer cannot run up the bill for searches (each is charged).
 */
const HOSTED_WEB_SEARCH: Anthropic.WebSearchTool20250305 = {
  type: 'web_search_20250305',
  name: 'web_search',
  max_uses: 5,
}

/** Anthropic requires an output budget; this one fits every current model. */
const DEFAULT_MAX_TOKENS = 8192

export function createAnthropicAdapter(config: ProviderConfig): ProviderAdapter {
  const client = lazily(async () => {
    const Anthropic = await loadAnthropic()
    return new Anthropic({ apiKey: config.apiKey || NO_KEY, baseURL: config.baseUrl ?? null, maxRetries: 0 })
  })
  return {
    kind: 'anthropic',
    async *stream(request, signal) {
      const tools: Anthropic.ToolUnion[] = [
        ...(toolDefsToAnthropic(request.tools) as Anthropic.Tool[]),
        ...(config.hostedSearch ? [HOSTED_WEB_SEARCH] : []),
      ]
      const stream = await (await client()).messages.create(
        {
          model: request.model,
          system: request.system,
          messages: toAnthropicMessages(request.messages),
          ...(tools.length > 0 && { tools }),
          max_tokens: request.maxOutputTokens ?? DEFAULT_MAX_TOKENS,
          stream: true,
        },
        { signal },
      )
      yield* readAnthropicStream(stream)
    },
    async listModels(signal) {
      const ids: string[] = []
      for await (const model of (await client()).models.list({}, { signal })) ids.push(model.id)
      return ids.sort()
    },
    async contextWindowOf(model, signal) {
      try {
        // ModelInfo.max_input_tokens (null or absent where the API does not say).
        const info = await (await client()).models.retrieve(model, {}, { signal })
        const limit = (info as { max_input_tokens?: unknown }).max_input_tokens
        return typeof limit === 'number' && limit > 0 ? limit : undefined
      } catch {
        return undefined
      }
    },
  }
}

type Block =
  | { type: 'text' }
  | { type: 'tool_use'; id: string; name: string; json: string }
  | { type: 'thinking'; thinking: string; signature: string }
  /** A search Anthropic runs (server_tool_use): its input streams in like a tool call's. */
  | { type: 'server_tool_use'; id: string; name: string; json: string }
  | { type: 'other'; item: unknown }

async function* readAnthropicStream(
  stream: AsyncIterable<RawMessageStreamEvent>,
): AsyncIterable<ProviderStreamEvent> {
  const blocks = new Map<number, Block>()
  // input_tokens counts only what came after the last cache breakpoint: the whole prompt is it plus
  // what was read from the cache and what was written to it. message_delta's counts are cumulative.
  let uncached = 0
  let cacheRead: number | null = null
  let cacheWrite: number | null = null
  let outputTokens = 0
  let stop: string | null = null
  // What each of Anthropic's searches looked for, by its id, for the card of its results.
  const searchQueries = new Map<string, string>()
  for await (const event of stream) {
    switch (event.type) {
      case 'message_start': {
        const { usage } = event.message
        uncached = usage.input_tokens
        cacheRead = usage.cache_read_input_tokens ?? null
        cacheWrite = usage.cache_creation_input_tokens ?? null
        outputTokens = usage.output_tokens
        break
      }
      case 'content_block_start': {
        const block = event.content_block
        if (block.type === 'text') {
          blocks.set(event.index, { type: 'text' })
          if (block.text) yield { type: 'text_delta', text: block.text }
        } else if (block.type === 'tool_use') {
          blocks.set(event.index, { type: 'tool_use', id: block.id, name: block.name, json: '' })
          yield { type: 'tool_call_started', id: block.id, name: block.name }
        } else if (block.type === 'thinking') {
          blocks.set(event.index, { type: 'thinking', thinking: block.thinking, signature: block.signature })
        } else if (block.type === 'server_tool_use') {
          blocks.set(event.index, { type: 'server_tool_use', id: block.id, name: block.name, json: '' })
        } else {
          // Redacted thinking and anything newer: kept whole, returned as it came.
          blocks.set(event.index, { type: 'other', item: block })
        }
        break
      }
      case 'content_block_delta': {
        const block = blocks.get(event.index)
        const delta = event.delta
        if (delta.type === 'text_delta') yield { type: 'text_delta', text: delta.text }
        else if (delta.type === 'input_json_delta' && block?.type === 'tool_use') {
          block.json += delta.partial_json
          yield { type: 'tool_call_arguments_delta', id: block.id, delta: delta.partial_json }
        } else if (delta.type === 'input_json_delta' && block?.type === 'server_tool_use') {
          block.json += delta.partial_json
        } else if (delta.type === 'citations_delta') {
          const { citation } = delta
          if (citation.type === 'web_search_result_location') {
            yield {
              type: 'citations',
              sources: [{ url: citation.url, ...(citation.title && { title: citation.title }) }],
            }
          }
        } else if (delta.type === 'thinking_delta' && block?.type === 'thinking')
          block.thinking += delta.thinking
        else if (delta.type === 'signature_delta' && block?.type === 'thinking')
          block.signature += delta.signature
        break
      }
      case 'content_block_stop': {
        const block = blocks.get(event.index)
        if (block?.type === 'tool_use') {
          yield { type: 'tool_call_completed', id: block.id, name: block.name, arguments: block.json || '{}' }
        } else if (block?.type === 'thinking') {
          yield {
            type: 'opaque',
            item: { type: 'thinking', thinking: block.thinking, signature: block.signature },
          }
        } else if (block?.type === 'server_tool_use') {
          // Sent back as it came: Anthropic wants its searches and their results in the history.
          const input = argumentsObject(block.json)
          if (typeof input.query === 'string') searchQueries.set(block.id, input.query)
          yield { type: 'opaque', item: { type: 'server_tool_use', id: block.id, name: block.name, input } }
        } else if (block?.type === 'other') {
          yield { type: 'opaque', item: block.item }
          const search = webSearchOf(block.item, searchQueries)
          if (search) yield search
        }
        break
      }
      case 'message_delta': {
        const { usage } = event
        stop = event.delta.stop_reason ?? stop
        outputTokens = usage.output_tokens ?? outputTokens
        uncached = usage.input_tokens ?? uncached
        cacheRead = usage.cache_read_input_tokens ?? cacheRead
        cacheWrite = usage.cache_creation_input_tokens ?? cacheWrite
        break
      }
      case 'message_stop':
        yield {
          type: 'usage',
          usage: {
            inputTokens: uncached + (cacheRead ?? 0) + (cacheWrite ?? 0),
            outputTokens,
            ...(cacheRead !== null && { cachedTokens: cacheRead }),
          },
        }
        yield { type: 'done', stopReason: stopReason(stop) }
        return
    }
  }
  throw streamEndedEarly('anthropic')
}

/** The card of a `web_search_tool_result` block: the query its search ran and the pages it found. */
function webSearchOf(item: unknown, queries: Map<string, string>): ProviderStreamEvent | undefined {
  const block = item as Partial<Anthropic.WebSearchToolResultBlock>
  if (block.type !== 'web_search_tool_result' || !block.tool_use_id) return undefined
  const query = queries.get(block.tool_use_id)
  // An error result (`too_many_requests`, …) is an object, not a list: a search that found nothing.
  const found = Array.isArray(block.content) ? block.content : []
  return {
    type: 'web_search',
    queries: query ? [query] : [],
    sources: found.map(({ url, title }) => ({ url, ...(title && { title }) })),
  }
}

function stopReason(stop: string | null): StopReason {
  if (stop === 'tool_use') return 'tool_calls'
  if (stop === 'max_tokens') return 'max_tokens'
  if (stop === 'refusal') return 'content_filter'
  return stop === 'end_turn' || stop === 'stop_sequence' ? 'end_turn' : 'other'
}

/** Anthropic wants user and assistant to alternate, so neighbours of one role become one message. */
function toAnthropicMessages(messages: ModelMessage[]): MessageParam[] {
  const merged: MessageParam[] = []
  for (const message of messages) {
    const { role, content } = toAnthropicMessage(message)
    if (content.length === 0) continue
    const last = merged.at(-1)
    if (last?.role === role) (last.content as ContentBlockParam[]).push(...content)
    else merged.push({ role, content })
  }
  return merged
}

function toAnthropicMessage(message: ModelMessage): {
  role: 'user' | 'assistant'
  content: ContentBlockParam[]
} {
  switch (message.role) {
    case 'user': {
      const { text, images } = userContent(message)
      // Anthropic's image block with a base64 source; images first, as its documentation advises.
      const blocks: ContentBlockParam[] = images.map(({ mimeType, base64 }) => ({
        type: 'image',
        source: { type: 'base64', media_type: mimeType as AnthropicImageType, data: base64 },
      }))
      return { role: 'user', content: text ? [...blocks, { type: 'text', text }] : blocks }
    }
    case 'tool':
      return {
        role: 'user',
        content: message.results.map((result) => ({
          type: 'tool_result',
          tool_use_id: result.callId,
          content: result.content,
          ...(result.isError && { is_error: true }),
        })),
      }
    case 'assistant':
      return {
        role: 'assistant',
        content: message.parts.flatMap((part): ContentBlockParam[] => {
          if (part.type === 'text') return part.text ? [{ type: 'text', text: part.text }] : []
          if (part.type === 'tool_call') {
            return [
              { type: 'tool_use', id: part.id, name: part.name, input: argumentsObject(part.arguments) },
            ]
          }
          return opaqueItems('anthropic', [part]) as ContentBlockParam[]
        }),
      }
  }
}
