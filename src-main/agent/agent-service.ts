/**
 * Turns of a chat: who is running, how to stop them, and where their events go — the app's event
 * bus (IPC, the web host) and the caller's own listener (the CLI).
 */
import type {
  AttachmentPart,
  ChatMessage,
  Compaction,
  ContextStatus,
  ProviderKind,
  Turn,
  TurnEvent,
} from '../../src-shared/agent'
import type { ApprovalMode } from '../../src-shared/approvals'
import type { Attachment } from '../../src-shared/attachments'
import type { Capabilities, Chat } from '../../src-shared/contract'
import { AtelierError } from '../../src-shared/errors'
import type { McpServerStatus } from '../../src-shared/mcp'
import type { AgentProfile } from '../../src-shared/providers'
import type { ApprovalService, Asker } from '../approvals/approval-service'
import type { ChatService } from '../chats/chat-service'
import type { AtelierEvents } from '../core/events'
import type { ConversationRepository } from '../db/conversation-repository'
import type { PreferencesService } from '../preferences/preferences-service'
import { createProviderAdapter } from '../providers/adapters'
import type { ProviderService, ResolvedProvider } from '../providers/provider-service'
import type { RetryPolicy } from '../providers/retry'
import { wireToolsWithTokens } from '../providers/tool-mapper'
import type { ProviderAdapter } from '../providers/types'
import type { SessionReason } from '../tools/custom/host-protocol'
import type { ToolExecutor } from '../tools/executor'
import { enabledToolDefinitions, type ToolProjection } from '../tools/projection'
import type { ToolRegistry } from '../tools/registry'
import type { ToolSettingsService } from '../tools/tool-settings-service'
import type { AgentProfileService } from './agent-profiles'
import { contextWindowFor } from './context/context-windows'
import { type ContextSetup, TurnContext } from './context/turn-context'
import { TokenEstimator } from './context/view'
import { buildSystemPrompt } from './system-prompt'
import { runTurnLoop, type TurnOutcome } from './turn-loop'

export interface AgentServiceDeps {
  chats: ChatService
  conversation: ConversationRepository
  providers: ProviderService
  profiles: AgentProfileService
  registry: ToolRegistry
  toolSettings: ToolSettingsService
  executor: ToolExecutor
  preferences: PreferencesService
  /**
   * Brings into the registry what a turn in this project folder may use: custom tool folders,
   * the enabled MCP servers (connected now), tool services.
   */
  prepareTools: (folder: string | null) => Promise<McpServerStatus[]>
  approvals: ApprovalService
  events: AtelierEvents
  user: string
  /**
   * Reads what a prompt attached (MCP resources, files of the chat's folder, images) into parts of
   * its message; throws when one cannot be.
   */
  readAttachments?: (attachments: readonly Attachment[], chat: Chat) => Promise<AttachmentPart[]>
  retry?: RetryPolicy
  /** Tells the custom tools serving a folder of a lifecycle event (onSession). */
  notifyCustomTools?: (folder: string | null, reason: SessionReason) => void
}

export interface TurnRequest {
  chatId: string
  prompt: string
  /** What was attached to the prompt, already read: stored with it, before its text. */
  attached?: AttachmentPart[]
  /** The CLI names a wire format directly, with its own base URL and model. */
  provider?: { kind: ProviderKind; baseUrl?: string; model?: string }
  maxIterations?: number
  /** The model's context window for this turn, in tokens (the CLI's `--context-window`). */
  contextWindow?: number
  /** Overrides the chat's approval mode for this turn (the CLI's `--approval`). */
  approvalMode?: ApprovalMode
  /** Who answers approval cards; by default the app's chat view (`approvals.answer`). */
  asker?: Asker
  /** Stops the turn like the stop button does. */
  signal?: AbortSignal
  onEvent?: (event: TurnEvent) => void
}

export interface StartedTurn {
  turnId: string
  /** Settles when the turn has ended and its outcome is committed; never rejects. */
  done: Promise<Turn>
}

export class AgentService {
  private readonly running = new Map<string, { turnId: string; controller: AbortController }>()
  /** Per chat: the estimate stays calibrated by the provider's counts from one turn to the next. */
  private readonly estimators = new Map<string, TokenEstimator>()
  /** What model listings said of context windows, by provider address and model. */
  private readonly listedWindows = new Map<string, Promise<number | undefined>>()
  private closed = false

  constructor(private readonly deps: AgentServiceDeps) {}

