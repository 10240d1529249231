/**
 * What the model sees of a conversation once it has been compacted, and how many tokens that is.
 * The database keeps every message as it was; a chat's compactions only change this view:
 * - tool results up to `elidedThrough` become one-line stubs, and the responses that made those
 *   calls lose their provider items (reasoning, thought signatures), so no provider receives an
 *   item whose surroundings changed;
 * - the messages up to `summarizedThrough` are replaced by the summary, sent as the first message.
 */
import type {
  ChatMessage,
  Compaction,
  MessagePart,
  ToolCallPart,
  ToolResultPart,
} from '../../../src-shared/agent'
import type { ToolDefinition } from '../../../src-shared/tools'
import type { ModelMessage } from '../../providers/types'
import { toModelMessages } from '../history'

/** What a chat's compactions add up to. */
export interface ViewState {
  elidedThrough: string | null
  summarizedThrough: string | null
  summary: string | null
}

export const EMPTY_VIEW: ViewState = { elidedThrough: null, summarizedThrough: null, summary: null }

/** The view after a chat's compactions (oldest first): each carries the elision on; summaries replace. */
export function viewStateOf(compactions: readonly Compaction[]): ViewState {
  const last = compactions.at(-1)
  const summarized = compactions.findLast((compaction) => compaction.summary !== null)
  return {
    elidedThrough: last?.elidedThrough ?? null,
    summarizedThrough: summarized?.summarizedThrough ?? null,
    summary: summarized?.summary ?? null,
  }
}

/** How the model is told what the summary is. */
export function summaryMessage(summary: string): string {
  return `[Summary of the earlier part of this conversation, which was compacted to fit the context window]\n\n${summary}`
}

/**
 * The conversation as the model sees it under `state`; for a request to send, given the images
 * folder its prompts' images must be in (`toModelMessages`).
 */
export function modelView(
  history: readonly ChatMessage[],
  state: ViewState,
  imagesDir?: string,
): ModelMessage[] {
  // A message the state names is always in the history; were one missing (an edited database), -1
  // hides nothing.
  const start = startOf(history, state)
  const elidedUpTo = state.elidedThrough ? indexOf(history, state.elidedThrough) : -1
  const elided = new Map<string, ToolCallPart>()
  const kept = history.slice(start).map((message, offset) => {
    if (message.role !== 'assistant' || start + offset > elidedUpTo) return message
    const parts: MessagePart[] = []
    for (const part of message.parts) {
      if (part.type === 'opaque') continue
      if (part.type !== 'tool_call') {
        parts.push(part)
        continue
      }
      elided.set(part.id, part)
      const { providerData: _dropped, ...call } = part
      parts.push(call)
    }
    return { ...message, parts }
  })
  const shaped = elided.size === 0 ? kept : kept.map((message) => withStubs(message, elided))
  const messages = toModelMessages(shaped, imagesDir)
  if (state.summary !== null) messages.unshift({ role: 'user', text: summaryMessage(state.summary) })
  return messages
}

function withStubs(message: ChatMessage, elided: Map<string, ToolCallPart>): ChatMessage {
  if (message.role !== 'tool') return message
  return {
    ...message,
    parts: message.parts.map((part) => {
      const call = part.type === 'tool_result' ? elided.get(part.callId) : undefined
      return call && part.type === 'tool_result' ? { ...part, content: stubFor(call, part) } : part
    }),
  }
}

/** "[output of read_file src/a.ts, 48 KB, elided — call again if needed]" */
export function stubFor(call: ToolCallPart, result: ToolResultPart): string {
  const subject = subjectOf(call.arguments)
  const size = Buffer.byteLength(result.content)
  const amount = size < 1024 ? `${size} B` : `${Math.round(size / 1024)} KB`
  const what = result.isError ? 'error' : 'output'
  return `[${what} of ${call.name}${subject ? ` ${subject}` : ''}, ${amount}, elided — call again if needed]`
}

/** What a call was about, in a few words: its path, pattern or command. */
function subjectOf(args: string): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(args)
  } catch {
    return ''
  }
  if (typeof parsed !== 'object' || parsed === null) return ''
  const values = parsed as Record<string, unknown>
  const key = ['path', 'file', 'pattern', 'command', 'cwd', 'url', 'query'].find(
    (k) => typeof values[k] === 'string',
  )
  const value = key ? values[key] : Object.values(values).find((v) => typeof v === 'string')
  if (typeof value !== 'string') return ''
  const line = value.replace(/\s+/g, ' ').trim()
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}

export function indexOf(history: readonly ChatMessage[], id: string): number {
  return history.findIndex((message) => message.id === id)
}

/** Where what the model sees verbatim begins: after the summarized part. */
export function startOf(history: readonly ChatMessage[], state: ViewState): number {
  return state.summarizedThrough ? indexOf(history, state.summarizedThrough) + 1 : 0
}

/** What a request is made of, for its size. */
export interface RequestShape {
  system: string
  tools: readonly ToolDefinition[]
  messages: readonly ModelMessage[]
}

/**
 * Characters a request carries: the system prompt, the tools' definitions as JSON, and every
 * message's text, calls, results and provider items. A token is about 4 of them in English and code;
 * the provider's own count for the previous request calibrates that (see TokenEstimator).
 */
export function requestChars({ system, tools, messages }: RequestShape): number {
  let chars = system.length + (tools.length > 0 ? JSON.stringify(tools).length : 0)
  for (const message of messages) chars += messageChars(message)
  return chars
}

/**
 * What one attached image counts for: providers bill an image by its size in tiles, about 1,600
 * tokens for a large one at their default detail — as characters, at 4 a token.
 */
const IMAGE_CHARS = 1600 * 4

export function messageChars(message: ModelMessage): number {
  if (message.role === 'user') return message.text.length + 8 + (message.images?.length ?? 0) * IMAGE_CHARS
  if (message.role === 'tool') {
    return message.results.reduce((sum, result) => sum + result.content.length + result.name.length + 24, 0)
  }
  let chars = 8
  for (const part of message.parts) {
    if (part.type === 'text') chars += part.text.length
    else if (part.type === 'tool_call') {
      chars += part.name.length + part.arguments.length + 24
      if (part.providerData !== undefined) chars += JSON.stringify(part.providerData).length
    } else chars += JSON.stringify(part.item ?? null).length
  }
  return chars
}

/**
 * Tokens from characters: 4 a token until the provider has counted a request, then the ratio its
 * count showed (clamped, so one odd count cannot make the estimate absurd).
 */
export class TokenEstimator {
  /** Tokens per 4 characters, as last measured. */
  private ratio = 1

  tokens(chars: number): number {
    return Math.ceil((chars / 4) * this.ratio)
  }

  /** About how many characters make `tokens`. */
  chars(tokens: number): number {
    return Math.floor((tokens * 4) / this.ratio)
  }

  /** The provider counted `inputTokens` for a request of `chars` characters. */
  calibrate(chars: number, inputTokens: number): void {
    if (chars <= 0 || inputTokens <= 0) return
    this.ratio = Math.min(4, Math.max(0.25, inputTokens / (chars / 4)))
  }

  /** A request of `chars` was refused as longer than `window`: count it as at least that. */
  atLeast(chars: number, windowTokens: number): void {
    this.ratio = Math.max(this.ratio, Math.min(4, (windowTokens * 1.05) / (chars / 4)))
  }
}
