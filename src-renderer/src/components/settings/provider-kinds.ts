/** What the provider form says about each wire format. Key variables mirror the main process's. */
import type { ProviderKind } from '../../../../src-shared/agent'
import { endpointLabel, isOfficialEndpoint, sameServer } from '../../../../src-shared/providers'

export interface ProviderKindInfo {
  kind: ProviderKind
  label: string
  /** The kind in a default name: "OpenAI", "OpenAI-compatible at 127.0.0.1:8080". */
  shortLabel: string
  hint: string
  /** The environment variables read when no key is stored, first found wins. */
  keyVariables: string[]
  baseUrlPlaceholder: string
  modelPlaceholder: string
}

export const PROVIDER_KINDS: ProviderKindInfo[] = [
  {
    kind: 'openai-responses',
    shortLabel: 'OpenAI',
    label: 'OpenAI (Responses API)',
    hint: 'OpenAI’s own API.',
    keyVariables: ['OPENAI_API_KEY'],
    baseUrlPlaceholder: 'Empty: https://api.openai.com/v1',
    modelPlaceholder: 'gpt-5-mini',
  },
  {
    kind: 'openai-chat',
    shortLabel: 'OpenAI-compatible',
    label: 'OpenAI-compatible (Chat Completions)',
    hint: 'Ollama, LM Studio, vLLM, OpenRouter and other servers that speak the Chat Completions API.',
    keyVariables: ['OPENAI_API_KEY'],
    baseUrlPlaceholder: 'http://127.0.0.1:11434/v1',
    modelPlaceholder: 'llama3.1',
  },
  {
    kind: 'gemini',
    shortLabel: 'Gemini',
    label: 'Google Gemini',
    hint: 'Google’s Gemini API.',
    keyVariables: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    baseUrlPlaceholder: 'Empty: Google’s public endpoint',
    modelPlaceholder: 'gemini-2.5-flash',
  },
  {
    kind: 'anthropic',
    shortLabel: 'Anthropic',
    label: 'Anthropic',
    hint: 'Anthropic’s Messages API (Claude).',
    keyVariables: ['ANTHROPIC_API_KEY'],
    baseUrlPlaceholder: 'Empty: https://api.anthropic.com',
    modelPlaceholder: 'claude-sonnet-4-5',
  },
]

export function kindInfo(kind: ProviderKind): ProviderKindInfo {
  return PROVIDER_KINDS.find((info) => info.kind === kind) ?? (PROVIDER_KINDS[0] as ProviderKindInfo)
}

/** Starting points offered when no provider is set up yet: local servers need no key. */
export const LOCAL_PRESETS = [
  { name: 'Ollama', kind: 'openai-chat', baseUrl: 'http://127.0.0.1:11434/v1' },
  { name: 'LM Studio', kind: 'openai-chat', baseUrl: 'http://127.0.0.1:1234/v1' },
] as const satisfies { name: string; kind: ProviderKind; baseUrl: string }[]

export type ProviderPreset = { name?: string; kind: ProviderKind; baseUrl?: string }

/**
 * The name a provider gets when the form's Name is left empty: a local preset's by its address
 * (Ollama, LM Studio), the company's at its official endpoint, else the kind and the server.
 */
export function defaultProviderName(kind: ProviderKind, baseUrl: string): string {
  const address = baseUrl.trim()
  const preset = LOCAL_PRESETS.find((p) => p.kind === kind && sameServer(kind, address, p.baseUrl))
  if (preset) return preset.name
  const info = kindInfo(kind)
  if (isOfficialEndpoint(kind, address || null)) {
    return kind === 'openai-chat' ? 'OpenAI (Chat Completions)' : info.shortLabel
  }
  const server = endpointLabel(kind, address).replace(/^https?:\/\//i, '')
  return server ? `${info.shortLabel} at ${server}` : info.shortLabel
}
