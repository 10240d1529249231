/**
 * The conversation as the chat view sees it: the committed messages and turns (from
 * `chats.messages`), plus what the running turn has streamed but not yet committed. One reducer
 * folds both the initial load and every `turns.event` into it, and `buildRows` flattens it into
 * the rows the virtualized list shows.
 */
import type {
  ChatMessage,
  Compaction,
  CompactionReason,
  ContextStatus,
  SubagentEvent,
  Turn,
  TurnEvent,
  WebSource,
} from '../../../../src-shared/agent'
import type { ChatSearchResult } from '../../../../src-shared/contract'
import type { ErrorCode } from '../../../../src-shared/errors'
import type { PlanStep } from '../../../../src-shared/plans'
import { isFinished, type ToolCallResult, type ToolCallState } from '../../../../src-shared/tool-calls'
import type { OutputReport, PartialReport } from '../../../../src-shared/tools'
import { addUsage, NO_USAGE, responseTotal, type Usage, type UsageTotal } from '../../../../src-shared/usage'
import type { ComposerAttachment } from './attachments'

/** A call's result as its card shows it. */
export type ToolResultView = ToolCallResult

export type ShellChunk = Pick<OutputReport, 'stream' | 'text'>

/** A custom tool's partial result: its text, and its render hooks' Markdown of the call and of it. */
export type PartialResult = Omit<PartialReport, 'kind'>

export interface ToolCallView {
  id: string
  name: string
  arguments: string
  /** false while the model is still writing the arguments. */
  complete: boolean
}

/** A search the provider ran itself (its hosted web search): shown as a card. */
export interface WebSearchView {
  kind: 'web_search'
  queries: string[]
  sources: WebSource[]
}

/** The pages a response cites: shown as links under its text. */
export interface CitationsView {
  kind: 'citations'
  sources: WebSource[]
}

export type AssistantPart =
  | { kind: 'text'; text: string }
  | ({ kind: 'tool_call' } & ToolCallView)
  | WebSearchView
  | CitationsView

/**
 * A response's parts as shown: its texts, the provider's searches and citations, and each run of
 * calls made side by side as one piece.
 */
export type ResponsePiece =
  | { kind: 'text'; text: string }
  | { kind: 'calls'; calls: ToolCallView[] }
  | WebSearchView
  | CitationsView

/**
 * The parts with consecutive calls gathered into one run: the calls a model makes together in one
 * response (parallel calls) show under one line.
 */
export function responsePieces(parts: AssistantPart[]): ResponsePiece[] {
  const pieces: ResponsePiece[] = []
  for (const part of parts) {
    const last = pieces.at(-1)
    if (part.kind !== 'tool_call') pieces.push(part)
    else if (last?.kind === 'calls') last.calls.push(part)
    else pieces.push({ kind: 'calls', calls: [part] })
  }
  return pieces
}

export interface RetryNotice {
  attempt: number
  delayMs: number
  message: string
}

/** `turns.start` refused before a turn existed (no provider, a turn already running, …). */
export interface StartFailure {
  prompt: string
  /** What was attached to it, for a retry. */
  attachments?: ComposerAttachment[]
  /** Refused while retrying a stored turn: its Retry runs that turn again rather than send the prompt. */
  rerun?: boolean
  code: ErrorCode
  message: string
}

/** A compaction under way in the running turn (between `compaction_started` and its end). */
export interface CompactingNotice {
  reason: CompactionReason
  tokensBefore: number
  windowTokens: number
}

export interface Draft {
  turnId: string
  parts: AssistantPart[]
  /** Its tokens, once the provider has counted them (the `usage` event, before the message). */
  usage?: Usage
}

