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
  ToolResultPart,
  Turn,
  TurnEvent,
  Usage,
} from '../../../../src-shared/agent'
import type { ApprovalOutcome, ApprovalRequest } from '../../../../src-shared/approvals'
import type {
  ElicitationAction,
  ElicitationContent,
  ElicitationRequest,
} from '../../../../src-shared/elicitation'
import type { CountedProgress } from '../../../../src-shared/progress'
import type { ToolProgress } from '../../../../src-shared/tools'
import type { ComposerAttachment } from './attachments'

/**
 * A tool result as the card shows it: what the model read and the typed fields about it. A committed
 * part serves as it is; results stored before `truncated` and `display` were kept lack them.
 */
export type ToolResultView = Pick<
  ToolResultPart,
  'content' | 'isError' | 'errorType' | 'truncated' | 'durationMs' | 'display'
>

export type ShellChunk = Pick<Extract<ToolProgress, { kind: 'output' }>, 'stream' | 'text'>

export type ImageOutcome = Extract<ToolProgress, { kind: 'image' }>

/** A custom tool's partial result: its text, and its render hooks' Markdown of the call and of it. */
export type PartialResult = Omit<Extract<ToolProgress, { kind: 'partial' }>, 'kind'>

/**
 * What a running call has reported so far, by kind: its output, its images, its latest count, its
 * latest partial result.
 */
export interface ToolCallProgress {
  output: ShellChunk[]
  images: ImageOutcome[]
  counted?: CountedProgress
  partial?: PartialResult
}

export interface ToolCallView {
  id: string
  name: string
  arguments: string
  /** false while the model is still writing the arguments. */
  complete: boolean
}

export type AssistantPart = { kind: 'text'; text: string } | ({ kind: 'tool_call' } & ToolCallView)

/** An approval card: waiting while `outcome` is absent, then a one-line outcome for the session. */
export interface ApprovalView {
  request: ApprovalRequest
  outcome?: ApprovalOutcome
}

/** An MCP server's question: a form while `outcome` is absent, then a one-line summary of the answer. */
export interface ElicitationView {
  request: ElicitationRequest
  outcome?: { action: ElicitationAction; content?: ElicitationContent }
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
  code: string
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
  /** Error codes of failed turns, as `turn_error` reported them (the stored turn keeps the message only). */
  errorCodes: Record<string, string>
  /** The running response: what has streamed since the last committed assistant message. */
  draft: Draft | null
  /** Results as `tool_result` events reported them, by call id; the committed part is preferred. */
  liveResults: Record<string, ToolResultView>
  progress: Record<string, ToolCallProgress>
  retry: RetryNotice | null
  /** MCP servers the running or last turn could not reach, with why. */
  unavailableServers: { name: string; error: string }[]
  startFailure: StartFailure | null
  /** Between Send and the turn's first event (or its refusal). */
  starting: boolean
  /** The approval cards of this session, oldest first. */
  approvals: ApprovalView[]
  /**
   * Ids of cards known to be over, so a list of waiting cards fetched before they ended does not
   * bring them back.
   */
  settledApprovals: ReadonlySet<string>
  /** MCP servers' questions of this session, oldest first. */
  elicitations: ElicitationView[]
  /** Ids of questions known to be answered, as `settledApprovals` is for cards. */
  settledElicitations: ReadonlySet<string>
}

export const initialConversation: ConversationState = {
  loaded: false,
  loadError: null,
  messages: [],
  turns: [],
  compactions: [],
  context: null,
  compacting: null,
  errorCodes: {},
  draft: null,
  liveResults: {},
  progress: {},
  retry: null,
  unavailableServers: [],
  startFailure: null,
  starting: false,
  approvals: [],
  settledApprovals: new Set(),
  elicitations: [],
  settledElicitations: new Set(),
}

