/**
 * Turns of a chat: starting, retrying and stopping them, who is running, and where their events go —
 * the app's event bus (IPC, the web host) and the caller's own listener (the CLI). A chat runs one
 * turn at a time; its tool calls are the turn's scheduler's.
 */
import type {
  AttachmentPart,
  ChatMessage,
  Compaction,
  ProviderKind,
  ToolResultPart,
  Turn,
  TurnEvent,
} from '../../src-shared/agent'
import type { ApprovalMode } from '../../src-shared/approvals'
import type { Attachment } from '../../src-shared/attachments'
import type { Chat } from '../../src-shared/contract'
import { AtelierError, errorMessage } from '../../src-shared/errors'
import type { HookRun } from '../../src-shared/hooks'
import type { ToolCallState } from '../../src-shared/tool-calls'
import type { ApprovalService } from '../approvals/approval-service'
import type { Asker } from '../approvals/askers'
import type { ChatService } from '../chats/chat-service'
import type { CheckpointService } from '../checkpoints/checkpoint-service'
import type { ExpandedCommand, SlashCommandService } from '../commands/slash-command-service'
import type { AtelierEvents } from '../core/events'
import type { ConversationForks } from '../db/conversation-forks'
import { type ConversationRepository, INTERRUPTED } from '../db/conversation-repository'
import type { TurnHooks } from '../hooks/turn-hooks'
import type { PreferencesService } from '../preferences/preferences-service'
import { createProviderAdapter } from '../providers/adapters'
import type { PriceService } from '../providers/price-service'
import type { ProviderService } from '../providers/provider-service'
import type { RetryPolicy } from '../providers/retry'
import type { ToolExecutor } from '../tools/executor'
import type { ToolProjection } from '../tools/projection'
import type { CommandSandbox } from '../tools/sandbox/command-sandbox'
import { QuestionLine } from '../tools/scheduler/question-line'
import { ToolScheduler } from '../tools/scheduler/scheduler'
import type { AgentProfileService } from './agent-profiles'
import { chatModel } from './chat-model'
import type { ContextService } from './context/context-service'
import type { SubagentService } from './subagents'
import { buildSystemPrompt, sandboxPrompt } from './system-prompt'
import { effectiveApprovalMode, projectFolder, type ToolProjectionService } from './tool-projection'
import { runTurnLoop, type TurnOutcome } from './turn-loop'

export interface TurnServiceDeps {
  chats: ChatService
  conversation: ConversationRepository
  /** Where an edited prompt's or a regenerated answer's earlier turns are kept. */
  forks: ConversationForks
  providers: ProviderService
  profiles: AgentProfileService
  preferences: PreferencesService
  projection: ToolProjectionService
  context: ContextService
  executor: ToolExecutor
  approvals: ApprovalService
  /** Who answers a turn's questions unless the turn names its own: the app's chat view. */
  asker: Asker
  /** Confines the commands a turn's shells run: the system prompt says how. */
  sandbox?: CommandSandbox
  /** Snapshots the folder around the calls that may change it; tells the model of restores. */
  checkpoints?: CheckpointService
  /** The project's instruction files (AGENTS.md…) as a section of the system prompt; none by default. */
  instructions?: (chat: Chat) => string
  /** Turns a prompt that starts with a command's `/name` into the command's prompt. */
  commands?: Pick<SlashCommandService, 'expand'>
  /** Runs the `task` tool's child turns. */
  subagents?: Pick<SubagentService, 'forTurn'>
  events: AtelierEvents
  user: string
  /** The person's hooks at a turn's start and end and on its questions (see docs/hooks.md). */
  hooks?: TurnHooks
  /**
   * Reads what a prompt attached (MCP resources, files of the chat's folder, images) into parts of
   * its message; throws when one cannot be.
   */
  readAttachments?: (attachments: readonly Attachment[], chat: Chat) => Promise<AttachmentPart[]>
  retry?: RetryPolicy
  /** Prices the responses of a turn's model, where a price is known. */
  prices?: Pick<PriceService, 'priceFor'>
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
  /** Who answers the turn's questions; by default the app's chat view (`calls.answer`). */
  asker?: Asker
  /** The most the turn may offer, whatever its profile and mode allow (a subagent's: its parent's tools). */
  tools?: ReadonlySet<string>
  /** Stops the turn like the stop button does. */
  signal?: AbortSignal
  onEvent?: (event: TurnEvent) => void
}

