/**
 * Chat Completions over the `openai` SDK, for OpenAI-compatible servers (Ollama, LM Studio,
 * llama.cpp, vLLM) as much as for OpenAI itself.
 */
import { randomUUID } from 'node:crypto'
import type OpenAI from 'openai'
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions/completions'
import type { ProviderStreamEvent, StopReason } from '../../src-shared/agent'
import type { Usage } from '../../src-shared/usage'
import { lazily, loadOpenAI } from './lazily'
import { streamEndedEarly } from './provider-error'
import { toolDefsToChatCompletions } from './tool-mapper'
import { type ModelMessage, NO_KEY, type ProviderAdapter, type ProviderConfig, userContent } from './types'

export function createOpenAIChatAdapter(config: ProviderConfig): ProviderAdapter {
  const client = lazily(async () => {
    const OpenAI = await loadOpenAI()
    return new OpenAI({ apiKey: config.apiKey || NO_KEY, baseURL: config.baseUrl ?? null, maxRetries: 0 })
  })
  return {
    kind: 'openai-chat',
    async *stream(request, signal) {
      const tools = toolDefsToChatCompletions(request.tools)
      const stream = await (await client()).chat.completions.create(
        {
          model: request.model,
          messages: [{ role: 'system', content: request.system }, ...toChatMessages(request.messages)],
          ...(tools.length > 0 && { tools }),
          ...(request.maxOutputTokens && { max_tokens: request.maxOutputTokens }),
          stream: true,
          stream_options: { include_usage: true },
        },
        { signal },
      )
      yield* readChatStream(stream)
    },
    async listModels(signal) {
      const ids: string[] = []
      for await (const model of (await client()).models.list({ signal })) ids.push(model.id)
      return ids.sort()
    },
    async contextWindowOf(model, signal) {
      return windowFromListing(await client(), model, signal)
    },
  }
}

/**
 * Where OpenAI-compatible servers put a model's context window in their /models entries (OpenAI's
 * own entries carry none): OpenRouter `context_length` (and `top_provider.context_length`), vLLM
 * `max_model_len`, Groq `context_window`, LM Studio's REST listing `max_context_length`.
 */
const WINDOW_FIELDS = ['context_length', 'max_model_len', 'context_window', 'max_context_length'] as const

/** The model's window from the server's model listing; undefined when it says none or the listing fails. */
export async function windowFromListing(
  client: OpenAI,
  model: string,
  signal?: AbortSignal,
): Promise<number | undefined> {
  try {
    for await (const entry of client.models.list({ signal })) {
      if (entry.id !== model) continue
      const raw = entry as unknown as Record<string, unknown>
      const topProvider = raw.top_provider as Record<string, unknown> | undefined
      const figures = [...WINDOW_FIELDS.map((field) => raw[field]), topProvider?.context_length]
      return figures.find((value): value is number => typeof value === 'number' && value > 0)
    }
  } catch {
    // A listing that fails or is not there tells nothing about the window.
  }
  return undefined
}

interface PendingCall {
  id: string
  name: string
  arguments: string
}

async function* readChatStream(
  stream: AsyncIterable<ChatCompletionChunk>,
): AsyncIterable<ProviderStreamEvent> {
  // Calls arrive by index: the first piece names the call, later pieces carry argument text.
  const calls = new Map<number, PendingCall>()
  let finish: string | null = null
  // Asked for with stream_options.include_usage: a last chunk with empty choices. Some servers send
  // usage on more chunks (running totals); the last one stands, told once before `done`.
  let usage: Usage | undefined
  for await (const chunk of stream) {
    if (chunk.usage) {
      const { prompt_tokens, completion_tokens, prompt_tokens_details } = chunk.usage
      const cached = prompt_tokens_details?.cached_tokens
      usage = {
        inputTokens: prompt_tokens,
        outputTokens: completion_tokens,
        ...(typeof cached === 'number' && { cachedTokens: cached }),
      }
    }
    const choice = chunk.choices[0]
    if (!choice) continue
    if (choice.delta.content) yield { type: 'text_delta', text: choice.delta.content }
    for (const piece of choice.delta.tool_calls ?? []) {
      let call = calls.get(piece.index)
      if (!call) {
        // Some servers leave the id out; the history still needs one to pair the result with.
        call = { id: piece.id || `call_${randomUUID()}`, name: piece.function?.name ?? '', arguments: '' }
        calls.set(piece.index, call)
        yield { type: 'tool_call_started', id: call.id, name: call.name }
      }
      const delta = piece.function?.arguments
      if (delta) {
        call.arguments += delta
        yield { type: 'tool_call_arguments_delta', id: call.id, delta }
      }
    }
    finish = choice.finish_reason ?? finish
  }
  if (finish === null) throw streamEndedEarly('openai-chat')
  const ordered = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call)
  for (const call of ordered) {
    yield { type: 'tool_call_completed', id: call.id, name: call.name, arguments: call.arguments || '{}' }
  }
  if (usage) yield { type: 'usage', usage }
  yield { type: 'done', stopReason: stopReason(finish, ordered.length > 0) }
}

function stopReason(finish: string, calledTools: boolean): StopReason {
  if (finish === 'length') return 'max_tokens'
  if (finish === 'content_filter') return 'content_filter'
  return calledTools ? 'tool_calls' : 'end_turn'
}

function toChatMessages(messages: ModelMessage[]): ChatCompletionMessageParam[] {
  return messages.flatMap(toItems)
}

function toItems(message: ModelMessage): ChatCompletionMessageParam[] {
  switch (message.role) {
    case 'user': {
      const { text, images } = userContent(message)
      if (images.length === 0) return [{ role: 'user', content: text }]
      // Chat Completions takes an image as an image_url content part; a data: URL carries the bytes.
      return [
        {
          role: 'user',
          content: [
            ...images.map(({ mimeType, base64 }) => ({
              type: 'image_url' as const,
              image_url: { url: `data:${mimeType};base64,${base64}` },
            })),
            { type: 'text' as const, text },
          ],
        },
      ]
    }
    case 'tool':
      return message.results.map((result) => ({
        role: 'tool',
        tool_call_id: result.callId,
        content: result.content,
      }))
    case 'assistant': {
      const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
      const calls = message.parts.flatMap((part) =>
        part.type === 'tool_call'
          ? [
              {
                id: part.id,
                type: 'function' as const,
                function: { name: part.name, arguments: part.arguments },
              },
            ]
          : [],
      )
      if (!text && calls.length === 0) return []
      return [{ role: 'assistant', content: text || null, ...(calls.length > 0 && { tool_calls: calls }) }]
    }
  }
}