export type ConversationAction =
  | { type: 'loaded'; messages: ChatMessage[]; turns: Turn[]; compactions: Compaction[] }
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
  /** `approvals.pending` answered: the cards still waiting (after a reload, say). */
  | { type: 'approvals_loaded'; requests: ApprovalRequest[] }
  /** This window's answer was taken (or came too late): the card ends without waiting for the event. */
  | { type: 'approval_settled'; id: string; outcome: ApprovalOutcome }
  /** `elicitations.pending` answered: the servers' questions still waiting. */
  | { type: 'elicitations_loaded'; requests: ElicitationRequest[] }
  /** This window's answer was taken (or came too late): the form folds without waiting for the event. */
  | { type: 'elicitation_settled'; id: string; outcome: NonNullable<ElicitationView['outcome']> }

export function conversationReducer(state: ConversationState, action: ConversationAction): ConversationState {
  switch (action.type) {
    case 'loaded':
      return {
        ...state,
        ...merge(state, action.messages, action.turns),
        compactions: mergeCompactions(action.compactions, state.compactions),
        loaded: true,
        loadError: null,
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
    case 'approvals_loaded': {
      const known = new Set(state.approvals.map((card) => card.request.id))
      const fresh = action.requests.filter(
        (request) => !known.has(request.id) && !state.settledApprovals.has(request.id),
      )
      return fresh.length === 0
        ? state
        : { ...state, approvals: [...state.approvals, ...fresh.map((request) => ({ request }))] }
    }
    case 'approval_settled':
      return settleApprovals(state, (card) => card.request.id === action.id, action.outcome)
    case 'elicitations_loaded': {
      const known = new Set(state.elicitations.map((card) => card.request.id))
      const fresh = action.requests.filter(
        (request) => !known.has(request.id) && !state.settledElicitations.has(request.id),
      )
      return fresh.length === 0
        ? state
        : { ...state, elicitations: [...state.elicitations, ...fresh.map((request) => ({ request }))] }
    }
    case 'elicitation_settled':
      return settleElicitations(state, (card) => card.request.id === action.id, action.outcome)
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

/** Ends the waiting cards that `which` picks with `outcome`; cards already over keep theirs. */
function settleApprovals(
  state: ConversationState,
  which: (card: ApprovalView) => boolean,
  outcome: ApprovalOutcome,
): ConversationState {
  const ending = state.approvals.filter((card) => card.outcome === undefined && which(card))
  if (ending.length === 0) return state
  const settledApprovals = new Set(state.settledApprovals)
  for (const card of ending) settledApprovals.add(card.request.id)
  return {
    ...state,
    approvals: state.approvals.map((card) => (ending.includes(card) ? { ...card, outcome } : card)),
    settledApprovals,
  }
}

/** Ends the waiting questions that `which` picks with `outcome`; answered ones keep theirs. */
function settleElicitations(
  state: ConversationState,
  which: (card: ElicitationView) => boolean,
  outcome: NonNullable<ElicitationView['outcome']>,
): ConversationState {
  const ending = state.elicitations.filter((card) => card.outcome === undefined && which(card))
  if (ending.length === 0) return state
  const settledElicitations = new Set(state.settledElicitations)
  for (const card of ending) settledElicitations.add(card.request.id)
  return {
    ...state,
    elicitations: state.elicitations.map((card) => (ending.includes(card) ? { ...card, outcome } : card)),
    settledElicitations,
  }
}

/** A turn that ended took its waiting cards (and the servers' questions: cancelled) with it. */
function cancelWaiting(state: ConversationState): ConversationState {
  return settleElicitations(
    settleApprovals(state, () => true, 'cancelled'),
    () => true,
    {
      action: 'cancel',
    },
  )
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
        startedAt: Date.now(),
        endedAt: null,
      }
      return {
        ...state,
        // A retried turn starts again under its own id: it runs again, its failure is over.
        turns: exists
          ? setTurn(state.turns, turnId, { status: 'running', error: null, endedAt: null })
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
    case 'text_delta':
      return updateDraft(state, turnId, (parts) => {
        const last = parts.at(-1)
        if (last?.kind === 'text')
          return [...parts.slice(0, -1), { kind: 'text', text: last.text + event.text }]
        return [...parts, { kind: 'text', text: event.text }]
      })
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
    case 'tool_progress':
      return {
        ...state,
        retry: null,
        progress: { ...state.progress, [event.id]: addProgress(state.progress[event.id], event.progress) },
      }
    case 'tool_result': {
      const { content, isError, errorType, truncated, durationMs, display } = event
      return {
        ...state,
        liveResults: {
          ...state.liveResults,
          [event.id]: {
            content,
            isError,
            ...(errorType && { errorType }),
            truncated,
            durationMs,
            ...(display && { display }),
          },
        },
      }
    }
    case 'retry':
      return { ...state, retry: { attempt: event.attempt, delayMs: event.delayMs, message: event.message } }
    case 'approval_requested': {
      const { request } = event
      if (state.settledApprovals.has(request.id) || state.approvals.some((c) => c.request.id === request.id))
        return state
      return { ...state, approvals: [...state.approvals, { request }] }
    }
    case 'approval_resolved': {
      const known = state.approvals.some((card) => card.request.id === event.id)
      if (!known) return { ...state, settledApprovals: new Set(state.settledApprovals).add(event.id) }
      // The event has the last word: another window may have answered first.
      return {
        ...state,
        approvals: state.approvals.map((card) =>
          card.request.id === event.id ? { ...card, outcome: event.outcome } : card,
        ),
        settledApprovals: new Set(state.settledApprovals).add(event.id),
      }
    }
    case 'elicitation_requested': {
      const { request } = event
      if (
        state.settledElicitations.has(request.id) ||
        state.elicitations.some((card) => card.request.id === request.id)
      )
        return state
      return { ...state, elicitations: [...state.elicitations, { request }] }
    }
    case 'elicitation_resolved': {
      const outcome = { action: event.action, ...(event.content && { content: event.content }) }
      const settledElicitations = new Set(state.settledElicitations).add(event.id)
      // The event has the last word: another window may have answered first.
      return {
        ...state,
        elicitations: state.elicitations.map((card) =>
          card.request.id === event.id ? { ...card, outcome } : card,
        ),
        settledElicitations,
      }
    }
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
        ...cancelWaiting(state),
        turns: setTurn(state.turns, turnId, { status: event.status, endedAt: Date.now() }),
        draft: null,
        retry: null,
        starting: false,
        compacting: null,
      }
    case 'turn_error':
      return {
        ...cancelWaiting(state),
        turns: setTurn(state.turns, turnId, {
          status: event.status,
          error: event.message,
          endedAt: Date.now(),
        }),
        errorCodes: { ...state.errorCodes, [turnId]: event.code },
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
  }
}

/**
 * Output chunks of one stream run together; an image's outcome replaces an earlier one of it; a
 * partial result replaces the one before.
 */
function addProgress(current: ToolCallProgress | undefined, progress: ToolProgress): ToolCallProgress {
  const base = current ?? { output: [], images: [] }
  switch (progress.kind) {
    case 'output': {
      const last = base.output.at(-1)
      const output =
        last?.stream === progress.stream
          ? [...base.output.slice(0, -1), { stream: last.stream, text: last.text + progress.text }]
          : [...base.output, { stream: progress.stream, text: progress.text }]
      return { ...base, output }
    }
    case 'image': {
      const images = [...base.images.filter((i) => i.image !== progress.image), progress].sort(
        (a, b) => a.image - b.image,
      )
      return { ...base, images }
    }
    case 'progress':
      return { ...base, counted: progress }
    case 'partial': {
      const { kind: _kind, ...partial } = progress
      return { ...base, partial }
    }
  }
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
    }
  /** Where the context was compacted: after the message it names. */
  | { kind: 'compaction'; key: string; compaction: Compaction }
  | { kind: 'turn_end'; key: string; turn: Turn; code: string | undefined; latest: boolean }
  | { kind: 'start_failure'; key: string; failure: StartFailure }
  | { kind: 'working'; key: string; label: string }
  /** A card whose tool call is not on screen (yet): it still shows, at the end. */
  | { kind: 'approval'; key: string; card: ApprovalView }
  /** A server's question whose tool call is not on screen (yet). */
  | { kind: 'elicitation'; key: string; card: ElicitationView }

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
    return []
  })
  partsCache.set(message, parts)
  return parts
}