export interface StartedTurn {
  turnId: string
  /** Settles when the turn has ended and its outcome is committed; never rejects. */
  done: Promise<Turn>
}

/** The chat's conversation: every committed message, every turn, compaction and tool call. */
export interface Conversation {
  messages: ChatMessage[]
  turns: Turn[]
  compactions: Compaction[]
  /** Each with its result, once it has one. */
  calls: ToolCallState[]
}

interface Running {
  turnId: string
  controller: AbortController
  /** Once the turn's tools are known. */
  scheduler?: ToolScheduler
}

export class TurnService {
  private readonly running = new Map<string, Running>()
  private closed = false

  constructor(private readonly deps: TurnServiceDeps) {}

  /**
   * Starts a turn and returns once the prompt is committed. Refused up front — nothing written —
   * when the chat is busy or no provider can be reached. A prompt that starts with a command's
   * `/name` is expanded here, so the app, the web host and `atelier run` send the same prompt; the
   * expansion is what is stored, so the person sees what the model was told.
   */
  begin(request: TurnRequest): StartedTurn {
    const command = this.expand(request.chatId, request.prompt)
    return this.open(
      this.setUp(request, command),
      command?.prompt ?? request.prompt,
      request.attached ?? [],
      request,
    )
  }

  /**
   * Edit and resend, or regenerate: the chat goes on from before the prompt of `turnId` with
   * `prompt` (its own again when none is given), what it attached sent again with it. That turn
   * and the later ones move to a new chat titled after the chat and `kept` ("earlier version"), the
   * way a rewind keeps them. Only the conversation branches: the folder stays as the turns left it,
   * which the model sees when it reads it (the Rewind dialog is there to set files back).
   */
  resend(
    request: Omit<TurnRequest, 'prompt' | 'attached'> & { turnId: string; prompt?: string; kept: string },
  ): StartedTurn & { fork: Chat } {
    // An edited prompt is typed again, so a command in it is expanded again; a regenerated one is not.
    const command = request.prompt === undefined ? undefined : this.expand(request.chatId, request.prompt)
    const setup = this.setUp(request, command)
    const original = this.deps.conversation
      .messages(setup.chat.id)
      .find((message) => message.turnId === request.turnId && message.role === 'user')
    if (!original) {
      throw new AtelierError('not_found', 'This chat has no such prompt.', {
        chatId: setup.chat.id,
        turnId: request.turnId,
      })
    }
    const text =
      command?.prompt ??
      request.prompt ??
      original.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
    // What it attached goes again; what Atelier noted then (restored files) was told once already.
    const attached = original.parts.filter(
      (part): part is AttachmentPart => part.type === 'attachment' && part.attachment.kind !== 'notice',
    )
    const fork = this.deps.chats.branch(setup.chat.id, request.kept)
    this.deps.forks.split(setup.chat.id, request.turnId, fork.id)
    return { ...this.open(setup, text, attached, request), fork }
  }

  /** The contract's `turns.edit`: the edited prompt's turn runs on; its events carry the rest. */
  edit(request: { chatId: string; turnId: string; prompt: string }): { turnId: string; fork: Chat } {
    const { turnId, fork } = this.resend({ ...request, kept: 'earlier version' })
    return { turnId, fork }
  }

  /** The contract's `turns.regenerate`: the prompt runs again; its events carry the rest. */
  regenerate(request: { chatId: string; turnId: string }): { turnId: string; fork: Chat } {
    const { turnId, fork } = this.resend({ ...request, kept: 'earlier answer' })
    return { turnId, fork }
  }