export interface ConversationState {
  loaded: boolean
  loadError: string | null
  messages: ChatMessage[]
  turns: Turn[]
  /** The chat's compactions, oldest first: each shows as a marker after its message. */
  compactions: Compaction[]
  /** How full the context is (the header's gauge); null until known, or when it cannot be told. */
  context: ContextStatus | null
  compacting: CompactingNotice | null
  /** The running response: what has streamed since the last committed assistant message. */
  draft: Draft | null
  /** Every tool call's state, by turn and id (see `callKey`). */
  calls: Record<string, ToolCallState>
  /** What running commands wrote, chunk by chunk, by call. */
  output: Record<string, ShellChunk[]>
  retry: RetryNotice | null
  /** MCP servers the running or last turn could not reach, with why. */
  unavailableServers: { name: string; error: string }[]
  startFailure: StartFailure | null
  /** Between Send and the turn's first event (or its refusal). */
  starting: boolean
  /** What each subagent streamed, by the `task` call it runs for. */
  subagents: Record<string, SubagentView>
}

/** A subagent as its task's card shows it while it runs: its calls live, its tokens so far. */
export interface SubagentView {
  chatId: string
  /** Its turn, once started. */
  turnId: string | null
  /** Its calls as the model made them, in order. */
  calls: ToolCallView[]
  /** Their states and what their commands wrote, by `callKey`. */
  states: Record<string, ToolCallState>
  output: Record<string, ShellChunk[]>
  usage: UsageTotal
  running: boolean
}

export const initialConversation: ConversationState = {
  loaded: false,
  loadError: null,
  messages: [],
  turns: [],
  compactions: [],
  context: null,
  compacting: null,
  draft: null,
  calls: {},
  output: {},
  retry: null,
  unavailableServers: [],
  startFailure: null,
  starting: false,
  subagents: {},
}

/** One event of a subagent's turn, folded into its view (what its card shows of it live). */
function applySubagentEvent(view: SubagentView, event: SubagentEvent['event']): SubagentView {
  switch (event.type) {
    case 'turn_started':
      return { ...view, turnId: event.turnId, running: true }
    case 'tool_call_completed':
      return {
        ...view,
        calls: [
          ...view.calls,
          { id: event.id, name: event.name, arguments: event.arguments, complete: true },
        ],
      }
    case 'tool_call':
      return { ...view, states: { ...view.states, [callKey(event.call.turnId, event.call.id)]: event.call } }
    case 'tool_output': {
      const key = callKey(view.turnId ?? '', event.callId)
      return { ...view, output: { ...view.output, [key]: addOutput(view.output[key], event.output) } }
    }
    case 'usage':
      return { ...view, usage: addUsage(view.usage, responseTotal(event.usage)) }
    case 'turn_completed':
    case 'turn_error':
      return { ...view, running: false }
    default:
      return view
  }
}

/** A call's key: its id is the model's, unique within its turn. */
export function callKey(turnId: string, id: string): string {
  return `${turnId} ${id}`
}

export type ConversationAction =
  | {
      type: 'loaded'
      messages: ChatMessage[]
      turns: Turn[]
      compactions: Compaction[]
      calls: ToolCallState[]
      /** The load replaces what was shown (a rewind cut the conversation) rather than merging into it. */
      replace?: boolean
    }
  | { type: 'load_failed'; message: string }
  /** `chats.context` answered (null: it could not tell). */
  | { type: 'context_loaded'; context: ContextStatus | null }
  /** "Compact now" made one. */
  | { type: 'compacted'; compaction: Compaction }
  | { type: 'event'; turnId: string; event: TurnEvent }
  | { type: 'starting' }
  | { type: 'started' }
  | { type: 'start_failed'; failure: StartFailure }
  | { type: 'dismiss_retry' }

export function conversationReducer(state: ConversationState, action: ConversationAction): ConversationState {
  switch (action.type) {
    case 'loaded': {
      const base = action.replace ? { ...state, messages: [], turns: [], compactions: [], calls: {} } : state
      return {
        ...base,
        ...merge(base, action.messages, action.turns),
        compactions: mergeCompactions(action.compactions, base.compactions),
        calls: mergeCalls(base.calls, action.calls),
        loaded: true,
        loadError: null,
      }
    }
    case 'load_failed':
      return { ...state, loaded: true, loadError: action.message }
    case 'context_loaded':
      return { ...state, context: action.context }
    case 'compacted':
      return { ...state, compactions: mergeCompactions(state.compactions, [action.compaction]) }
    case 'starting':
      return { ...state, starting: true, startFailure: null }
    case 'started':
      return { ...state, starting: false }
    case 'start_failed':
      return { ...state, starting: false, startFailure: action.failure }
    case 'dismiss_retry':
      return { ...state, retry: null }
    case 'event':
      return applyEvent(state, action.turnId, action.event)
  }
}

