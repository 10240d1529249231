/**
 * The tool call scheduler: between a turn and the executor, it moves each call of a response
 * through its states — validating, scheduled, awaiting_approval, executing (awaiting_input while a
 * tool asks), then succeeded, failed or cancelled — and is the one place that knows them.
 *
 * - Order: reads run side by side; any other call runs alone, in call order (see CallOrder).
 * - Decisions: taken one call at a time, in call order, when the call's turn to run has come — so
 *   what it is judged on (its paths, the file it edits) is what it will find, and its checks run
 *   before anyone is asked (see PreparedCall.check).
 * - Questions: every one, whoever asks, goes through the turn's QuestionLine, one at a time.
 * - Results are committed as calls end; the model gets them in call order (see agent/history.ts).
 */
import { randomUUID } from 'node:crypto'
import type { ChatMessage, ToolCallPart } from '../../../src-shared/agent'
import type { ApprovalRequest } from '../../../src-shared/approvals'
import type { Chat } from '../../../src-shared/contract'
import { answerInWords } from '../../../src-shared/elicitation'
import type { HookRun } from '../../../src-shared/hooks'
import type { CallDecision, Question } from '../../../src-shared/questions'
import { type SamplingQuestion, type SamplingRequest, samplingSummary } from '../../../src-shared/sampling'
import type { ToolCallResult, ToolCallState } from '../../../src-shared/tool-calls'
import type { ToolKind, ToolSource } from '../../../src-shared/tools'
import { untilAborted } from '../../core/abort'
import { FatalToolError, logFatal, ToolError } from '../errors'
import type { HookPermission, PreparedCall, ToolExecutor, ToolHookCall } from '../executor'
import type {
  AskResult,
  ChatModel,
  SampledCompletion,
  SubagentHost,
  ToolCallRecord,
  ToolHost,
  ToolQuestion,
} from '../types'
import { CallOrder, type CallSlot } from './call-order'
import { type CallSink, CallTracker } from './call-tracker'
import type { Asked, QuestionLine } from './question-line'

/** Puts an approval to the person, in the turn's line of questions. */
export type AskApproval = (request: ApprovalRequest) => Promise<Asked>

/** What the gate decided, and — when it refused — the words the model reads. */
export interface GateVerdict {
  decision: CallDecision
  refusal?: string
}

/**
 * Judges one described call of a turn (see approvals/approval-service.ts): it runs when the rules
 * or the mode allow it, is refused when they deny it, and otherwise waits for the person's answer.
 * `hooked` is what the before-tool hooks said of asking, for the gate to weigh.
 */
export type ApprovalGate = (
  call: ToolHookCall,
  ask: AskApproval,
  hooked?: HookPermission,
) => Promise<GateVerdict>

export interface SchedulerSetup {
  chat: Chat
  turnId: string
  user: string
  /** What the model was offered in this turn; a call to any other tool is refused. */
  offered: ReadonlySet<string>
  executor: ToolExecutor
  /** The turn's approvals: every call passes them before it runs. */
  gate: ApprovalGate
  questions: QuestionLine
  sink: CallSink
  /** Stops the whole turn from inside a call (a custom tool's `ctx.abort()`). */
  abortTurn?: ToolHost['abortTurn']
  /** Puts the chat in another approval mode from inside a call (an approved plan); see `retool`. */
  switchApprovalMode?: ToolHost['switchApprovalMode']
  /** Snapshots the folder around each call that may change it. */
  checkpoints?: CallCheckpoints
  /** Runs subagents for a call (the `task` tool), given the call, what the turn offers and how it asks. */
  subagents?: (call: SubagentCall) => SubagentHost
  /** The chat's provider and model, for what an MCP server asks of them (sampling). */
  chatModel?: ChatModel
  /** The person's stop. */
  signal: AbortSignal
  /** The provider (its name) and model the turn talks to, for the calls' records. */
  model?: ToolCallRecord['model']
}

/** A call as the folder's checkpoints see it: who it is, what it may do, and the paths it names. */
export interface CheckpointedCall {
  id: string
  tool: string
  kind: ToolKind
  source: ToolSource
  /** Real paths from its description: a file tool changes these and nothing else. */
  locations: readonly string[]
}