  /**
   * Runs the chat's latest turn again, when it failed or was interrupted. Its prompt is already
   * committed, so it is not written again: the same turn runs on from what it had stored (the
   * prompt, and whatever it got done before it failed), and the model sees the prompt once.
   * Refused with `nothing_to_retry` when the latest turn did not fail.
   */
  retry(request: Omit<TurnRequest, 'prompt' | 'attached'>): StartedTurn {
    const { conversation } = this.deps
    const setup = this.setUp(request)
    const latest = conversation.turns(setup.chat.id).at(-1)
    if (!latest || (latest.status !== 'failed' && latest.status !== 'interrupted')) {
      throw new AtelierError(
        'nothing_to_retry',
        'The latest turn of this chat did not fail: send a prompt instead.',
        { chatId: setup.chat.id },
      )
    }
    return this.run(setup, conversation.reopenTurn(latest.id), request, undefined, () => {})
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

  stop({ chatId }: { chatId: string }): { stopped: boolean } {
    const running = this.running.get(chatId)
    running?.controller.abort(new Error('Stopped by the user.'))
    return { stopped: running !== undefined }
  }

  /**
   * "Compact now": everything before the latest prompt summarized by the chat's model. The chat is
   * busy meanwhile: a prompt sent during the summary is refused, as during a turn.
   */
  async compact({ id }: { id: string }): Promise<{ compaction: Compaction | null }> {
    this.refuseIfBusy(id)
    const controller = new AbortController()
    this.running.set(id, { turnId: '', controller })
    try {
      return { compaction: await this.deps.context.compactNow(id, controller.signal) }
    } finally {
      this.running.delete(id)
    }
  }

  /** The whole conversation, each tool call with its state as it is now and its result. */
  conversation({ id }: { id: string }): Conversation {
    this.deps.chats.get(id)
    const { conversation } = this.deps
    const messages = conversation.messages(id)
    const results = new Map<string, ToolResultPart>()
    for (const message of messages) {
      if (message.role !== 'tool') continue
      for (const part of message.parts) {
        if (part.type === 'tool_result') results.set(`${message.turnId} ${part.callId}`, part)
      }
    }
    // The running turn's calls as they are now, over what is stored of them (some not yet).
    const running = this.running.get(id)
    const live = running?.scheduler?.calls ?? []
    const liveIds = new Set(live.map((call) => call.id))
    const stored = conversation
      .calls(id)
      .filter((call) => call.turnId !== running?.turnId || !liveIds.has(call.id))
    const calls = [...stored, ...live].map((call) => {
      const result = results.get(`${call.turnId} ${call.id}`)
      if (call.result || !result) return call
      const { type: _type, callId: _callId, name: _name, ...rest } = result
      return { ...call, result: { truncated: false, durationMs: 0, ...rest } }
    })
    return { messages, turns: conversation.turns(id), compactions: conversation.compactions(id), calls }
  }

  /**
   * The contract's `chats.messages`: the conversation as the chat view shows it. A call's result
   * comes with the call, so the tool messages that carry it to the model are left out.
   */
  view({ id }: { id: string }): Conversation {
    const whole = this.conversation({ id })
    return { ...whole, messages: whole.messages.filter((message) => message.role !== 'tool') }
  }

  /** A hook of the person's ran on a call of a running turn: the call's card shows it. */
  hookRan(run: HookRun): void {
    if (run.chatId) this.running.get(run.chatId)?.scheduler?.hookRan(run)
  }

  /** Ends every running turn as interrupted: the app is closing under them. */
  close(): void {
    this.closed = true
    for (const { turnId, controller } of this.running.values()) {
      controller.abort(closingError())
      if (turnId) this.deps.conversation.endTurn(turnId, 'interrupted', INTERRUPTED)
    }
    this.running.clear()
  }

  /**
   * What a turn is run with, from the chat, the request and the command it was typed as (whose
   * `agent` and `model` hold for this turn only; `--model` still wins); refused when busy or
   * without a provider.
   */
  private setUp(request: Omit<TurnRequest, 'prompt'>, command?: ExpandedCommand) {
    const { chats, preferences, profiles } = this.deps
    const chat = chats.get(request.chatId)
    this.refuseIfBusy(chat.id)
    const model = command?.model
    const provider = this.deps.providers.forChat(
      model ? { ...chat, model } : chat,
      request.provider && model ? { model, ...request.provider } : request.provider,
    )
    const own = profiles.forChat(chat.agent)
    const profile = command?.agent ? profiles.byName(command.agent) : own
    // A command file is text from a folder: its profile brings a prompt and tools, never a laxer mode.
    const approvalMode = request.approvalMode ?? effectiveApprovalMode(chat, own)
    return {
      chat,
      provider,
      profile,
      approvalMode,
      adapter: createProviderAdapter(provider.config),
      maxIterations: request.maxIterations ?? preferences.get().maxIterations,
    }
  }

  /**
   * Runs a turn that is committed as running; `opened` tells of its start (a new prompt) first.
   * `prompt` is the prompt just sent (not one a retry runs again), for the UserPromptSubmit hooks.
   */
  private run(
    setup: ReturnType<TurnService['setUp']>,
    turn: Turn,
    request: Omit<TurnRequest, 'prompt'>,
    prompt: string | undefined,
    opened: (emit: (event: TurnEvent) => void) => void,
  ): StartedTurn {
    const { conversation } = this.deps
    const { chat, provider, profile, approvalMode, adapter, maxIterations } = setup
    const controller = new AbortController()
    const stopFromCaller = () => controller.abort(request.signal?.reason)
    request.signal?.addEventListener('abort', stopFromCaller, { once: true })
    const running: Running = { turnId: turn.id, controller }
    this.running.set(chat.id, running)
    const emit = (event: TurnEvent) => {
      request.onEvent?.(event)
      this.deps.events.emit('turns.event', { chatId: chat.id, turnId: turn.id, event })
    }
    emit({ type: 'turn_started', turnId: turn.id, chatId: chat.id })
    opened(emit)

    const folder = projectFolder(chat)
    const checkpoints = this.deps.checkpoints?.forTurn(chat, turn.id)
    const gateIn = (mode: ApprovalMode) => this.deps.approvals.gateFor({ chatId: chat.id, folder, mode })
    // A subagent's turn is part of its parent's: its start and end are told as SubagentStop, once.
    const hooks = chat.parentChatId ? undefined : this.deps.hooks
    const hooked = { id: chat.id, folder }
    // What the person's hooks add for this turn (SessionStart, UserPromptSubmit), after the instructions.
    let hookContext = ''
    const systemIn = async (mode: ApprovalMode, tools: ToolProjection) =>
      buildSystemPrompt(profile, chat, mode, {
        sandbox: await sandboxPrompt(this.deps.sandbox, tools.runsCommands, mode),
        instructions: [this.deps.instructions?.(chat) ?? '', hookContext].filter(Boolean).join('\n\n'),
      })
    // Where the provider searches the web itself, the web_search tool is left out.
    const projectIn = (mode: ApprovalMode) =>
      this.deps.projection.projection(profile, mode, folder, {
        hostedSearch: provider.config.hostedSearch === true,
        ...(request.tools && { within: request.tools }),
      })
    // The mode the turn is in now: an approved plan moves it on, and a task's subagent follows.
    let mode = approvalMode
    const outcome = projectIn(approvalMode).then(async (tools) => {
      const hadTurns = () => conversation.turns(chat.id).some((each) => each.id !== turn.id)
      const opening = await hooks?.beforeTurn(hooked, prompt, hadTurns, controller.signal)
      if (opening?.stop) return hookStopped(opening.stop)
      hookContext = opening?.context ?? ''
      const unavailable = tools.servers.flatMap(({ name, error }) => (error ? [{ name, error }] : []))
      if (unavailable.length > 0) emit({ type: 'servers_unavailable', servers: unavailable })
      if (tools.discovery) emit({ type: 'services_discovered', ...tools.discovery })
      const context = await this.deps.context.forTurn(chat, provider, adapter, {
        turnId: turn.id,
        system: await systemIn(approvalMode, tools),
        tools: tools.definitions,
        emit,
        signal: controller.signal,
        ...(request.contextWindow && { contextWindow: request.contextWindow }),
      })
      const closing = () => {
        if (this.closed) throw closingError()
      }
      const price = this.deps.prices?.priceFor(provider)
      running.scheduler = new ToolScheduler({
        chat,
        turnId: turn.id,
        user: this.deps.user,
        model: { provider: provider.name, model: provider.model },
        offered: tools.offered,
        executor: this.deps.executor,
        gate: gateIn(approvalMode),
        questions: new QuestionLine(
          hooks
            ? hooks.notifying(request.asker ?? this.deps.asker, hooked)
            : (request.asker ?? this.deps.asker),
        ),
        sink: {
          save: (call) => {
            if (!this.closed) conversation.saveCall(call)
          },
          finish: (call, result) => {
            closing()
            return conversation.finishCall(call, result)
          },
          emit,
        },
        abortTurn: (reason) => controller.abort(new StoppedByTool(reason)),
        // An approved plan: the chat keeps the mode, and this turn goes on in it.
        switchApprovalMode: async (next) => {
          mode = next
          this.deps.chats.configure({ id: chat.id, approvalMode: mode })
          const retooled = await projectIn(mode)
          context.retool(await systemIn(mode, retooled), retooled.definitions)
          running.scheduler?.retool({ offered: retooled.offered, gate: gateIn(mode) })
        },
        ...(checkpoints && { checkpoints }),
        chatModel: chatModel(adapter, provider.model, price, this.deps.retry),
        ...(this.deps.subagents && {
          subagents: this.deps.subagents.forTurn({ chat, request, approvalMode: () => mode, emit }),
        }),
        signal: controller.signal,
      })
      return runTurnLoop({
        history: conversation.messages(chat.id),
        adapter,
        context,
        tools,
        maxIterations,
        scheduler: running.scheduler,
        ...(this.deps.retry && { retry: this.deps.retry }),
        price,
        signal: controller.signal,
        commit: (role, parts, usage) => {
          closing()
          return conversation.append(chat.id, turn.id, role, parts, usage)
        },
        emit,
      })
    })
    // The folder after the turn is recorded, and the Stop hooks have run, before the turn is told to have ended.
    const stopHooked = outcome.then(async (result) => {
      await hooks?.turnEnded(hooked, result.status)
      return result
    })
    const recorded = stopHooked.finally(() => checkpoints?.finish())
    const done = recorded.then(
      (result) => this.finish(turn.id, chat.id, withStopReason(result, controller.signal), emit),
      (error: unknown) => this.finish(turn.id, chat.id, crashed(error), emit),
    )
    done.finally(() => request.signal?.removeEventListener('abort', stopFromCaller))
    return { turnId: turn.id, done }
  }

  /** Commits the prompt as a new running turn, and runs it. */
  private open(
    setup: ReturnType<TurnService['setUp']>,
    prompt: string,
    attachedToPrompt: AttachmentPart[],
    request: Omit<TurnRequest, 'prompt' | 'attached'>,
  ): StartedTurn {
    const { chats, conversation } = this.deps
    // Files the person restored since the last turn: the model is told with this prompt.
    const notice = this.deps.checkpoints?.takeNotice(setup.chat.id)
    const attached = [...(notice ? [notice] : []), ...attachedToPrompt]
    // From here the turn exists: it starts with its prompt, in one transaction.
    const { turn, prompt: message } = conversation.beginTurn(setup.chat.id, prompt, attached)
    return this.run(setup, turn, request, prompt, (emit) => {
      emit({ type: 'message', message })
      chats.nameAfterPrompt(setup.chat.id, prompt)
    })
  }

  /** The command `text` starts with, expanded; undefined when it names none. */
  private expand(chatId: string, text: string): ExpandedCommand | undefined {
    return this.deps.commands?.expand({ chatId, text }) ?? undefined
  }

  /** Refused while the chat runs a turn or a compaction here, or a turn in another process. */
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
    this.deps.conversation.refuseIfRunning(chatId)
  }

