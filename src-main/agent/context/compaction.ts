/**
 * Making a conversation fit its model's context window, cheapest step first:
 * (a) elide: the results of older tool calls reach the model as one-line stubs (the person still
 *     sees them in full); the calls of the latest response keep theirs;
 * (b) summarize: if that is not enough, the older part is summarized by the same provider and
 *     model, and the model sees the summary and the recent part verbatim;
 * (c) last resort: when even the latest response's results pass the window, they are elided too,
 *     and the stub tells the model to ask for less.
 * Each step only ever grows what is elided or summarized, so what the model saw stays stable
 * (and cacheable) from one request to the next.
 */
import type { ChatMessage } from '../../../src-shared/agent'
import type { AttachedContent } from '../../../src-shared/attachments'
import { providerFailure } from '../../providers/provider-error'
import { type RetryPolicy, streamWithRetry } from '../../providers/retry'
import type { ModelRequest, ProviderAdapter } from '../../providers/types'
import {
  EMPTY_VIEW,
  indexOf,
  modelView,
  type RequestShape,
  requestChars,
  startOf,
  type TokenEstimator,
  type ViewState,
} from './view'

export interface Budget {
  /** The model's context window, in tokens. */
  window: number
  /** Compaction starts past this many tokens. */
  threshold: number
  estimator: TokenEstimator
  system: string
  tools: RequestShape['tools']
}

/** After compacting, aim this far under the threshold, so the next few responses fit without another. */
const TARGET_SHARE_OF_THRESHOLD = 0.6
/** The recent part a summary leaves verbatim: at most this share of the window (the latest response always). */
const RECENT_SHARE_OF_WINDOW = 0.4

export interface CompactionPlan {
  state: ViewState
  tokensBefore: number
  tokensAfter: number
  /** Set when this compaction summarized. */
  summarizedThrough: string | null
  summary: string | null
}

/** Writes the summary of `older` (after `previous`, the summary so far). */
export type Summarize = (older: readonly ChatMessage[], previous: string | null) => Promise<string>

export function estimate(history: readonly ChatMessage[], state: ViewState, budget: Budget): number {
  const messages = modelView(history, state)
  return budget.estimator.tokens(requestChars({ system: budget.system, tools: budget.tools, messages }))
}

/**
 * Compacts when the next request would pass the threshold (or, `force`d, in any case: after a
 * provider refused the request as too long). Undefined when nothing needed doing or nothing could;
 * `onStart` is called once it is clear something will change, before a summary is asked for.
 */
export async function compactToFit(
  history: readonly ChatMessage[],
  state: ViewState,
  budget: Budget,
  summarize: Summarize,
  { force = false, onStart }: { force?: boolean; onStart?: (tokensBefore: number) => void } = {},
): Promise<CompactionPlan | undefined> {
  const tokensBefore = estimate(history, state, budget)
  if (!force && tokensBefore <= budget.threshold) return undefined
  const target = Math.floor(budget.threshold * TARGET_SHARE_OF_THRESHOLD)
  const latest = latestResponse(history)
  let next = elide(history, state, budget, target, latest)
  const needsSummary = force || estimate(history, next, budget) > budget.threshold
  const split = needsSummary ? splitForSummary(history, next, budget, latest) : undefined
  if (split === undefined) {
    next = lastResortIfNeeded(history, next, budget)
    if (sameView(next, state)) return undefined
  }
  onStart?.(tokensBefore)
  let summarizedThrough: string | null = null
  let summary: string | null = null
  if (split !== undefined) {
    summary = await summarize(history.slice(startOf(history, next), split), next.summary)
    summarizedThrough = (history[split - 1] as ChatMessage).id
    const summarized = { ...next, summarizedThrough, summary }
    next = lastResortIfNeeded(history, elide(history, summarized, budget, target, latest), budget)
  }
  return {
    state: next,
    tokensBefore,
    tokensAfter: estimate(history, next, budget),
    summarizedThrough,
    summary,
  }
}

/**
 * "Compact now": everything before the latest prompt summarized; undefined when there is nothing
 * before it, or when the summary would not make the request smaller.
 */
export async function compactAllButLatest(
  history: readonly ChatMessage[],
  state: ViewState,
  budget: Budget,
  summarize: Summarize,
): Promise<CompactionPlan | undefined> {
  const prompt = history.findLastIndex((message) => message.role === 'user')
  const start = startOf(history, state)
  if (prompt <= start) return undefined
  const tokensBefore = estimate(history, state, budget)
  const summary = await summarize(history.slice(start, prompt), state.summary)
  const summarizedThrough = (history[prompt - 1] as ChatMessage).id
  const next = { ...state, summarizedThrough, summary }
  const tokensAfter = estimate(history, next, budget)
  if (tokensAfter >= tokensBefore) return undefined
  return { state: next, tokensBefore, tokensAfter, summarizedThrough, summary }
}

/** (c): when even the latest results do not fit the window, they are elided too. */
function lastResortIfNeeded(history: readonly ChatMessage[], state: ViewState, budget: Budget): ViewState {
  if (estimate(history, state, budget) <= budget.window) return state
  return { ...state, elidedThrough: (history.at(-1) as ChatMessage).id }
}

/**
 * The index of the latest response, when the model is about to answer its results: those stay. When
 * the history ends with a new prompt, nothing after it needs protecting.
 */
function latestResponse(history: readonly ChatMessage[]): number {
  const response = history.findLastIndex((message) => message.role === 'assistant')
  const prompt = history.findLastIndex((message) => message.role === 'user')
  return response > prompt ? response : history.length
}

