/**
 * One agent turn: stream the model's response, hand the tool calls it made to the scheduler, feed
 * the results back in call order, and go again until the model answers in text — committing each
 * message the moment it is complete, so a crash loses nothing that was shown as done.
 */
import type {
  ChatMessage,
  CitationsPart,
  MessagePart,
  MessageRole,
  OpaquePart,
  StopReason,
  TextPart,
  ToolCallPart,
  TurnError,
  TurnEvent,
  TurnStatus,
  WebSearchPart,
} from '../../src-shared/agent'
import { type ErrorCode, errorMessage } from '../../src-shared/errors'
import { type DefaultPrice, priced } from '../../src-shared/prices'
import type { Usage } from '../../src-shared/usage'
import { isContextOverflow, ProviderError } from '../providers/provider-error'
import { type RetryPolicy, streamWithRetry } from '../providers/retry'
import type { ModelRequest, ProviderAdapter } from '../providers/types'
import type { ToolProjection } from '../tools/projection'
import type { ToolScheduler } from '../tools/scheduler/scheduler'
import type { TurnContext } from './context/turn-context'

/** The same call with the same arguments this many times in a row means the model is stuck. */
export const REPEATED_CALL_LIMIT = 5

export interface TurnLoopSetup {
  /** The conversation so far, the new prompt included. */
  history: ChatMessage[]
  adapter: ProviderAdapter
  /** Builds each request, compacting the conversation first when it would not fit. */
  context: TurnContext
  /** What the model is offered. */
  tools: Pick<ToolProjection, 'definitions'>
  maxIterations: number
  /** Runs each response's tool calls (and knows their state). */
  scheduler: ToolScheduler
  retry?: RetryPolicy
  /** The model's price: each response's usage carries its cost. None known: tokens only. */
  price?: DefaultPrice
  signal: AbortSignal
  /** Commits one message; it is in the database when this returns. */
  commit(role: MessageRole, parts: MessagePart[], usage?: Usage): ChatMessage
  emit(event: TurnEvent): void
}

export interface TurnOutcome {
  status: Exclude<TurnStatus, 'running' | 'interrupted'>
  /** Why a failed turn failed, in words for the person. */
  error?: TurnError
}

type ResponsePart = TextPart | ToolCallPart | OpaquePart | WebSearchPart | CitationsPart

export async function runTurnLoop(setup: TurnLoopSetup): Promise<TurnOutcome> {
  const { signal, maxIterations } = setup
  const history = [...setup.history]
  const recentCalls: string[] = []
  const commit = (role: MessageRole, parts: MessagePart[], usage?: Usage) => {
    const message = setup.commit(role, parts, usage)
    history.push(message)
    setup.emit({ type: 'message', message })
    return message
  }

  try {
    for (let iteration = 1; ; iteration++) {
      if (iteration > maxIterations) {
        return failed(
          'max_iterations',
          `Stopped after ${maxIterations} model responses without a final answer (the limit in Settings). Ask to continue if the work should go on.`,
        )
      }
      const { parts, stopReason } = await respond(setup, history, (p, usage) => commit('assistant', p, usage))
      if (signal.aborted) return { status: 'stopped' }
      const calls = parts.filter((part): part is ToolCallPart => part.type === 'tool_call')
      if (calls.length === 0) {
        if (stopReason === 'max_tokens') {
          return failed('max_tokens', 'The model reached its output limit before finishing its answer.')
        }
        return { status: 'completed' }
      }

      const repeated = calls.find((call) => repeatsTooOften(recentCalls, call))
      if (repeated) {
        history.push(
          ...setup.scheduler.refuse(calls, 'The turn was stopped: this call repeated without progress.'),
        )
        return failed(
          'repeated_call',
          `The model called ${repeated.name} with the same arguments ${REPEATED_CALL_LIMIT} times in a row, so the turn was stopped.`,
        )
      }

      const { results, fatal } = await setup.scheduler.run(calls)
      history.push(...results)
      if (fatal) {
        return failed(
          'fatal_tool_error',
          `${fatal.name} failed in a way the model cannot fix: ${fatal.message}`,
        )
      }
      if (signal.aborted) return { status: 'stopped' }
    }
  } catch (error) {
    if (signal.aborted) return { status: 'stopped' }
    if (isContextOverflow(error)) {
      return failed(
        error.code,
        `${error.message} Compacting the conversation did not make it fit. Set a smaller context window for this provider in Settings → Providers, start a new chat, or choose a model with a larger window.`,
      )
    }
    if (ProviderError.isInstance(error)) return failed(error.code, error.message)
    return failed('internal', `The turn failed: ${errorMessage(error)}`)
  }
}