/** A fresh load wins for what it has; what events brought in meanwhile is kept. */
function merge(state: ConversationState, messages: ChatMessage[], turns: Turn[]) {
  const loadedIds = new Set(messages.map((message) => message.id))
  const previous = new Map(state.messages.map((message) => [message.id, message]))
  // Keep the old objects where nothing changed, so memoized rows do not render again.
  const mergedMessages = [
    ...messages.map((message) => previous.get(message.id) ?? message),
    ...state.messages.filter((message) => !loadedIds.has(message.id)),
  ]
  const live = new Map(state.turns.map((turn) => [turn.id, turn]))
  const mergedTurns = turns.map((turn) => {
    const known = live.get(turn.id)
    return known && known.status !== 'running' && turn.status === 'running' ? known : turn
  })
  const turnIds = new Set(turns.map((turn) => turn.id))
  mergedTurns.push(...state.turns.filter((turn) => !turnIds.has(turn.id)))
  return { messages: mergedMessages, turns: mergedTurns }
}

/** `first`, then those of `more` it lacks, oldest first; the same objects where nothing changed. */
function mergeCompactions(first: Compaction[], more: Compaction[]): Compaction[] {
  const known = new Set(first.map((compaction) => compaction.id))
  const added = more.filter((compaction) => !known.has(compaction.id))
  if (added.length === 0) return first
  return [...first, ...added].sort((a, b) => a.createdAt - b.createdAt)
}

/**
 * Loaded calls over those events brought: whichever is further along wins — an ended call over one
 * still under way (the load may have left before the event that ended it); else the event's.
 */
function mergeCalls(
  live: Record<string, ToolCallState>,
  loaded: ToolCallState[],
): Record<string, ToolCallState> {
  const calls = { ...live }
  for (const call of loaded) {
    const key = callKey(call.turnId, call.id)
    const known = calls[key]
    if (!known || (isFinished(call.status) && !isFinished(known.status))) calls[key] = call
  }
  return calls
}

function setTurn(turns: Turn[], id: string, change: Partial<Turn>): Turn[] {
  return turns.map((turn) => (turn.id === id ? { ...turn, ...change } : turn))
}

function updateDraft(
  state: ConversationState,
  turnId: string,
  change: (parts: AssistantPart[]) => AssistantPart[],
): ConversationState {
  const current = state.draft?.turnId === turnId ? state.draft : undefined
  const draft: Draft = { turnId, parts: change(current?.parts ?? []) }
  if (current?.usage) draft.usage = current.usage
  return { ...state, retry: null, draft }
}

function withToolCall(
  parts: AssistantPart[],
  id: string,
  change: (
    call: Extract<AssistantPart, { kind: 'tool_call' }>,
  ) => Extract<AssistantPart, { kind: 'tool_call' }>,
  name = '',
): AssistantPart[] {
  const index = parts.findIndex((part) => part.kind === 'tool_call' && part.id === id)
  if (index === -1) {
    return [...parts, change({ kind: 'tool_call', id, name, arguments: '', complete: false })]
  }
  return parts.map((part, at) => (at === index && part.kind === 'tool_call' ? change(part) : part))
}