/** Every tool result of the conversation by call id: committed ones, then those only an event has told. */
export function collectResults(
  messages: ChatMessage[],
  liveResults: Record<string, ToolResultView>,
): Map<string, ToolResultView> {
  const results = new Map<string, ToolResultView>()
  for (const message of messages) {
    if (message.role !== 'tool') continue
    for (const part of message.parts) {
      // The part itself, so a card's props stay the same object while other rows stream.
      if (part.type === 'tool_result') results.set(part.callId, part)
    }
  }
  for (const [id, live] of Object.entries(liveResults)) if (!results.has(id)) results.set(id, live)
  return results
}

export function runningTurn(state: ConversationState): Turn | undefined {
  return state.turns.findLast((turn) => turn.status === 'running')
}

/**
 * The list's rows, in order. Responses are keyed by their place in their turn, so the streaming row
 * and the committed message that replaces it share a key (and a measured height).
 */
export function buildRows(state: ConversationState, results: Map<string, ToolResultView>): Row[] {
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
      code: state.errorCodes[turn.id],
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
      if (parts.length > 0) {
        rows.push({
          kind: 'assistant',
          key: `r:${message.turnId}:${index}`,
          turnId: message.turnId,
          parts,
          live: false,
          usage: message.usage,
        })
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
  const shownCalls = new Set(
    rows.flatMap((row) =>
      row.kind === 'assistant'
        ? row.parts.flatMap((part) => (part.kind === 'tool_call' ? [part.id] : []))
        : [],
    ),
  )
  for (const card of state.approvals) {
    if (!shownCalls.has(card.request.callId))
      rows.push({ kind: 'approval', key: `approval:${card.request.id}`, card })
  }
  for (const card of state.elicitations) {
    if (!shownCalls.has(card.request.callId))
      rows.push({ kind: 'elicitation', key: `elicitation:${card.request.id}`, card })
  }
  const running = runningTurn(state)
  const waitingOnPerson =
    state.approvals.some((card) => card.outcome === undefined) ||
    state.elicitations.some((card) => card.outcome === undefined)
  if (running && state.compacting) {
    rows.push({ kind: 'working', key: 'working', label: 'Compacting context…' })
  } else if ((state.starting || running) && !waitingOnPerson) {
    const waitingOnTools = state.messages.some(
      (message) =>
        message.turnId === running?.id &&
        message.parts.some((part) => part.type === 'tool_call' && !results.has(part.id)),
    )
    const streaming = draft !== null && draft.parts.length > 0
    if (!streaming && !waitingOnTools) rows.push({ kind: 'working', key: 'working', label: 'Thinking…' })
  }
  if (state.startFailure)
    rows.push({ kind: 'start_failure', key: 'start-failure', failure: state.startFailure })
  return rows
}

/** The cards by the call they belong to, shown with that call's card. */
export function approvalsByCall(approvals: ApprovalView[]): Map<string, ApprovalView[]> {
  const byCall = new Map<string, ApprovalView[]>()
  for (const card of approvals)
    byCall.set(card.request.callId, [...(byCall.get(card.request.callId) ?? []), card])
  return byCall
}

/** The servers' questions by the call they came during, shown under that call's card. */
export function elicitationsByCall(elicitations: ElicitationView[]): Map<string, ElicitationView[]> {
  const byCall = new Map<string, ElicitationView[]>()
  for (const card of elicitations)
    byCall.set(card.request.callId, [...(byCall.get(card.request.callId) ?? []), card])
  return byCall
}

/** The card that may be answered now: the oldest one waiting; the rest queue behind it. */
export function activeApproval(approvals: ApprovalView[]): string | undefined {
  return approvals.find((card) => card.outcome === undefined)?.request.id
}

/** The prompt of the latest turn, for Retry. */
export function lastPrompt(state: ConversationState): string | undefined {
  if (state.startFailure) return state.startFailure.prompt
  const message = state.messages.findLast((m) => m.role === 'user')
  const text = message?.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
  return text || undefined
}