/** The call a subagent runs for: it is offered at most `offered`, and asks the person through `ask`. */
export interface SubagentCall {
  callId: string
  offered: ReadonlySet<string>
  ask: NonNullable<ToolHost['ask']>
}

/** Snapshots the chat's folder around each call that may change it (see src-main/checkpoints/). */
export interface CallCheckpoints {
  around<T>(call: CheckpointedCall, signal: AbortSignal, run: () => Promise<T>): Promise<T>
}

/** A failure that ended the turn: the model never sees it. */
export interface FatalFailure {
  name: string
  message: string
}

/** A response's calls, ended: their results as committed, and the failure that ended the turn, if one did. */
export interface BatchOutcome {
  results: ChatMessage[]
  fatal?: FatalFailure
}

/** Said to the model for the call whose FatalToolError ended the turn; the error's own words may hold internals. */
const FATAL_RESULT = 'The tool failed in a way that cannot be fixed by retrying; the turn was stopped.'

export class ToolScheduler {
  /** Every call of the turn, by id, as it is now. */
  private readonly tracked = new Map<string, CallTracker>()

  /** What the model is offered and how calls are judged: both change when the chat's mode does. */
  private offered: ReadonlySet<string>
  private gate: ApprovalGate

  constructor(private readonly setup: SchedulerSetup) {
    this.offered = setup.offered
    this.gate = setup.gate
  }

  /**
   * The turn goes on in another approval mode: calls resolved from now on are checked against its
   * tools and judged by its gate.
   */
  retool({ offered, gate }: Pick<SchedulerSetup, 'offered' | 'gate'>): void {
    this.offered = offered
    this.gate = gate
  }

  /** The turn's calls as they are now, the one waiting for the person included. */
  get calls(): ToolCallState[] {
    return [...this.tracked.values()].map((tracker) => tracker.state)
  }

  /**
   * Runs one response's calls to their ends. A FatalToolError ends the batch (the other calls are
   * stopped) and is reported; any other failure is a result the model reads.
   */
  async run(parts: readonly ToolCallPart[]): Promise<BatchOutcome> {
    const { signal } = this.setup
    const batch = new AbortController()
    const stop = () => batch.abort(signal.reason)
    if (signal.aborted) stop()
    signal.addEventListener('abort', stop, { once: true })
    const order = new CallOrder()
    const results: ChatMessage[] = []
    const end = (tracker: CallTracker, result: ToolCallResult) => results.push(tracker.finish(result))
    let fatal: FatalFailure | undefined
    let previous: Promise<void> = Promise.resolve()
    try {
      await Promise.all(
        parts.map(async (part, index) => {
          const tracker = this.track(part, index)
          let prepared: PreparedCall
          try {
            prepared = this.setup.executor.prepare(
              { id: part.id, name: part.name, arguments: part.arguments },
              this.scopeOf(tracker),
            )
          } catch (error) {
            end(tracker, this.setup.executor.failed(part.name, error))
            return
          }
          tracker.scheduled(prepared.tool.settings.title)
          const slot = order.slot(prepared.tool.kind !== 'read' && !prepared.tool.concurrent)
          const before = previous
          let decided = () => {}
          previous = new Promise((done) => {
            decided = done
          })
          try {
            end(tracker, await this.runOne(tracker, prepared, slot, before, decided, batch.signal))
          } catch (error) {
            if (!FatalToolError.isInstance(error)) throw error
            logFatal(part.name, error)
            fatal ??= { name: part.name, message: error.message }
            batch.abort(error)
            end(tracker, { ...notRun(FATAL_RESULT), errorType: 'fatal' })
          }
        }),
      )
    } finally {
      signal.removeEventListener('abort', stop)
    }
    return fatal ? { results, fatal } : { results }
  }

  /** A hook of the person's ran on one of the turn's calls: its card shows it. */
  hookRan(run: HookRun): void {
    if (run.callId) this.tracked.get(run.callId)?.hookRan(run)
  }