function applyEvent(state: ConversationState, turnId: string, event: TurnEvent): ConversationState {
  switch (event.type) {
    case 'turn_started': {
      const exists = state.turns.some((turn) => turn.id === turnId)
      const turn: Turn = {
        id: turnId,
        chatId: event.chatId,
        status: 'running',
        error: null,
        errorCode: null,
        toolError: false,
        startedAt: Date.now(),
        endedAt: null,
      }
      return {
        ...state,
        // A retried turn starts again under its own id: it runs again, its failure is over.
        turns: exists
          ? setTurn(state.turns, turnId, { status: 'running', error: null, errorCode: null, endedAt: null })
          : [...state.turns, turn],
        draft: { turnId, parts: [] },
        starting: false,
        startFailure: null,
        retry: null,
        unavailableServers: [],
        compacting: null,
      }
    }
    case 'servers_unavailable':
      return { ...state, unavailableServers: event.servers }
    // The services it waited for show in the turn's tools; the wait itself is for `--json` readers.
    case 'services_discovered':
      return state
    case 'text_delta':
      return updateDraft(state, turnId, (parts) => {
        const last = parts.at(-1)
        if (last?.kind === 'text')
          return [...parts.slice(0, -1), { kind: 'text', text: last.text + event.text }]
        return [...parts, { kind: 'text', text: event.text }]
      })
    case 'web_search':
      return updateDraft(state, turnId, (parts) => [
        ...parts,
        { kind: 'web_search', queries: event.queries, sources: event.sources },
      ])
    case 'tool_call_started':
      return updateDraft(state, turnId, (parts) =>
        withToolCall(parts, event.id, (call) => ({ ...call, name: event.name }), event.name),
      )
    case 'tool_call_arguments_delta':
      return updateDraft(state, turnId, (parts) =>
        withToolCall(parts, event.id, (call) => ({ ...call, arguments: call.arguments + event.delta })),
      )
    case 'tool_call_completed':
      return updateDraft(state, turnId, (parts) =>
        withToolCall(
          parts,
          event.id,
          (call) => ({ ...call, name: event.name, arguments: event.arguments, complete: true }),
          event.name,
        ),
      )
    case 'tool_call': {
      const { call } = event
      return { ...state, retry: null, calls: { ...state.calls, [callKey(call.turnId, call.id)]: call } }
    }
    case 'tool_output': {
      const key = callKey(turnId, event.callId)
      return {
        ...state,
        retry: null,
        output: { ...state.output, [key]: addOutput(state.output[key], event.output) },
      }
    }
    case 'retry':
      return { ...state, retry: { attempt: event.attempt, delayMs: event.delayMs, message: event.message } }
    case 'message': {
      const { message } = event
      const known = state.messages.some((m) => m.id === message.id)
      const messages = known ? state.messages : [...state.messages, message]
      // A committed response replaces what streamed of it.
      const draft =
        message.role === 'assistant' && state.draft?.turnId === turnId ? { turnId, parts: [] } : state.draft
      return { ...state, messages, draft }
    }
    case 'turn_completed':
      return {
        ...state,
        turns: setTurn(state.turns, turnId, { status: event.status, endedAt: Date.now() }),
        draft: null,
        retry: null,
        starting: false,
        compacting: null,
      }
    case 'turn_error':
      return {
        ...state,
        turns: setTurn(state.turns, turnId, {
          status: event.status,
          error: event.message,
          errorCode: event.code,
          endedAt: Date.now(),
        }),
        draft: null,
        retry: null,
        starting: false,
        compacting: null,
      }
    case 'usage': {
      const parts = state.draft?.turnId === turnId ? state.draft.parts : []
      return { ...state, draft: { turnId, parts, usage: event.usage } }
    }
    case 'context':
      return { ...state, context: event.context }
    case 'compaction_started': {
      const { reason, tokensBefore, windowTokens } = event
      return { ...state, retry: null, compacting: { reason, tokensBefore, windowTokens } }
    }
    case 'compaction_completed':
      return {
        ...state,
        compacting: null,
        compactions: mergeCompactions(state.compactions, [event.compaction]),
      }
    // A subagent's events are its task card's own: the chat's gauge, draft and turns stay the parent's.
    case 'subagent': {
      const view = state.subagents[event.parentCallId] ?? {
        chatId: event.chatId,
        turnId: null,
        calls: [],
        states: {},
        output: {},
        usage: NO_USAGE,
        running: true,
      }
      return {
        ...state,
        subagents: { ...state.subagents, [event.parentCallId]: applySubagentEvent(view, event.event) },
      }
    }
  }
}

/** Output chunks of one stream run together. */
function addOutput(current: ShellChunk[] | undefined, output: OutputReport): ShellChunk[] {
  const chunks = current ?? []
  const last = chunks.at(-1)
  return last?.stream === output.stream
    ? [...chunks.slice(0, -1), { stream: last.stream, text: last.text + output.text }]
    : [...chunks, { stream: output.stream, text: output.text }]
}

