import { createAnthropicAdapter } from './anthropic'
import { createGeminiAdapter } from './gemini'
import { createOpenAIChatAdapter } from './openai-chat'
import { createOpenAIResponsesAdapter } from './openai-responses'
import type { ProviderAdapter, ProviderConfig } from './types'

/** The adapter that speaks this provider's wire format. */
export function createProviderAdapter(config: ProviderConfig): ProviderAdapter {
  switch (config.kind) {
    case 'openai-responses':
      return createOpenAIResponsesAdapter(config)
    case 'openai-chat':
      return createOpenAIChatAdapter(config)
    case 'gemini':
      return createGeminiAdapter(config)
    case 'anthropic':
      return createAnthropicAdapter(config)
  }
}
