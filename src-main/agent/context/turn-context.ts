/**
 * A turn's context budget: before each request it compacts the conversation when the request would
 * pass the threshold, records the compaction and says so (events, custom tools' onSession); after
 * each response it calibrates the estimate with the provider's count and reports the gauge.
 */
import type {
  ChatMessage,
  Compaction,
  CompactionReason,
  ContextStatus,
  TurnEvent,
} from '../../../src-shared/agent'
import type { Usage } from '../../../src-shared/usage'
import type { ProviderError } from '../../providers/provider-error'
import type { RetryPolicy } from '../../providers/retry'
import type { ModelRequest, ProviderAdapter } from '../../providers/types'
import {
  type Budget,
  type CompactionPlan,
  compactAllButLatest,
  compactToFit,
  summarizerFor,
} from './compaction'
import type { ContextWindow } from './context-windows'
import { modelView, requestChars, type TokenEstimator, type ViewState, viewStateOf } from './view'

export interface ContextSetup {
  chatId: string
  turnId: string | null
  model: string
  adapter: ProviderAdapter
  system: string
  tools: ModelRequest['tools']
  window: ContextWindow
  thresholdPercent: number
  /** The chat's estimator: it stays calibrated from one turn to the next. */
  estimator: TokenEstimator
  compactions: readonly Compaction[]
  store(compaction: Omit<Compaction, 'id' | 'createdAt'>): Compaction
  emit(event: TurnEvent): void
  /** Custom tools hear of automatic compactions (onSession auto_compaction_start / _end). */
  onAutoCompaction?(phase: 'start' | 'end'): void
  signal: AbortSignal
  retry?: RetryPolicy
  /** Where the chats' images are saved: a request sends a prompt's image only from there. */
  imagesDir: string
}

export class TurnContext {
  private state: ViewState
  private window: number

  constructor(private setup: ContextSetup) {
    this.state = viewStateOf(setup.compactions)
    this.window = setup.window.tokens
  }

  /** The turn goes on in another approval mode: the next requests carry its system prompt and tools. */
  retool(system: string, tools: ModelRequest['tools']): void {
    this.setup = { ...this.setup, system, tools }
  }

  /** The next request, the conversation compacted first if it would not fit. */
  async request(history: readonly ChatMessage[]): Promise<ModelRequest> {
    await this.compact(history, 'threshold')
    return this.build(history)
  }

  /**
   * The provider refused the last request as too long: count it as at least the window (or the
   * limit the provider named, if smaller), compact, and give the request to try once more.
   */
  async afterOverflow(history: readonly ChatMessage[], error: ProviderError): Promise<ModelRequest> {
    const limit = error.limitTokens
    if (limit && limit < this.window) this.window = limit
    this.setup.estimator.atLeast(requestChars(this.build(history)), this.window)
    await this.compact(history, 'overflow')
    return this.build(history)
  }

  /** After a response: the provider's count calibrates the estimate; the gauge moves. */
  observe(request: ModelRequest, usage: Usage | undefined): void {
    if (usage) this.setup.estimator.calibrate(requestChars(request), usage.inputTokens)
    const used = usage
      ? usage.inputTokens + usage.outputTokens
      : this.setup.estimator.tokens(requestChars(request))
    this.setup.emit({ type: 'context', context: this.status(used) })
  }

  /** The next request's tokens, as estimated. */
  estimate(history: readonly ChatMessage[]): number {
    return this.setup.estimator.tokens(requestChars(this.build(history)))
  }

  status(usedTokens: number): ContextStatus {
    return {
      usedTokens,
      windowTokens: this.window,
      windowSource: this.setup.window.source,
      thresholdPercent: this.setup.thresholdPercent,
    }
  }

  /** "Compact now": the chat between turns; null when there is too little to compact. */
  async compactNow(history: readonly ChatMessage[]): Promise<Compaction | null> {
    const plan = await compactAllButLatest(history, this.state, this.budget(), this.summarizer())
    return plan ? this.record(history, plan, 'manual') : null
  }

  private async compact(history: readonly ChatMessage[], reason: CompactionReason): Promise<void> {
    let started = false
    const onStart = (tokensBefore: number) => {
      started = true
      this.setup.emit({ type: 'compaction_started', reason, tokensBefore, windowTokens: this.window })
      this.setup.onAutoCompaction?.('start')
    }
    try {
      const plan = await compactToFit(history, this.state, this.budget(), this.summarizer(), {
        force: reason === 'overflow',
        onStart,
      })
      if (!plan) return
      const compaction = this.record(history, plan, reason)
      this.setup.emit({ type: 'context', context: this.status(compaction.tokensAfter) })
    } finally {
      if (started) this.setup.onAutoCompaction?.('end')
    }
  }

  private record(
    history: readonly ChatMessage[],
    plan: CompactionPlan,
    reason: CompactionReason,
  ): Compaction {
    this.state = plan.state
    const compaction = this.setup.store({
      chatId: this.setup.chatId,
      turnId: this.setup.turnId,
      reason,
      afterMessageId: (history.at(-1) as ChatMessage).id,
      elidedThrough: plan.state.elidedThrough,
      summarizedThrough: plan.summarizedThrough,
      summary: plan.summary,
      tokensBefore: plan.tokensBefore,
      tokensAfter: plan.tokensAfter,
    })
    this.setup.emit({ type: 'compaction_completed', compaction })
    return compaction
  }

  private build(history: readonly ChatMessage[]): ModelRequest {
    const { model, system, tools, imagesDir } = this.setup
    return { model, system, tools, messages: modelView(history, this.state, imagesDir) }
  }

  private budget(): Budget {
    const { estimator, system, tools, thresholdPercent } = this.setup
    return {
      window: this.window,
      threshold: Math.floor((this.window * thresholdPercent) / 100),
      estimator,
      system,
      tools,
    }
  }

  private summarizer() {
    const { adapter, model, estimator, signal, retry } = this.setup
    return summarizerFor(adapter, model, { window: this.window, estimator }, signal, retry)
  }
}
