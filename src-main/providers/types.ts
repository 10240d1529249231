import { readFileSync } from 'node:fs'
import type {
  MessagePart,
  OpaquePart,
  ProviderKind,
  ProviderStreamEvent,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from '../../src-shared/agent'
import type { ToolDefinition } from '../../src-shared/tools'

/** Local servers take no key, but the SDKs refuse to send a request without one. */
export const NO_KEY = 'no-key'

/** Where and how to reach one provider; the key is already decrypted or read from the environment. */
export interface ProviderConfig {
  kind: ProviderKind
  /** undefined: the provider's public endpoint. */
  baseUrl?: string
  apiKey?: string
  /** Ask the provider to search the web itself (its hosted search); only for kinds that have one. */
  hostedSearch?: boolean
}

/**
 * The conversation as every adapter receives it: a user prompt, an assistant response (text, tool
 * calls and the provider's opaque items, in the order they came), or the results of one response's
 * tool calls — all of them, in call order.
 */
export type ModelMessage =
  | { role: 'user'; text: string; images?: ModelImage[] }
  | { role: 'assistant'; parts: (TextPart | ToolCallPart | OpaquePart)[] }
  | { role: 'tool'; results: ToolResultPart[] }

/**
 * An image the person attached to a prompt, by where it is saved: its bytes are read only when a
 * request is built, never for the estimates that walk the conversation far more often.
 */
export interface ModelImage {
  mimeType: string
  path: string
}

/** Said in place of an image whose file is gone (the data folder was cleaned by hand). */
export const MISSING_IMAGE = '[An image was attached here; its file is no longer on disk.]'

/**
 * A user message's images with their bytes as base64, and its text with a note for each image whose
 * file is gone: a request still goes out, rather than the chat failing on every later turn.
 */
export function userContent(message: Extract<ModelMessage, { role: 'user' }>): {
  text: string
  images: { mimeType: string; base64: string }[]
} {
  const images: { mimeType: string; base64: string }[] = []
  const notes: string[] = []
  for (const image of message.images ?? []) {
    try {
      images.push({ mimeType: image.mimeType, base64: readFileSync(image.path).toString('base64') })
    } catch {
      notes.push(MISSING_IMAGE)
    }
  }
  return { text: [...notes, message.text].join('\n'), images }
}

export interface ModelRequest {
  model: string
  system: string
  messages: ModelMessage[]
  /** The turn's projection; adapters map it with the tool mapper, which maps one list once. */
  tools: readonly ToolDefinition[]
  /** Output budget; Anthropic requires one. */
  maxOutputTokens?: number
}

/** One wire format over its official SDK. */
export interface ProviderAdapter {
  readonly kind: ProviderKind
  /** Streams one model response as neutral events, ending with `done`; throws on failure or abort. */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ProviderStreamEvent>
  /** The models the provider offers, from its model-list endpoint. */
  listModels(signal?: AbortSignal): Promise<string[]>
  /**
   * The model's context window in tokens as the provider's model listing states it; undefined when
   * it states none, or the lookup fails (never throws).
   */
  contextWindowOf?(model: string, signal?: AbortSignal): Promise<number | undefined>
}

/** The items among these parts that this provider made: another provider's reasoning means nothing to it. */
export function opaqueItems(kind: ProviderKind, parts: readonly MessagePart[]): unknown[] {
  return parts.filter((p): p is OpaquePart => p.type === 'opaque' && p.provider === kind).map((p) => p.item)
}

/** Tool arguments as an object, for wires that want one (Gemini, Anthropic); `{}` when they never parsed. */
export function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}
