/**
 * The chat's provider and model asked for one completion without tools, as compaction asks for its
 * summary: what an MCP server's approved sampling request is sent to.
 */
import type { StopReason } from '../../src-shared/agent'
import { type DefaultPrice, priced } from '../../src-shared/prices'
import type { Usage } from '../../src-shared/usage'
import { type RetryPolicy, streamWithRetry } from '../providers/retry'
import type { ModelMessage, ProviderAdapter } from '../providers/types'
import type { ChatModel } from '../tools/types'

/** `price`: the chat model's, so a completion is costed as the turn's responses are (none known: tokens only). */
export function chatModel(
  adapter: ProviderAdapter,
  model: string,
  price: DefaultPrice | undefined,
  retry?: RetryPolicy,
): ChatModel {
  return {
    async complete({ system, messages, maxTokens }, signal) {
      const request = {
        model,
        system,
        messages: messages.map(
          (message): ModelMessage =>
            message.role === 'user'
              ? { role: 'user', text: message.text }
              : { role: 'assistant', parts: [{ type: 'text', text: message.text }] },
        ),
        tools: [],
        maxOutputTokens: maxTokens,
      }
      let text = ''
      let stopReason: StopReason = 'other'
      let usage: Usage | undefined
      for await (const event of streamWithRetry(adapter, request, signal, retry)) {
        if (event.type === 'text_delta') text += event.text
        else if (event.type === 'usage') usage = priced(event.usage, price)
        else if (event.type === 'done') stopReason = event.stopReason
      }
      return { text, model, stopReason, ...(usage && { usage }) }
    },
  }
}
