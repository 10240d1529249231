/**
 * The provider-neutral shapes of a conversation: what an adapter streams, what the turn loop
 * streams on to the renderer and the CLI, and what the database keeps. One type per concern, so
 * every provider, transport and view speaks the same language.
 */
import { type Static, Type } from '@sinclair/typebox'
import { AttachedContent } from './attachments'
import { ErrorCode } from './errors'
import { ToolCallResult, ToolCallState } from './tool-calls'
import { OutputReport } from './tools'
import { Usage } from './usage'

/** `agent`: tools work in the bound folder; `chat`: the folder is not injected. */
export const ChatMode = Type.Union([Type.Literal('chat'), Type.Literal('agent')])
export type ChatMode = Static<typeof ChatMode>

export const ProviderKind = Type.Union([
  Type.Literal('openai-responses'),
  Type.Literal('openai-chat'),
  Type.Literal('gemini'),
  Type.Literal('anthropic'),
])
export type ProviderKind = Static<typeof ProviderKind>
export const PROVIDER_KIND_NAMES = ['openai-responses', 'openai-chat', 'gemini', 'anthropic'] as const

/** Why a model stopped answering. `tool_calls`: it is waiting for tool results. */
export const StopReason = Type.Union([
  Type.Literal('end_turn'),
  Type.Literal('tool_calls'),
  Type.Literal('max_tokens'),
  Type.Literal('content_filter'),
  Type.Literal('other'),
])
export type StopReason = Static<typeof StopReason>

/** A page a web search found or an answer cites. */
export const WebSource = Type.Object({
  url: Type.String(),
  /** The page's title as the search gave it; absent where it gave none. */
  title: Type.Optional(Type.String()),
})
export type WebSource = Static<typeof WebSource>

/**
 * A part of a message. `opaque` holds a provider's own item (an OpenAI reasoning item, an Anthropic
 * thinking block) verbatim: it goes back to that provider unchanged and is dropped for any other.
 * `providerData` on a tool call does the same for data attached to the call itself (Gemini's
 * thought signature).
 */
export const MessagePart = Type.Union([
  Type.Object({ type: Type.Literal('text'), text: Type.String() }),
  Type.Object({
    type: Type.Literal('tool_call'),
    id: Type.String(),
    name: Type.String(),
    /** The arguments exactly as the model wrote them (JSON text). */
    arguments: Type.String(),
    providerData: Type.Optional(Type.Unknown()),
  }),
  /** A call's result as the model reads it; stored before Atelier kept them, some lack `truncated` and `durationMs`. */
  Type.Composite([
    Type.Object({ type: Type.Literal('tool_result'), callId: Type.String(), name: Type.String() }),
    Type.Omit(ToolCallResult, ['truncated', 'durationMs']),
    Type.Partial(Type.Pick(ToolCallResult, ['truncated', 'durationMs'])),
  ]),
  Type.Object({ type: Type.Literal('opaque'), provider: ProviderKind, item: Type.Unknown() }),
  /** Context the person attached to a prompt (an MCP resource), as read when it was sent. */
  Type.Object({ type: Type.Literal('attachment'), attachment: AttachedContent }),
  /**
   * A search the provider ran on its own servers during a response (its hosted web search): what it
   * searched for and the pages it found, where the provider says. Shown as a card, never sent back.
   */
  Type.Object({
    type: Type.Literal('web_search'),
    provider: ProviderKind,
    queries: Type.Array(Type.String()),
    sources: Type.Array(WebSource),
  }),
  /** The pages a response's text cites (its provider's citations), shown as links under the text. */
  Type.Object({ type: Type.Literal('citations'), sources: Type.Array(WebSource) }),
])
export type MessagePart = Static<typeof MessagePart>
export type TextPart = Extract<MessagePart, { type: 'text' }>
export type ToolCallPart = Extract<MessagePart, { type: 'tool_call' }>
export type ToolResultPart = Extract<MessagePart, { type: 'tool_result' }>
export type OpaquePart = Extract<MessagePart, { type: 'opaque' }>
export type AttachmentPart = Extract<MessagePart, { type: 'attachment' }>
export type WebSearchPart = Extract<MessagePart, { type: 'web_search' }>
export type CitationsPart = Extract<MessagePart, { type: 'citations' }>