  /** Calls that will not run (the model repeats itself): each ends failed, saying why. */
  refuse(parts: readonly ToolCallPart[], content: string): ChatMessage[] {
    return parts.map((part, index) =>
      this.track(part, index).finish({ ...notRun(content), errorType: 'blocked' }),
    )
  }

  private track(part: ToolCallPart, index: number): CallTracker {
    const { chat, turnId, sink } = this.setup
    const tracker = new CallTracker({ id: part.id, chatId: chat.id, turnId, name: part.name, index }, sink)
    this.tracked.set(part.id, tracker)
    return tracker
  }

  /**
   * One call, from its place in line to its result: decided once the calls before it are (and, for
   * a call that runs alone, have finished), then run. Throws only a FatalToolError.
   */
  private async runOne(
    tracker: CallTracker,
    prepared: PreparedCall,
    slot: CallSlot,
    before: Promise<void>,
    decided: () => void,
    signal: AbortSignal,
  ): Promise<ToolCallResult> {
    const { executor } = this.setup
    try {
      await untilAborted(Promise.all([slot.ready, before]), signal)
      const refusal = await this.decide(tracker, prepared, signal)
      decided()
      if (refusal) return executor.failed(prepared.record.tool, refusal)
      tracker.executing()
      const { checkpoints } = this.setup
      if (!checkpoints) return await executor.run(prepared, signal)
      const { kind, locations } = await prepared.describe()
      const call = { id: tracker.state.id, tool: prepared.record.tool, kind, locations }
      return await checkpoints.around({ ...call, source: prepared.source }, signal, () =>
        executor.run(prepared, signal),
      )
    } catch (error) {
      if (FatalToolError.isInstance(error)) throw error
      return executor.failed(prepared.record.tool, error, signal)
    } finally {
      decided()
      slot.release()
    }
  }

  /**
   * Everything that needs no person first — its description, its checks, the before-tool hooks —
   * then the approval gate, which may ask. Resolves with the refusal, if any.
   */
  private async decide(
    tracker: CallTracker,
    prepared: PreparedCall,
    signal: AbortSignal,
  ): Promise<ToolError | undefined> {
    tracker.described(await prepared.describe())
    await prepared.check()
    const hooked = await this.setup.executor.runBeforeHooks(prepared)
    const verdict = await this.gate(
      await prepared.hookCall(),
      (request) => this.ask(tracker, request, signal),
      hooked,
    )
    tracker.decided(verdict.decision)
    return verdict.refusal === undefined ? undefined : new ToolError('denied', verdict.refusal)
  }

  /** Puts a question of this call to the person, in the turn's line; the call shows it while it waits. */
  private async ask(tracker: CallTracker, question: Question, signal: AbortSignal): Promise<Asked> {
    const started = performance.now()
    let shown = false
    try {
      const asked = await this.setup.questions.ask(tracker.index, question, signal, () => {
        shown = true
        tracker.asking(question)
      })
      if (shown) tracker.answered(asked.waitedMs)
      return asked
    } catch (error) {
      const waitedMs = performance.now() - started
      if (shown) tracker.answered(waitedMs)
      const about = aboutQuestion(question)
      tracker.decided({ ...about, outcome: 'cancelled', by: 'person', at: Date.now(), waitedMs })
      throw error
    }
  }

  /** What a call's tool may ask while it runs: a change to apply, an MCP server's form. */
  private async askWhileRunning(
    tracker: CallTracker,
    question: ToolQuestion,
    signal: AbortSignal,
  ): Promise<AskResult> {
    const { id, chatId, name } = tracker.state
    // A subagent's question is passed on whole: it names its own call and tool, and waits here.
    const full: Question =
      'id' in question
        ? { ...question, chatId }
        : { ...question, id: randomUUID(), chatId, callId: id, tool: name }
    const asked = await this.ask(tracker, full, signal)
    tracker.decided(decisionOn(full, asked))
    return asked.answer
  }

