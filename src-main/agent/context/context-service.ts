/**
 * A chat's context budget outside and inside its turns: the gauge between turns, "Compact now", and
 * the TurnContext each turn builds its requests with. Per chat, the token estimate stays calibrated
 * by the provider's counts from one turn to the next; per provider address and model, the model
 * listing is asked once for its context window.
 */
import type { ChatMessage, Compaction, ContextStatus } from '../../../src-shared/agent'
import type { Chat } from '../../../src-shared/contract'
import type { ConversationRepository } from '../../db/conversation-repository'
import type { PreferencesService } from '../../preferences/preferences-service'
import { createProviderAdapter } from '../../providers/adapters'
import type { ResolvedProvider } from '../../providers/provider-service'
import type { RetryPolicy } from '../../providers/retry'
import type { ProviderAdapter } from '../../providers/types'
import type { SessionEvent } from '../../tools/custom/host-protocol'
import type { CommandSandbox } from '../../tools/sandbox/command-sandbox'
import { buildSystemPrompt, sandboxPrompt } from '../system-prompt'
import { projectFolder, type ToolProjectionService } from '../tool-projection'
import { contextWindowFor } from './context-windows'
import { type ContextSetup, TurnContext } from './turn-context'
import { TokenEstimator } from './view'

export interface ContextServiceDeps {
  conversation: ConversationRepository
  preferences: PreferencesService
  projection: ToolProjectionService
  retry?: RetryPolicy
  /** Tells the custom tools serving a folder of a lifecycle event (onSession). */
  notifyCustomTools?: (folder: string | null, event: SessionEvent) => void
  /** What the system prompt says of the sandbox. */
  sandbox?: CommandSandbox
  /** The project's instruction files as a section of the system prompt. */
  instructions?: (chat: Chat) => string
  /** The person's PreCompact hooks: run before a compaction, by the person (`manual`) or to fit (`auto`). */
  beforeCompaction?: (chat: Chat, trigger: 'manual' | 'auto') => Promise<void>
  /** Where the chats' images are saved, the only place a request sends a prompt's image from. */
  imagesDir: string
}

/** What a turn's context is built for: its id (null between turns), system prompt, tools, events and stop. */
export type TurnContextSetup = Pick<ContextSetup, 'turnId' | 'system' | 'tools' | 'emit' | 'signal'> & {
  /** The model's context window for this turn, in tokens (the CLI's `--context-window`). */
  contextWindow?: number
}

export class ContextService {
  private readonly estimators = new Map<string, TokenEstimator>()
  /** What model listings said of context windows, by provider address and model. */
  private readonly listedWindows = new Map<string, Promise<number | undefined>>()

  constructor(private readonly deps: ContextServiceDeps) {}

  /** The contract's `chats.context`: the chat's next request's estimate, against the model's window. */
  async status({ id }: { id: string }): Promise<ContextStatus> {
    const { context, history } = await this.betweenTurns(id)
    return context.status(context.estimate(history))
  }

  /** "Compact now": everything before the latest prompt summarized by the chat's model. */
  async compactNow(id: string, signal: AbortSignal): Promise<Compaction | null> {
    const { context, history, chat } = await this.betweenTurns(id, signal)
    await this.deps.beforeCompaction?.(chat, 'manual')
    return context.compactNow(history)
  }

  /** The context a turn of this chat builds its requests with. */
  async forTurn(
    chat: Chat,
    provider: ResolvedProvider,
    adapter: ProviderAdapter,
    turn: TurnContextSetup,
  ): Promise<TurnContext> {
    const { conversation, preferences } = this.deps
    let estimator = this.estimators.get(chat.id)
    if (!estimator) {
      estimator = new TokenEstimator()
      this.estimators.set(chat.id, estimator)
    }
    const folder = projectFolder(chat)
    return new TurnContext({
      ...turn,
      chatId: chat.id,
      model: provider.model,
      adapter,
      window: contextWindowFor(
        provider.config.kind,
        provider.model,
        turn.contextWindow ?? provider.contextWindow,
        await this.listedWindow(provider, adapter),
      ),
      thresholdPercent: preferences.get().compactionThresholdPercent,
      estimator,
      compactions: conversation.compactions(chat.id),
      store: (compaction) => conversation.addCompaction(compaction),
      onAutoCompaction: (phase) => {
        this.deps.notifyCustomTools?.(folder, { reason: `auto_compaction_${phase}`, chatId: chat.id })
        // Not waited for: the request is on its way, and PreCompact cannot hold a compaction back.
        if (phase === 'start') void this.deps.beforeCompaction?.(chat, 'auto')
      },
      ...(this.deps.retry && { retry: this.deps.retry }),
      imagesDir: this.deps.imagesDir,
    })
  }

  /** A chat's context as its next turn would see it (tools, system prompt, window), outside a turn. */
  private async betweenTurns(
    id: string,
    signal = new AbortController().signal,
  ): Promise<{ context: TurnContext; history: ChatMessage[]; chat: Chat }> {
    const { chat, provider, profile, approvalMode, projection } = await this.deps.projection.nextTurn(id)
    const context = await this.forTurn(chat, provider, createProviderAdapter(provider.config), {
      turnId: null,
      system: buildSystemPrompt(profile, chat, approvalMode, {
        sandbox: await sandboxPrompt(this.deps.sandbox, projection.runsCommands, approvalMode),
        instructions: this.deps.instructions?.(chat) ?? '',
      }),
      tools: projection.definitions,
      emit: () => {},
      signal,
    })
    return { context, history: this.deps.conversation.messages(chat.id), chat }
  }

  /** The model listing's context window, asked once per provider address and model. */
  private listedWindow(provider: ResolvedProvider, adapter: ProviderAdapter): Promise<number | undefined> {
    const key = `${provider.config.kind} ${provider.config.baseUrl ?? ''} ${provider.model}`
    let listed = this.listedWindows.get(key)
    if (!listed) {
      listed = adapter.contextWindowOf?.(provider.model).catch(() => undefined) ?? Promise.resolve(undefined)
      this.listedWindows.set(key, listed)
    }
    return listed
  }
}