export const MessageRole = Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('tool')])
export type MessageRole = Static<typeof MessageRole>

export const ChatMessage = Type.Object({
  id: Type.String(),
  chatId: Type.String(),
  turnId: Type.String(),
  role: MessageRole,
  parts: Type.Array(MessagePart),
  createdAt: Type.Number(),
  /** An assistant message's tokens, when its provider reported them. */
  usage: Type.Optional(Usage),
})
export type ChatMessage = Static<typeof ChatMessage>

/** Why the conversation was compacted: past the threshold, refused as too long, or asked for. */
export const CompactionReason = Type.Union([
  Type.Literal('threshold'),
  Type.Literal('overflow'),
  Type.Literal('manual'),
])
export type CompactionReason = Static<typeof CompactionReason>

/**
 * A change to what the model sees of a conversation; the database keeps every message as it was.
 * From it on, tool results up to `elidedThrough` reach the model as one-line stubs, and the messages
 * up to `summarizedThrough` as `summary`.
 */
export const Compaction = Type.Object({
  id: Type.String(),
  chatId: Type.String(),
  /** The turn it happened in; null for "Compact now" between turns. */
  turnId: Type.Union([Type.String(), Type.Null()]),
  reason: CompactionReason,
  /** The last message when it happened: the chat shows its marker after it. */
  afterMessageId: Type.String(),
  elidedThrough: Type.Union([Type.String(), Type.Null()]),
  summarizedThrough: Type.Union([Type.String(), Type.Null()]),
  summary: Type.Union([Type.String(), Type.Null()]),
  /** Estimated tokens of the next request before and after. */
  tokensBefore: Type.Number(),
  tokensAfter: Type.Number(),
  createdAt: Type.Number(),
})
export type Compaction = Static<typeof Compaction>

/** How full the model's context is: what the next request would carry, against the window. */
export const ContextStatus = Type.Object({
  usedTokens: Type.Number(),
  windowTokens: Type.Number(),
  /** Where the window comes from: the provider's setting, the model listing, the table, a default. */
  windowSource: Type.Union([
    Type.Literal('setting'),
    Type.Literal('listing'),
    Type.Literal('table'),
    Type.Literal('default'),
  ]),
  /** Compaction starts when usedTokens passes this share of the window. */
  thresholdPercent: Type.Number(),
})
export type ContextStatus = Static<typeof ContextStatus>

export const TurnStatus = Type.Union([
  Type.Literal('running'),
  Type.Literal('completed'),
  /** Stopped by the person. */
  Type.Literal('stopped'),
  /** Ended by an error: provider, fatal tool error, iteration limit, a call repeated in a loop. */
  Type.Literal('failed'),
  /** The process died mid-turn; marked at the next open. */
  Type.Literal('interrupted'),
])
export type TurnStatus = Static<typeof TurnStatus>

/** Why a turn failed: the code the app acts on, and the words for the person. */
export interface TurnError {
  code: ErrorCode
  message: string
}

export const Turn = Type.Object({
  id: Type.String(),
  chatId: Type.String(),
  status: TurnStatus,
  /** Why it failed, in words for the person. */
  error: Type.Union([Type.String(), Type.Null()]),
  /** Why it failed, as a code the app acts on (`provider_auth` opens the provider's settings…). */
  errorCode: Type.Union([ErrorCode, Type.Null()]),
  /** Whether any call of the turn ended in error (failed, refused or stopped): `ctx.turn.toolError`. */
  toolError: Type.Boolean(),
  startedAt: Type.Number(),
  endedAt: Type.Union([Type.Number(), Type.Null()]),
})
export type Turn = Static<typeof Turn>

/** What a provider adapter streams: one model response. */
export type ProviderStreamEvent =
  | { type: 'text_delta'; text: string }
  | { type: 'tool_call_started'; id: string; name: string }
  | { type: 'tool_call_arguments_delta'; id: string; delta: string }
  | { type: 'tool_call_completed'; id: string; name: string; arguments: string; providerData?: unknown }
  /** A provider item to keep verbatim in history (reasoning items, thinking blocks). */
  | { type: 'opaque'; item: unknown }
  /** A search the provider ran itself (hosted web search). */
  | { type: 'web_search'; queries: string[]; sources: WebSource[] }
  /** Pages the text so far cites. */
  | { type: 'citations'; sources: WebSource[] }
  | { type: 'usage'; usage: Usage }
  | { type: 'done'; stopReason: StopReason }