  /**
   * Starts a turn and returns once the prompt is committed. Refused up front — nothing written —
   * when the chat is busy or no provider can be reached.
   */
  begin(request: TurnRequest): StartedTurn {
    const { chats, conversation } = this.deps
    const setup = this.setUp(request)
    // From here the turn exists: it starts with its prompt, in one transaction.
    const { turn, prompt } = conversation.beginTurn(setup.chat.id, request.prompt, request.attached)
    return this.run(setup, turn, request, (emit) => {
      emit({ type: 'message', message: prompt })
      chats.nameAfterPrompt(setup.chat.id, request.prompt)
    })
  }

  /**
   * The contract's `turns.retry`: runs the chat's latest turn again, when it failed or was
   * interrupted. Its prompt is already committed, so it is not written again: the same turn runs on
   * from what it had stored (the prompt, and whatever it got done before it failed), and the model
   * sees the prompt once. Refused with `nothing_to_retry` when the latest turn did not fail.
   */
  retry(request: Omit<TurnRequest, 'prompt' | 'attached'>): StartedTurn {
    const { conversation } = this.deps
    const setup = this.setUp(request)
    const latest = conversation.turns(setup.chat.id).at(-1)
    if (!latest || (latest.status !== 'failed' && latest.status !== 'interrupted')) {
      throw new AtelierError(
        'nothing_to_retry',
        'The latest turn of this chat did not fail: send a prompt instead.',
        {
          chatId: setup.chat.id,
        },
      )
    }
    return this.run(setup, conversation.reopenTurn(latest.id), request, () => {})
  }

  /** What a turn is run with, from the chat and the request; refused when busy or without a provider. */
  private setUp(request: Omit<TurnRequest, 'prompt'>) {
    const { chats, preferences } = this.deps
    const chat = chats.get(request.chatId)
    this.refuseIfBusy(chat.id)
    const provider = this.resolveProvider(chat, request)
    const profile = this.deps.profiles.forChat(chat.agent)
    const approvalMode = request.approvalMode ?? effectiveApprovalMode(chat, profile)
    return {
      chat,
      provider,
      profile,
      approvalMode,
      adapter: createProviderAdapter(provider.config),
      system: buildSystemPrompt(profile, chat, approvalMode),
      maxIterations: request.maxIterations ?? preferences.get().maxIterations,
    }
  }

  /** Runs a turn that is committed as running; `opened` tells of its start (a new prompt) first. */
  private run(
    setup: ReturnType<AgentService['setUp']>,
    turn: Turn,
    request: Omit<TurnRequest, 'prompt'>,
    opened: (emit: (event: TurnEvent) => void) => void,
  ): StartedTurn {
    const { conversation } = this.deps
    const { chat, provider, profile, approvalMode, adapter, system, maxIterations } = setup
    const controller = new AbortController()
    const stopFromCaller = () => controller.abort(request.signal?.reason)
    request.signal?.addEventListener('abort', stopFromCaller, { once: true })
    this.running.set(chat.id, { turnId: turn.id, controller })
    const emit = (event: TurnEvent) => {
      request.onEvent?.(event)
      this.deps.events.emit('turns.event', { chatId: chat.id, turnId: turn.id, event })
    }
    emit({ type: 'turn_started', turnId: turn.id, chatId: chat.id })
    opened(emit)

    const folder = projectFolder(chat)
    const asking = { chatId: chat.id, folder, asker: request.asker ?? this.deps.approvals.inApp, emit }
    const gate = this.deps.approvals.gateFor({ ...asking, mode: approvalMode })
    // MCP servers connect now, not at start-up: a turn (or the inspector) is what needs their tools.
    const outcome = this.projection(profile, approvalMode, folder).then(async (tools) => {
      const unavailable = tools.servers.flatMap(({ name, error }) => (error ? [{ name, error }] : []))
      if (unavailable.length > 0) emit({ type: 'servers_unavailable', servers: unavailable })
      const context = await this.contextFor(chat, provider, adapter, {
        turnId: turn.id,
        system,
        tools: tools.definitions,
        emit,
        signal: controller.signal,
        ...(request.contextWindow && { contextWindow: request.contextWindow }),
      })
      return runTurnLoop({
        chat,
        history: conversation.messages(chat.id),
        adapter,
        context,
        tools,
        maxIterations,
        user: this.deps.user,
        executor: this.deps.executor,
        gate,
        abortTurn: (reason) => controller.abort(new StoppedByTool(reason)),
        confirmAction: this.deps.approvals.confirmerFor(asking),
        elicit: this.deps.approvals.elicitorFor(asking),
        ...(this.deps.retry && { retry: this.deps.retry }),
        signal: controller.signal,
        commit: (role, parts, usage) => {
          if (this.closed) throw new Error('Atelier is closing.')
          return conversation.append(chat.id, turn.id, role, parts, usage)
        },
        emit,
      })
    })
    const done = outcome.then(
      (result) => this.finish(turn.id, chat.id, withStopReason(result, controller.signal), emit),
      (error: unknown) => this.finish(turn.id, chat.id, crashed(error), emit),
    )
    done.finally(() => request.signal?.removeEventListener('abort', stopFromCaller))
    return { turnId: turn.id, done }
  }

