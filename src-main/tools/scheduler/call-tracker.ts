/**
 * One call's state, kept in one place: each change is sent whole as one `tool_call` event. It is
 * stored when it begins to run (with what was decided for it — see ConversationRepository.saveCall),
 * so a restart tells a call cut off while it ran, and its end is committed with its result. A call
 * that never began leaves only its end, or nothing if Atelier died first: it did not run.
 */
import type { ChatMessage, ToolResultPart, TurnEvent } from '../../../src-shared/agent'
import type { HookRun } from '../../../src-shared/hooks'
import type { CallDecision, Question } from '../../../src-shared/questions'
import type { ToolCallResult, ToolCallState, ToolCallStatus } from '../../../src-shared/tool-calls'
import type { ToolCallDescription, ToolProgress } from '../../../src-shared/tools'

/** Where a call's state goes: the database and whoever watches the turn. */
export interface CallSink {
  /** Keeps a state on its way (not synced on its own). */
  save(call: ToolCallState): void
  /** Commits the end: the final state and the result the model reads, together, as a tool message. */
  finish(call: ToolCallState, result: ToolResultPart): ChatMessage
  emit(event: TurnEvent): void
}

export class CallTracker {
  private current: ToolCallState
  /** Time the person took while the call ran: not part of its duration. */
  private waitedWhileRunning = 0

  constructor(
    call: Pick<ToolCallState, 'id' | 'chatId' | 'turnId' | 'name' | 'index'>,
    private readonly sink: CallSink,
  ) {
    this.current = { ...call, status: 'validating', decisions: [], createdAt: Date.now(), waitedMs: 0 }
    this.sent()
  }

  get state(): ToolCallState {
    return this.current
  }

  get index(): number {
    return this.current.index
  }

  /** Valid and offered: it waits for its turn. */
  scheduled(title: string): void {
    this.update({ status: 'scheduled', title })
  }

  described(description: ToolCallDescription): void {
    this.update({ description })
  }

  /** A question is put to the person: `awaiting_approval` before it runs, `awaiting_input` while it runs. */
  asking(question: Question): void {
    this.update({
      status: this.current.status === 'executing' ? 'awaiting_input' : 'awaiting_approval',
      question,
    })
  }

  /** The question is over (answered, or the call stopped): back to where the call was. */
  answered(waitedMs: number): void {
    const running = this.current.status === 'awaiting_input' || this.current.status === 'executing'
    if (running) this.waitedWhileRunning += waitedMs
    const status: ToolCallStatus = running ? 'executing' : 'scheduled'
    this.update({ status, question: undefined, waitedMs: this.current.waitedMs + waitedMs })
  }

  /** A hook of the person's ran on it (before it ran, or after). */
  hookRan(run: HookRun): void {
    this.update({ hooks: [...(this.current.hooks ?? []), run] })
  }

  decided(decision: CallDecision): void {
    this.update({ decisions: [...this.current.decisions, decision] })
  }

  executing(): void {
    this.current = { ...this.current, status: 'executing', startedAt: Date.now() }
    this.sink.save(this.current)
    this.sent()
  }

  /** A report that replaces the one before; a command's output is not state (see `tool_output`). */
  progress(report: Exclude<ToolProgress, { kind: 'output' }>): void {
    const progress = { ...this.current.progress }
    if (report.kind === 'progress') progress.counted = report
    else if (report.kind === 'partial') progress.partial = report
    else {
      progress.images = [...(progress.images ?? []).filter((i) => i.image !== report.image), report].sort(
        (a, b) => a.image - b.image,
      )
    }
    this.current = { ...this.current, progress }
    this.sent()
  }

  /** The end, as its result says: succeeded, cancelled (stopped), or failed with its type. */
  finish(outcome: ToolCallResult): ChatMessage {
    const result = { ...outcome, durationMs: Math.max(0, outcome.durationMs - this.waitedWhileRunning) }
    const status: ToolCallStatus = !result.isError
      ? 'succeeded'
      : result.errorType === 'aborted'
        ? 'cancelled'
        : 'failed'
    const { question: _over, ...rest } = this.current
    this.current = {
      ...rest,
      status,
      ...(result.errorType && { errorType: result.errorType }),
      result,
      endedAt: Date.now(),
    }
    const { id, name } = this.current
    const message = this.sink.finish(this.current, { type: 'tool_result', callId: id, name, ...result })
    this.sent()
    return message
  }

  private update(change: Partial<ToolCallState>): void {
    const next = { ...this.current, ...change }
    if (change.question === undefined && 'question' in change) delete next.question
    this.current = next
    this.sent()
  }

  private sent(): void {
    this.sink.emit({ type: 'tool_call', call: this.current })
  }
}