  private finish(
    turnId: string,
    chatId: string,
    outcome: TurnOutcome,
    emit: (event: TurnEvent) => void,
  ): Turn {
    if (this.closed) {
      // close() has recorded the turn as interrupted, and the database may be gone.
      const { code, message } = INTERRUPTED
      return {
        id: turnId,
        chatId,
        status: 'interrupted',
        error: message,
        errorCode: code,
        toolError: false,
        startedAt: 0,
        endedAt: null,
      }
    }
    this.running.delete(chatId)
    const turn = this.deps.conversation.endTurn(turnId, outcome.status, outcome.error ?? null)
    if (outcome.error) emit({ type: 'turn_error', turnId, status: turn.status, ...outcome.error })
    else emit({ type: 'turn_completed', turnId, status: turn.status, toolError: turn.toolError })
    return turn
  }
}

/** A UserPromptSubmit hook's `continue: false`: the turn ends before any request, with its reason. */
function hookStopped(reason: string): TurnOutcome {
  return { status: 'stopped', error: { code: 'stopped_by_hook', message: reason } }
}

/** What stops a turn when Atelier closes under it; `close()` has recorded the turn as interrupted. */
function closingError(): AtelierError {
  return new AtelierError('interrupted', 'Atelier is closing.')
}

/** A tool's `ctx.abort()`: the turn stops as with the stop button, and says which tool stopped it. */
class StoppedByTool extends Error {}

function withStopReason(outcome: TurnOutcome, signal: AbortSignal): TurnOutcome {
  if (outcome.status !== 'stopped' || !(signal.reason instanceof StoppedByTool)) return outcome
  return { ...outcome, error: { code: 'stopped_by_tool', message: signal.reason.message } }
}

function crashed(error: unknown): TurnOutcome {
  return { status: 'failed', error: { code: 'internal', message: `The turn failed: ${errorMessage(error)}` } }
}