  /**
   * The contract's `turns.start`: the turn runs on; its events carry the rest. Attachments are read
   * first, so one that cannot be read refuses the send with nothing committed.
   */
  async start(request: {
    chatId: string
    prompt: string
    attachments?: Attachment[]
  }): Promise<{ turnId: string }> {
    const { attachments = [], ...prompt } = request
    let attached: AttachmentPart[] = []
    if (attachments.length > 0) {
      const chat = this.deps.chats.get(request.chatId)
      this.refuseIfBusy(chat.id)
      if (!this.deps.readAttachments) {
        throw new AtelierError('unsupported', 'Attachments cannot be read here.')
      }
      attached = await this.deps.readAttachments(attachments, chat)
    }
    const { turnId } = this.begin({ ...prompt, attached })
    return { turnId }
  }

  /** The contract's `turns.retry`: the chat's failed turn runs again; its events carry the rest. */
  retryTurn(request: { chatId: string }): { turnId: string } {
    const { turnId } = this.retry(request)
    return { turnId }
  }

  private refuseIfBusy(chatId: string): void {
    if (this.running.has(chatId)) {
      throw new AtelierError(
        'turn_running',
        'This chat is still working on the last prompt. Stop it first.',
        {
          chatId,
        },
      )
    }
  }

  stop({ chatId }: { chatId: string }): { stopped: boolean } {
    const running = this.running.get(chatId)
    running?.controller.abort(new Error('Stopped by the user.'))
    return { stopped: running !== undefined }
  }

  conversation({ id }: { id: string }): {
    messages: ChatMessage[]
    turns: Turn[]
    compactions: Compaction[]
  } {
    this.deps.chats.get(id)
    const { conversation } = this.deps
    return {
      messages: conversation.messages(id),
      turns: conversation.turns(id),
      compactions: conversation.compactions(id),
    }
  }

  /** How full the chat's context is: its next request's estimate, against the model's window. */
  async contextStatus({ id }: { id: string }): Promise<ContextStatus> {
    const { context, history } = await this.betweenTurns(id)
    return context.status(context.estimate(history))
  }

  /**
   * "Compact now": everything before the latest prompt summarized by the chat's model. The chat is
   * busy meanwhile: a prompt sent during the summary is refused, as during a turn.
   */
  async compact({ id }: { id: string }): Promise<{ compaction: Compaction | null }> {
    if (this.running.has(id)) {
      throw new AtelierError(
        'turn_running',
        'This chat is still working on the last prompt. Stop it first.',
        {
          chatId: id,
        },
      )
    }
    const controller = new AbortController()
    this.running.set(id, { turnId: '', controller })
    try {
      const { context, history } = await this.betweenTurns(id, controller.signal)
      return { compaction: await context.compactNow(history) }
    } finally {
      this.running.delete(id)
    }
  }

  /** Ends every running turn as interrupted: the app is closing under them. */
  close(): void {
    this.closed = true
    for (const { turnId, controller } of this.running.values()) {
      controller.abort(new Error('Atelier is closing.'))
      this.deps.conversation.endTurn(turnId, 'interrupted', 'Atelier closed before this turn finished.')
    }
    this.running.clear()
  }

  /** What the chat's next turn would send as tools: the same projection, in its provider's format. */
  async capabilities({ id }: { id: string }): Promise<Capabilities> {
    const { provider, projection } = await this.nextTurn(id)
    const { definitions, servers } = projection
    const tools = wireToolsWithTokens(provider.config.kind, definitions).map((tool) => {
      const source = this.deps.registry.get(tool.name)?.source
      if (source?.kind === 'mcp') return { ...tool, server: source.server }
      if (source?.kind === 'custom') return { ...tool, module: source.module }
      return source?.kind === 'service' ? { ...tool, service: source.service } : tool
    })
    return {
      provider: { kind: provider.config.kind, name: provider.name },
      model: provider.model,
      tools,
      totalTokens: tools.reduce((sum, tool) => sum + tool.tokens, 0),
      servers,
    }
  }