export type Row =
  | { kind: 'user'; key: string; message: ChatMessage }
  | {
      kind: 'assistant'
      key: string
      turnId: string
      parts: AssistantPart[]
      live: boolean
      usage: Usage | undefined
      /** What the subagents of its `task` calls used, in all; absent when it ran none. */
      subagentUsage?: UsageTotal
      /**
       * On the last response of an ended turn of several responses or with subagents: what the
       * whole turn used, its subagents included.
       */
      turnUsage?: UsageTotal
    }
  /** Where the context was compacted: after the message it names. */
  | { kind: 'compaction'; key: string; compaction: Compaction }
  | { kind: 'turn_end'; key: string; turn: Turn; code: ErrorCode | undefined; latest: boolean }
  | { kind: 'start_failure'; key: string; failure: StartFailure }
  | { kind: 'working'; key: string; label: string }
  /** What a turn changed in the folder (its checkpoint): under the turn's last row. */
  | { kind: 'changes'; key: string; turnId: string }

/**
 * A message to bring into view (a search result's): a prompt or an answer by its id, a tool's result
 * by its call (the view has no tool messages: a call's card shows its result). `at` tells one
 * request from the next for the same message.
 */
export type RevealedMessage = Pick<ChatSearchResult, 'messageId' | 'turnId' | 'callId'> & { at: number }

/**
 * The key of the row that shows a message: a prompt's own row; an answer's row (keyed, as
 * `buildRows` keys it, by its place among its turn's responses); for a tool's result, the row of
 * the answer that made the call. A message without a row of its own (a response of nothing shown)
 * falls back to its turn's prompt. Undefined while its turn is not loaded.
 */
export function rowKeyOfMessage(
  messages: readonly ChatMessage[],
  target: RevealedMessage,
): string | undefined {
  const turn = messages.filter((message) => message.turnId === target.turnId)
  const responses = turn.filter((message) => message.role === 'assistant')
  const message = target.callId
    ? responses.find((each) =>
        each.parts.some((part) => part.type === 'tool_call' && part.id === target.callId),
      )
    : turn.find(({ id }) => id === target.messageId)
  if (message?.role === 'user') return message.id
  if (message && assistantParts(message).length > 0)
    return `r:${message.turnId}:${responses.indexOf(message)}`
  return turn.find((each) => each.role === 'user')?.id
}

/**
 * The tokens the subagents of a response's `task` calls used: their result's count once ended, the
 * live count while they run.
 */
function subagentUsage(
  state: ConversationState,
  turnId: string,
  parts: AssistantPart[],
): UsageTotal | undefined {
  let total: UsageTotal | undefined
  for (const part of parts) {
    if (part.kind !== 'tool_call' || part.name !== 'task') continue
    const display = state.calls[callKey(turnId, part.id)]?.result?.display
    const usage = display?.kind === 'subagent' ? display.usage : state.subagents[part.id]?.usage
    if (usage) total = addUsage(total ?? NO_USAGE, usage)
  }
  return total
}

/** Parts by message, so a committed row keeps the same props (and skips rendering) while others stream. */
const partsCache = new WeakMap<ChatMessage, AssistantPart[]>()

function assistantParts(message: ChatMessage): AssistantPart[] {
  const cached = partsCache.get(message)
  if (cached) return cached
  const parts = message.parts.flatMap((part): AssistantPart[] => {
    if (part.type === 'text') return part.text.trim() ? [{ kind: 'text', text: part.text }] : []
    if (part.type === 'tool_call') {
      return [{ kind: 'tool_call', id: part.id, name: part.name, arguments: part.arguments, complete: true }]
    }
    if (part.type === 'web_search')
      return [{ kind: 'web_search', queries: part.queries, sources: part.sources }]
    if (part.type === 'citations')
      return part.sources.length > 0 ? [{ kind: 'citations', sources: part.sources }] : []
    return []
  })
  partsCache.set(message, parts)
  return parts
}

/**
 * What the whole conversation used, as it shows: every response, its subagents' and its approved
 * sampling requests' included, a fork's copied history too.
 */