/** What a turn streams of its own (see TurnEvent). */
const OWN_TURN_EVENTS = [
  Type.Object({ type: Type.Literal('turn_started'), turnId: Type.String(), chatId: Type.String() }),
  Type.Object({ type: Type.Literal('text_delta'), text: Type.String() }),
  Type.Object({ type: Type.Literal('tool_call_started'), id: Type.String(), name: Type.String() }),
  Type.Object({ type: Type.Literal('tool_call_arguments_delta'), id: Type.String(), delta: Type.String() }),
  Type.Object({
    type: Type.Literal('tool_call_completed'),
    id: Type.String(),
    name: Type.String(),
    arguments: Type.String(),
  }),
  /** A call's whole state, each time it changes: the one way a view learns what a call is doing. */
  Type.Object({ type: Type.Literal('tool_call'), call: ToolCallState }),
  /** A search the provider ran itself, as it ends: shown at once, before the response is committed. */
  Type.Object({
    type: Type.Literal('web_search'),
    queries: Type.Array(Type.String()),
    sources: Type.Array(WebSource),
  }),
  /** What a running command writes, chunk by chunk (a stream, like `text_delta`, not state). */
  Type.Object({ type: Type.Literal('tool_output'), callId: Type.String(), output: OutputReport }),
  Type.Object({ type: Type.Literal('usage'), usage: Usage }),
  /** The context after a response or a compaction, for the gauge. */
  Type.Object({ type: Type.Literal('context'), context: ContextStatus }),
  Type.Object({
    type: Type.Literal('compaction_started'),
    reason: CompactionReason,
    tokensBefore: Type.Number(),
    windowTokens: Type.Number(),
  }),
  Type.Object({ type: Type.Literal('compaction_completed'), compaction: Compaction }),
  /** A retryable provider failure; the request is sent again after `delayMs`. */
  Type.Object({
    type: Type.Literal('retry'),
    attempt: Type.Number(),
    delayMs: Type.Number(),
    message: Type.String(),
  }),
  /** Enabled MCP servers that failed or await approval as the turn started: it runs without their tools. */
  Type.Object({
    type: Type.Literal('servers_unavailable'),
    servers: Type.Array(Type.Object({ name: Type.String(), error: Type.String() })),
  }),
  /**
   * The broker had just connected as the turn began: it waited `waitedMs` for the enabled announced
   * services to answer the discover before building its tools; `services` answered.
   */
  Type.Object({
    type: Type.Literal('services_discovered'),
    waitedMs: Type.Number(),
    services: Type.Array(Type.String()),
  }),
  /** A prompt or a response was committed to the database (a call's result comes with its `tool_call`). */
  Type.Object({ type: Type.Literal('message'), message: ChatMessage }),
  Type.Object({
    type: Type.Literal('turn_completed'),
    turnId: Type.String(),
    status: TurnStatus,
    /** Whether any call of the turn ended in error, as its stored record says. */
    toolError: Type.Boolean(),
  }),
  Type.Object({
    type: Type.Literal('turn_error'),
    turnId: Type.String(),
    status: TurnStatus,
    code: ErrorCode,
    message: Type.String(),
  }),
]

/**
 * What a subagent's turn streamed, passed on in its parent's stream: `parentCallId` is the `task`
 * call it runs for, `chatId` its own chat. A subagent's subagent is passed on as it came (flat), so
 * its `parentCallId` names a call of the subagent's chat.
 */
export const SubagentEvent = Type.Object({
  type: Type.Literal('subagent'),
  parentCallId: Type.String(),
  chatId: Type.String(),
  event: Type.Union(OWN_TURN_EVENTS),
})
export type SubagentEvent = Static<typeof SubagentEvent>

/** What a turn streams to whoever asked for it (IPC, the web host, the CLI's `--json`). */
export const TurnEvent = Type.Union([...OWN_TURN_EVENTS, SubagentEvent])
export type TurnEvent = Static<typeof TurnEvent>