  /**
   * The tools a turn offers: enabled ones (MCP servers' included, connected on the way), narrowed to
   * the profile's list when it has one, to reading tools in Read only mode, and to the custom tools
   * of this project folder (with the person's own). The inspector calls this too, so it shows what
   * a turn sends.
   */
  async projection(
    profile: AgentProfile,
    approvalMode: ApprovalMode = profile.approvalMode,
    folder: string | null = null,
  ): Promise<ToolProjection> {
    const { registry } = this.deps
    const servers = await this.deps.prepareTools(folder)
    const enabled = enabledToolDefinitions(registry, this.deps.toolSettings, this.deps.user)
    const allowed = profile.tools && new Set(profile.tools)
    const definitions = enabled.filter(({ name }) => {
      const entry = registry.get(name)
      const project = entry?.source.kind === 'custom' ? entry.source.project : undefined
      return (
        (!allowed || allowed.has(name)) &&
        (approvalMode !== 'read-only' || entry?.tool.kind === 'read') &&
        (project === undefined || project === folder)
      )
    })
    return { definitions, offered: new Set(definitions.map((definition) => definition.name)), servers }
  }

  /** What the chat's next turn would use: its provider, profile, approval mode and tools. */
  private async nextTurn(id: string) {
    const chat = this.deps.chats.get(id)
    const provider = this.resolveProvider(chat, {})
    const profile = this.deps.profiles.forChat(chat.agent)
    const approvalMode = effectiveApprovalMode(chat, profile)
    const projection = await this.projection(profile, approvalMode, projectFolder(chat))
    return { chat, provider, profile, approvalMode, projection }
  }

  /** A chat's context as its next turn would see it (tools, system prompt, window), outside a turn. */
  private async betweenTurns(
    id: string,
    signal = new AbortController().signal,
  ): Promise<{ context: TurnContext; history: ChatMessage[] }> {
    const { chat, provider, profile, approvalMode, projection } = await this.nextTurn(id)
    const context = await this.contextFor(chat, provider, createProviderAdapter(provider.config), {
      turnId: null,
      system: buildSystemPrompt(profile, chat, approvalMode),
      tools: projection.definitions,
      emit: () => {},
      signal,
    })
    return { context, history: this.deps.conversation.messages(chat.id) }
  }

  private async contextFor(
    chat: Chat,
    provider: ResolvedProvider,
    adapter: ProviderAdapter,
    turn: Pick<ContextSetup, 'turnId' | 'system' | 'tools' | 'emit' | 'signal'> & { contextWindow?: number },
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
      onAutoCompaction: (phase) => this.deps.notifyCustomTools?.(folder, `auto_compaction_${phase}`),
      ...(this.deps.retry && { retry: this.deps.retry }),
    })
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

  private resolveProvider(chat: Chat, request: Pick<TurnRequest, 'provider'>): ResolvedProvider {
    const { providers } = this.deps
    if (request.provider) {
      const { kind, ...overrides } = request.provider
      return providers.resolveKind(kind, overrides)
    }
    return providers.resolve(chat.provider, chat.model ? { model: chat.model } : {})
  }

  private finish(
    turnId: string,
    chatId: string,
    outcome: TurnOutcome,
    emit: (event: TurnEvent) => void,
  ): Turn {
    if (this.closed) {
      // close() has recorded the turn as interrupted, and the database may be gone.
      const error = 'Atelier closed before this turn finished.'
      return { id: turnId, chatId, status: 'interrupted', error, startedAt: 0, endedAt: null }
    }
    this.running.delete(chatId)
    const turn = this.deps.conversation.endTurn(turnId, outcome.status, outcome.error?.message ?? null)
    if (outcome.error) emit({ type: 'turn_error', turnId, status: turn.status, ...outcome.error })
    else emit({ type: 'turn_completed', turnId, status: turn.status })
    return turn
  }
}

/** The folder a chat works in: its bound folder in agent mode, none in chat mode. */
export function projectFolder(chat: Chat): string | null {
  return chat.mode === 'agent' ? chat.workingDir : null
}

/** The chat's own mode, else its profile's. */
export function effectiveApprovalMode(chat: Chat, profile: AgentProfile): ApprovalMode {
  return chat.approvalMode ?? profile.approvalMode
}

/** A tool's `ctx.abort()`: the turn stops as with the stop button, and says which tool stopped it. */
class StoppedByTool extends Error {}

function withStopReason(outcome: TurnOutcome, signal: AbortSignal): TurnOutcome {
  if (outcome.status !== 'stopped' || !(signal.reason instanceof StoppedByTool)) return outcome
  return { ...outcome, error: { code: 'stopped_by_tool', message: signal.reason.message } }
}

function crashed(error: unknown): TurnOutcome {
  const message = error instanceof Error ? error.message : String(error)
  return { status: 'failed', error: { code: 'internal', message: `The turn failed: ${message}` } }
}