export function conversationUsage(
  messages: ConversationState['messages'],
  calls: ConversationState['calls'],
): UsageTotal {
  let total = NO_USAGE
  for (const message of messages) {
    if (message.usage) total = addUsage(total, responseTotal(message.usage))
  }
  for (const call of Object.values(calls)) {
    const display = call.result?.display
    if (display?.kind === 'subagent') total = addUsage(total, display.usage)
    for (const { usage } of call.decisions) if (usage) total = addUsage(total, responseTotal(usage))
  }
  return total
}

export function runningTurn(state: ConversationState): Turn | undefined {
  return state.turns.findLast((turn) => turn.status === 'running')
}

/**
 * The list's rows, in order. Responses are keyed by their place in their turn, so the streaming row
 * and the committed message that replaces it share a key (and a measured height).
 */
export function buildRows(state: ConversationState): Row[] {
  const rows: Row[] = []
  const turnsById = new Map(state.turns.map((turn) => [turn.id, turn]))
  const lastTurn = state.turns.at(-1)
  const responseIndex = new Map<string, number>()
  const endTurn = (turnId: string | undefined) => {
    const turn = turnId === undefined ? undefined : turnsById.get(turnId)
    if (!turn || turn.status === 'running' || turn.status === 'completed') return
    rows.push({
      kind: 'turn_end',
      key: `end:${turn.id}`,
      turn,
      code: turn.errorCode ?? undefined,
      latest: turn.id === lastTurn?.id && !state.startFailure,
    })
  }
  const markers = new Map<string, Compaction[]>()
  for (const compaction of state.compactions)
    markers.set(compaction.afterMessageId, [...(markers.get(compaction.afterMessageId) ?? []), compaction])
  const marker = (compaction: Compaction): Row => ({
    kind: 'compaction',
    key: `compaction:${compaction.id}`,
    compaction,
  })
  // "Compact now" happened after its turn ended: its marker follows the turn's ending.
  let between: Compaction[] = []
  const flushBetween = () => {
    for (const compaction of between) rows.push(marker(compaction))
    between = []
  }
  const turnUsage = new Map<string, { total: UsageTotal; responses: number; subagents: boolean }>()
  const lastResponse = new Map<string, Extract<Row, { kind: 'assistant' }>>()
  let currentTurn: string | undefined
  for (const message of state.messages) {
    if (message.turnId !== currentTurn) {
      endTurn(currentTurn)
      flushBetween()
      currentTurn = message.turnId
    }
    if (message.role === 'user') {
      rows.push({ kind: 'user', key: message.id, message })
    } else if (message.role === 'assistant') {
      const index = responseIndex.get(message.turnId) ?? 0
      responseIndex.set(message.turnId, index + 1)
      const parts = assistantParts(message)
      const subagents = subagentUsage(state, message.turnId, parts)
      const turn = turnUsage.get(message.turnId) ?? { total: NO_USAGE, responses: 0, subagents: false }
      turnUsage.set(message.turnId, {
        total: addUsage(
          addUsage(turn.total, message.usage ? responseTotal(message.usage) : NO_USAGE),
          subagents ?? NO_USAGE,
        ),
        responses: turn.responses + 1,
        subagents: turn.subagents || subagents !== undefined,
      })
      if (parts.length > 0) {
        const row = {
          kind: 'assistant' as const,
          key: `r:${message.turnId}:${index}`,
          turnId: message.turnId,
          parts,
          live: false,
          usage: message.usage,
          subagentUsage: subagents,
        }
        rows.push(row)
        lastResponse.set(message.turnId, row)
      }
    }
    for (const compaction of markers.get(message.id) ?? []) {
      if (compaction.turnId === null) between.push(compaction)
      else rows.push(marker(compaction))
    }
    markers.delete(message.id)
  }
  endTurn(currentTurn)
  flushBetween()
  for (const [turnId, row] of lastResponse) {
    const used = turnUsage.get(turnId)
    const ended = turnsById.get(turnId)?.status !== 'running'
    if (used && ended && (used.responses > 1 || used.subagents)) row.turnUsage = used.total
  }
  // Compactions after a message not loaded yet (it is on its way): at the end, for now.
  for (const compactions of markers.values())
    for (const compaction of compactions) rows.push(marker(compaction))
  const { draft } = state
  if (draft && draft.parts.length > 0) {
    const index = responseIndex.get(draft.turnId) ?? 0
    rows.push({
      kind: 'assistant',
      key: `r:${draft.turnId}:${index}`,
      turnId: draft.turnId,
      parts: draft.parts,
      live: true,
      usage: draft.usage,
    })
  }
  const running = runningTurn(state)
  const callsOfTurn = running ? Object.values(state.calls).filter((call) => call.turnId === running.id) : []
  const waitingOnPerson = callsOfTurn.some(
    (call) => call.status === 'awaiting_approval' || call.status === 'awaiting_input',
  )
  if (running && state.compacting) {
    rows.push({ kind: 'working', key: 'working', label: 'Compacting context…' })
  } else if ((state.starting || running) && !waitingOnPerson) {
    const waitingOnTools =
      callsOfTurn.some((call) => !isFinished(call.status)) ||
      state.messages.some(
        (message) =>
          message.turnId === running?.id &&
          message.parts.some(
            (part) => part.type === 'tool_call' && !state.calls[callKey(message.turnId, part.id)],
          ),
      )
    const streaming = draft !== null && draft.parts.length > 0
    if (!streaming && !waitingOnTools) rows.push({ kind: 'working', key: 'working', label: 'Thinking…' })
  }
  if (state.startFailure)
    rows.push({ kind: 'start_failure', key: 'start-failure', failure: state.startFailure })
  return rows
}