/**
 * The least elision (a cut-off at a response before `protectedFrom`) that brings the request under
 * `target`; if none does, the most there is, when that is under the threshold; else the most there is.
 */
function elide(
  history: readonly ChatMessage[],
  state: ViewState,
  budget: Budget,
  target: number,
  protectedFrom: number,
): ViewState {
  const from = Math.max(
    startOf(history, state),
    state.elidedThrough ? indexOf(history, state.elidedThrough) + 1 : 0,
  )
  let best = state
  for (let at = from; at < protectedFrom; at++) {
    const message = history[at] as ChatMessage
    if (message.role !== 'assistant') continue
    best = { ...state, elidedThrough: message.id }
    if (estimate(history, best, budget) <= target) return best
  }
  return best
}

/**
 * Where the verbatim recent part starts: at a prompt or a response (never between a call and its
 * result), keeping what fits in RECENT_SHARE_OF_WINDOW and at least the latest response. Undefined
 * when there is nothing older to summarize.
 */
function splitForSummary(
  history: readonly ChatMessage[],
  state: ViewState,
  budget: Budget,
  protectedFrom: number,
): number | undefined {
  const start = startOf(history, state)
  const recentBudget = budget.window * RECENT_SHARE_OF_WINDOW
  let split = Math.min(protectedFrom, history.length)
  // The latest prompt stays verbatim too: it is what the model is answering.
  const prompt = history.findLastIndex((message) => message.role === 'user')
  if (prompt >= start && prompt < split) split = prompt
  for (let at = split - 1; at > start; at--) {
    const message = history[at] as ChatMessage
    if (message.role === 'tool') continue
    const recent = estimate(history.slice(at), EMPTY_VIEW, { ...budget, system: '', tools: [] })
    if (recent > recentBudget) break
    split = at
  }
  return split > start ? split : undefined
}

function sameView(a: ViewState, b: ViewState): boolean {
  return (
    a.elidedThrough === b.elidedThrough &&
    a.summarizedThrough === b.summarizedThrough &&
    a.summary === b.summary
  )
}

/** Tool results are cut to this in what the summarizer reads: it needs what happened, not every byte. */
const SUMMARY_RESULT_CHARS = 1500

const SUMMARY_SYSTEM =
  'You summarize a working session between a user and a coding assistant so the assistant can continue it ' +
  'with only your summary and the most recent messages. Be factual and complete; no preamble.'

const SUMMARY_INSTRUCTIONS = `Summarize the conversation above for the assistant who will continue it. Use these sections:
## User instructions
Every instruction, request and preference the user gave, quoted verbatim, oldest first.
## Decisions
What was decided and why.
## Files
Each file read, created or changed (its path), and what was learned or changed in it.
## Done
Commands run and tools used, with their outcomes (errors included).
## Open
What is still to do, and the next step.`

/**
 * A summarizer on the chat's own provider and model: the older part as a transcript (tool results
 * cut to SUMMARY_RESULT_CHARS, the oldest left out if it still would not fit), no tools.
 */
export function summarizerFor(
  adapter: ProviderAdapter,
  model: string,
  budget: Pick<Budget, 'window' | 'estimator'>,
  signal: AbortSignal,
  retry?: RetryPolicy,
): Summarize {
  return async (older, previous) => {
    const text = transcript(older, previous, budget.estimator.chars(budget.window * 0.6))
    const request: ModelRequest = {
      model,
      system: SUMMARY_SYSTEM,
      messages: [{ role: 'user', text: `${text}\n\n${SUMMARY_INSTRUCTIONS}` }],
      tools: [],
    }
    let summary = ''
    for await (const event of streamWithRetry(adapter, request, signal, retry)) {
      if (event.type === 'text_delta') summary += event.text
    }
    if (!summary.trim()) throw providerFailure(adapter.kind, 'The model returned an empty summary.')
    return summary.trim()
  }
}

/** The older part as the summarizer reads it, oldest lines dropped first past `maxChars`. */
export function transcript(older: readonly ChatMessage[], previous: string | null, maxChars: number): string {
  const lines: string[] = []
  for (const message of older) {
    for (const part of message.parts) {
      if (part.type === 'text' && part.text.trim()) lines.push(`[${message.role}] ${part.text}`)
      else if (part.type === 'tool_call') lines.push(`[assistant calls ${part.name}] ${part.arguments}`)
      else if (part.type === 'attachment') {
        lines.push(attachmentLine(part.attachment))
      } else if (part.type === 'tool_result') {
        const content =
          part.content.length > SUMMARY_RESULT_CHARS
            ? `${part.content.slice(0, SUMMARY_RESULT_CHARS)}… (${part.content.length} characters in all)`
            : part.content
        lines.push(`[${part.name} ${part.isError ? 'failed' : 'returned'}] ${content}`)
      }
    }
  }
  const head = previous
    ? `# Summary of what came before\n${previous}\n\n# Conversation\n`
    : '# Conversation\n'
  let body = lines.join('\n')
  while (head.length + body.length > maxChars && lines.length > 1) {
    lines.shift()
    body = `(earlier lines left out)\n${lines.join('\n')}`
  }
  return head + body
}

/** What the summarizer reads of an attachment: what it was, and the start of its text. */
function attachmentLine(attachment: AttachedContent): string {
  if (attachment.kind === 'image') return `[user attached an image: ${attachment.name}]`
  if (attachment.kind === 'notice') return `[Atelier noted] ${attachment.text.slice(0, SUMMARY_RESULT_CHARS)}`
  const what = attachment.kind === 'file' ? attachment.path : `${attachment.server}: ${attachment.uri}`
  return `[user attached ${what}] ${attachment.text.slice(0, SUMMARY_RESULT_CHARS)}`
}