  /**
   * An MCP server's sampling request: put to the person, then — approved, as they left it — sent to
   * the chat's model. One decision is kept with the call, with the tokens the completion used.
   */
  private async sample(
    tracker: CallTracker,
    model: ChatModel,
    question: SamplingQuestion,
    signal: AbortSignal,
  ): Promise<SampledCompletion | undefined> {
    const { id, chatId, name } = tracker.state
    const full: SamplingRequest = {
      kind: 'sampling',
      ...question,
      id: randomUUID(),
      chatId,
      callId: id,
      tool: name,
    }
    const asked = await this.ask(tracker, full, signal)
    const decision = decisionOn(full, asked)
    const { answer } = asked
    if (!('action' in answer) || answer.action !== 'approve') {
      tracker.decided(decision)
      return undefined
    }
    let completion: SampledCompletion | undefined
    try {
      completion = await model.complete(
        { system: answer.systemPrompt, messages: answer.messages, maxTokens: answer.maxTokens },
        signal,
      )
      return completion
    } finally {
      const usage = completion?.usage
      tracker.decided({ ...decision, ...(usage && { usage }) })
    }
  }

  private scopeOf(tracker: CallTracker) {
    const { chat, user, abortTurn, switchApprovalMode, subagents, sink, model, chatModel } = this.setup
    const ask = (question: ToolQuestion, signal: AbortSignal) =>
      this.askWhileRunning(tracker, question, signal)
    return {
      chatId: chat.id,
      user,
      workingDirectory: chat.workingDir,
      mode: chat.mode,
      restrict: chat.mode === 'agent',
      offered: this.offered,
      ...(model && { model }),
      ...(abortTurn && { abortTurn }),
      ...(switchApprovalMode && { switchApprovalMode }),
      ...(subagents && { subagents: subagents({ callId: tracker.state.id, offered: this.offered, ask }) }),
      ...(chatModel && {
        sample: (question: SamplingQuestion, signal: AbortSignal) =>
          this.sample(tracker, chatModel, question, signal),
      }),
      ask,
      onUpdate: (progress: Parameters<ToolHost['onUpdate']>[0]) => {
        if (progress.kind === 'output') {
          sink.emit({ type: 'tool_output', callId: tracker.state.id, output: progress })
        } else tracker.progress(progress)
      },
    }
  }
}

/** What is kept of a question with its answer: what it was about (an approval's call is the card itself). */
function aboutQuestion(question: Question): Pick<CallDecision, 'kind' | 'summary' | 'server'> {
  switch (question.kind) {
    case 'approval':
      return { kind: 'approval' }
    case 'confirmation':
      return { kind: 'confirmation', summary: question.action.label }
    case 'elicitation':
      return { kind: 'elicitation', summary: question.message, server: question.server }
    case 'sampling':
      return { kind: 'sampling', summary: samplingSummary(question), server: question.server }
    case 'plan':
      return { kind: 'plan' }
  }
}

/** How a question a tool asked while it ran was answered, for the call's record. */
function decisionOn(question: Question, { answer, waitedMs, asked }: Asked): CallDecision {
  const base = {
    ...aboutQuestion(question),
    at: Date.now(),
    waitedMs,
    by: asked ? 'person' : 'nobody',
  } as const
  if ('action' in answer) {
    const outcome = (
      { accept: 'accepted', approve: 'allowed', decline: 'declined', cancel: 'cancelled' } as const
    )[answer.action]
    if (answer.action !== 'accept' || question.kind !== 'elicitation') return { ...base, outcome }
    return { ...base, outcome, answer: answerInWords(question.requestedSchema, answer.content) }
  }
  if (answer.decision === 'unanswered') return { ...base, outcome: 'denied', message: answer.reason }
  if (answer.decision === 'approve-plan') return { ...base, outcome: 'allowed', mode: answer.mode }
  if (answer.decision === 'keep-planning') {
    const feedback = answer.feedback?.trim()
    return { ...base, outcome: 'denied', ...(feedback && { message: feedback }) }
  }
  return { ...base, outcome: answer.decision === 'deny' ? 'denied' : 'allowed' }
}

function notRun(content: string) {
  return { content, isError: true, truncated: false, durationMs: 0 }
}