/** The turn a row belongs to; none for rows between turns (a marker after one, the working line). */
function turnOfRow(row: Row): string | undefined {
  switch (row.kind) {
    case 'user':
      return row.message.turnId
    case 'assistant':
    case 'changes':
      return row.turnId
    case 'turn_end':
      return row.turn.id
    case 'compaction':
      return row.compaction.turnId ?? undefined
    default:
      return undefined
  }
}

/**
 * `rows` with a Changes row after the last row of each turn in `turnIds` (the turns whose
 * checkpoint changed something), before whatever comes between it and the next turn.
 */
export function withChangesRows(rows: Row[], turnIds: ReadonlySet<string>): Row[] {
  if (turnIds.size === 0) return rows
  const result: Row[] = []
  let current: string | undefined
  const closeTurn = () => {
    if (current !== undefined && turnIds.has(current))
      result.push({ kind: 'changes', key: `changes:${current}`, turnId: current })
    current = undefined
  }
  for (const row of rows) {
    const turn = turnOfRow(row)
    if (turn !== current) closeTurn()
    current = turn
    result.push(row)
  }
  closeTurn()
  return result
}

/** The prompt of the latest turn, for Retry. */
export function lastPrompt(state: ConversationState): string | undefined {
  if (state.startFailure) return state.startFailure.prompt
  const message = state.messages.findLast((m) => m.role === 'user')
  const text = message?.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
  return text || undefined
}

/** The live plan as the turn last set it: its steps, and why, when the model said. */
export interface LivePlanView {
  steps: PlanStep[]
  explanation?: string
}

/**
 * The running turn's latest plan — the last update_plan, or an approved plan's steps until the
 * model sends one — for the checklist pinned above the composer; undefined when it has none.
 */
export function latestPlan(state: ConversationState): LivePlanView | undefined {
  const running = runningTurn(state)
  if (!running) return undefined
  let latest: { at: number; plan: LivePlanView } | undefined
  for (const call of Object.values(state.calls)) {
    const display = call.turnId === running.id ? call.result?.display : undefined
    const at = call.endedAt ?? 0
    if (latest && at < latest.at) continue
    if (display?.kind === 'plan') {
      latest = {
        at,
        plan: { steps: display.steps, ...(display.explanation && { explanation: display.explanation }) },
      }
    } else if (display?.kind === 'proposed-plan' && display.approvedMode && display.steps.length > 0) {
      latest = { at, plan: { steps: display.steps } }
    }
  }
  return latest?.plan
}