function failed(code: ErrorCode, message: string): TurnOutcome {
  return { status: 'failed', error: { code, message } }
}

/**
 * One model response: the request built (and the conversation compacted first if need be), then
 * streamed. A refusal as longer than the context window compacts and tries once more.
 */
async function respond(
  setup: TurnLoopSetup,
  history: ChatMessage[],
  commit: (parts: MessagePart[], usage?: Usage) => void,
): Promise<{ parts: ResponsePart[]; stopReason: StopReason | undefined }> {
  const request = await setup.context.request(history)
  try {
    return await streamResponse(setup, request, commit)
  } catch (error) {
    if (!isContextOverflow(error) || setup.signal.aborted) throw error
    return await streamResponse(setup, await setup.context.afterOverflow(history, error), commit)
  }
}

/**
 * Streams one response, building its parts in the order they came. What arrived is committed even
 * when the stream fails or is stopped: the person saw it, so the conversation keeps it.
 */
async function streamResponse(
  setup: TurnLoopSetup,
  request: ModelRequest,
  commit: (parts: MessagePart[], usage?: Usage) => void,
): Promise<{ parts: ResponsePart[]; stopReason: StopReason | undefined }> {
  const { adapter, emit } = setup
  const parts: ResponsePart[] = []
  let text: TextPart | undefined
  let citations: CitationsPart | undefined
  let stopReason: StopReason | undefined
  let usage: Usage | undefined
  const onRetry = (notice: { attempt: number; delayMs: number; message: string }) =>
    emit({ type: 'retry', ...notice })
  try {
    for await (const event of streamWithRetry(adapter, request, setup.signal, setup.retry, onRetry)) {
      switch (event.type) {
        case 'text_delta':
          if (!text) {
            text = { type: 'text', text: '' }
            parts.push(text)
          }
          text.text += event.text
          emit(event)
          break
        case 'tool_call_completed': {
          const { id, name, arguments: args, providerData } = event
          parts.push({
            type: 'tool_call',
            id,
            name,
            arguments: args,
            ...(providerData !== undefined && { providerData }),
          })
          text = undefined
          emit({ type: 'tool_call_completed', id, name, arguments: args })
          break
        }
        case 'opaque':
          parts.push({ type: 'opaque', provider: adapter.kind, item: event.item })
          text = undefined
          break
        case 'web_search':
          parts.push({
            type: 'web_search',
            provider: adapter.kind,
            queries: event.queries,
            sources: event.sources,
          })
          text = undefined
          emit(event)
          break
        case 'citations':
          // One list of the response's cited pages, each once, however many times the text cites it.
          if (!citations) {
            citations = { type: 'citations', sources: [] }
            parts.push(citations)
          }
          for (const source of event.sources) {
            if (!citations.sources.some(({ url }) => url === source.url)) citations.sources.push(source)
          }
          break
        case 'usage':
          usage = priced(event.usage, setup.price)
          emit({ type: 'usage', usage })
          break
        case 'done':
          stopReason = event.stopReason
          break
        default:
          emit(event)
      }
    }
  } finally {
    if (parts.length > 0) commit(parts, usage)
  }
  setup.context.observe(request, usage)
  return { parts, stopReason }
}

/** Records the call; true when it is the last of REPEATED_CALL_LIMIT identical calls in a row. */
function repeatsTooOften(recent: string[], call: ToolCallPart): boolean {
  recent.push(`${call.name}\u0000${canonicalArguments(call.arguments)}`)
  if (recent.length > REPEATED_CALL_LIMIT) recent.shift()
  return recent.length === REPEATED_CALL_LIMIT && recent.every((signature) => signature === recent[0])
}

/** Arguments compared by meaning: key order and spacing do not make a call different. */
function canonicalArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), (_key, value: unknown) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
        : value,
    )
  } catch {
    return text
  }
}
