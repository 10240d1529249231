/**
 * Approvals at run time: the gate a turn's calls pass (the policy, then a person when it asks), the
 * cards waiting for an answer in the app, and the saved rules behind Settings → Permissions and
 * `atelier permissions`.
 */
import { randomUUID } from 'node:crypto'
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import type { TurnEvent } from '../../src-shared/agent'
import type {
  ApprovalAnswer,
  ApprovalMode,
  ApprovalRequest,
  PermissionRule,
  RuleSource,
} from '../../src-shared/approvals'
import type { MethodRequest } from '../../src-shared/contract'
import {
  type ElicitationAnswer,
  type ElicitationRequest,
  elicitationProblems,
} from '../../src-shared/elicitation'
import { AtelierError } from '../../src-shared/errors'
import type { AtelierEvents } from '../core/events'
import type { PermissionRulesRepository } from '../db/permission-rules-repository'
import type { PreferencesService } from '../preferences/preferences-service'
import type { CallGate, ToolCallScope, ToolHookCall } from '../tools/executor'
import { evaluateCall, type Verdict } from './policy'
import { assertRule } from './rules'
import { WaitingAnswers } from './waiting-answers'

/** A person's answer, or why none can come (a run with no terminal to ask on). */
export type AskResult = ApprovalAnswer | { decision: 'unanswered'; reason: string }

/** Whoever answers a card: the app's chat view, a terminal prompt, nobody. */
export interface Asker {
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<AskResult>
  /** Answers an MCP server's question; without it the server is declined. */
  elicit?(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer>
}

/** A run with nobody to ask: what would ask is refused, and the model is told why. */
export const nobodyToAsk: Asker = {
  ask: async () => ({
    decision: 'unanswered',
    reason: 'The user has not approved this call (non-interactive run).',
  }),
}

export interface GateSetup {
  chatId: string
  /** The folder a chat in agent mode works in; null in chat mode. */
  folder: string | null
  mode: ApprovalMode
  asker: Asker
  emit(event: TurnEvent): void
}

export interface ApprovalServiceDeps {
  rules: PermissionRulesRepository
  preferences: PreferencesService
  events: AtelierEvents
  now?: () => number
}

export class ApprovalService {
  private readonly waiting = new WaitingAnswers<ApprovalRequest, ApprovalAnswer>()
  private readonly questions = new WaitingAnswers<ElicitationRequest, ElicitationAnswer>()
  private readonly now: () => number

  constructor(private readonly deps: ApprovalServiceDeps) {
    this.now = deps.now ?? Date.now
  }

  /** Cards answered in the app through `approvals.answer`. */
  readonly inApp: Asker = {
    ask: (request, signal) => this.waiting.wait(request, signal),
    elicit: (request, signal) => this.questions.wait(request, signal),
  }

  /**
   * The gate for one turn's calls. Cards are asked one at a time, in the order the calls reached
   * the gate; each waiting call is judged again when its turn comes, so "Allow for this chat" on
   * the first card spares the person the rest.
   */
  gateFor(setup: GateSetup): CallGate {
    const folder = setup.folder === null ? null : realFolder(setup.folder)
    let queue: Promise<void> = Promise.resolve()
    return async (call) => {
      const first = await this.judge(call, setup, folder)
      if (first.action !== 'ask') return this.settle(first)
      const previous = queue
      let release = () => {}
      queue = new Promise((done) => {
        release = done
      })
      try {
        await untilStopped(previous, call.context.signal)
        const verdict = await this.judge(call, setup, folder)
        if (verdict.action !== 'ask') return this.settle(verdict)
        return await this.askPerson(call, verdict, setup, folder)
      } finally {
        release()
      }
    }
  }

  /**
   * How a turn asks its person about a change a custom tool proposes: a card with Apply (allow-once)
   * and Discard (deny). Resolves whether to apply; rejects when nobody can answer.
   */
  confirmerFor(setup: Omit<GateSetup, 'mode'>): NonNullable<ToolCallScope['confirmAction']> {
    const folder = setup.folder === null ? null : realFolder(setup.folder)
    return async (action, call, signal) => {
      const request: ApprovalRequest = {
        id: randomUUID(),
        chatId: setup.chatId,
        callId: call.callId,
        tool: call.tool,
        arguments: call.args,
        description: { kind: 'other', summary: action.label, locations: [] },
        reasons: [`${call.tool} proposes a change: apply it or discard it.`],
        suggestedRules: [],
        folder,
        action,
      }
      const outcome = await this.ask(request, setup, signal)
      if (outcome.decision === 'unanswered') throw new Error(outcome.reason)
      return outcome.decision !== 'deny'
    }
  }

  /**
   * How a turn asks its person what an MCP server wants to know during a call: a form in the chat,
   * answered through `elicitations.answer`. A stop while it waits answers `cancel`; an asker that
   * cannot ask (no person) declines.
   */
  elicitorFor(setup: Omit<GateSetup, 'mode' | 'folder'>): NonNullable<ToolCallScope['elicit']> {
    return async (question, call, signal) => {
      const { asker, emit } = setup
      if (!asker.elicit) return { action: 'decline' }
      const request: ElicitationRequest = {
        id: randomUUID(),
        chatId: setup.chatId,
        callId: call.callId,
        tool: call.tool,
        ...question,
      }
      // Asked before it is announced, so an answer to the announcement finds the card waiting.
      const answered = asker.elicit(request, signal)
      emit({ type: 'elicitation_requested', request })
      let answer: ElicitationAnswer = { action: 'cancel' }
      try {
        answer = await answered
        return answer
      } catch (error) {
        if (signal.aborted) return answer
        throw error
      } finally {
        emit({ type: 'elicitation_resolved', id: request.id, callId: request.callId, ...answer })
      }
    }
  }

  pendingElicitations({ chatId }: MethodRequest<'elicitations.pending'>): ElicitationRequest[] {
    return this.questions.pending(chatId)
  }

  answerElicitation({ chatId, elicitationId, answer }: MethodRequest<'elicitations.answer'>): {
    answered: boolean
  } {
    const request = this.questions.get(elicitationId, chatId)
    if (!request) return { answered: false }
    if (answer.action === 'accept') {
      const problems = elicitationProblems(request.requestedSchema, answer.content)
      if (Object.keys(problems).length > 0) {
        throw new AtelierError(
          'invalid_answer',
          `The answer does not fit the server's form: ${Object.values(problems).join(' ')}`,
          { problems },
        )
      }
    }
    return { answered: this.questions.answer(elicitationId, chatId, answer) }
  }

  pending({ chatId }: MethodRequest<'approvals.pending'>): ApprovalRequest[] {
    return this.waiting.pending(chatId)
  }

  answer({ chatId, approvalId, answer }: MethodRequest<'approvals.answer'>): { answered: boolean } {
    const request = this.waiting.get(approvalId, chatId)
    if (!request) return { answered: false }
    if (answer.decision === 'always') {
      for (const rule of answer.rules) assertRule(rule)
      if (answer.scope === 'project' && request.folder === null) {
        throw new AtelierError(
          'invalid_rule',
          'This chat has no project folder: save the rule for everywhere instead.',
          {},
        )
      }
    }
    return { answered: this.waiting.answer(approvalId, chatId, answer) }
  }

  list(): PermissionRule[] {
    return this.deps.rules.list()
  }

  add(
    { rule, action, scope, folder, chatId }: MethodRequest<'permissions.add'>,
    source: RuleSource = 'settings',
  ): PermissionRule {
    if (scope === 'project' && !folder) {
      throw new AtelierError('invalid_rule', 'A project rule needs its project folder.', {})
    }
    if (scope === 'chat' && !chatId) throw new AtelierError('invalid_rule', 'A chat rule needs its chat.', {})
    const saved: PermissionRule = {
      id: randomUUID(),
      rule: assertRule(rule),
      action,
      scope,
      chatId: scope === 'chat' ? (chatId as string) : null,
      folder: scope === 'project' ? realFolder(folder as string) : null,
      source,
      createdAt: this.now(),
      lastUsedAt: null,
    }
    try {
      this.deps.rules.insert(saved)
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new AtelierError('not_found', `No chat with id "${chatId}".`, { id: chatId })
      }
      throw error
    }
    this.changed()
    return saved
  }

  update({ id, rule, action }: MethodRequest<'permissions.update'>): PermissionRule {
    const current = this.deps.rules.get(id)
    if (!current) throw notFound(id)
    const next = {
      ...current,
      rule: rule === undefined ? current.rule : assertRule(rule),
      action: action ?? current.action,
    }
    this.deps.rules.update(next)
    this.changed()
    return next
  }

  remove({ id }: { id: string }): { id: string } {
    if (!this.deps.rules.delete(id)) throw notFound(id)
    this.changed()
    return { id }
  }

  private judge(call: ToolHookCall, setup: GateSetup, folder: string | null): Promise<Verdict> {
    return evaluateCall({
      tool: call.context.tool,
      description: call.description,
      mode: setup.mode,
      folder,
      rules: this.deps.rules.applicable(setup.chatId, folder),
      protectedPaths: this.deps.preferences.get().protectedPaths,
    })
  }

  /** A verdict the rules and the mode reached alone. */
  private settle(verdict: Verdict): undefined | { denied: string } {
    this.deps.rules.markUsed(verdict.rulesUsed, this.now())
    if (verdict.action === 'allow') return undefined
    return { denied: `Atelier's permissions refuse this call: ${verdict.reasons.join(' ')} Do not retry it.` }
  }

  private async askPerson(
    call: ToolHookCall,
    verdict: Verdict,
    setup: GateSetup,
    folder: string | null,
  ): Promise<undefined | { denied: string }> {
    const { context } = call
    const request: ApprovalRequest = {
      id: randomUUID(),
      chatId: setup.chatId,
      callId: context.callId,
      tool: context.tool,
      arguments: call.args,
      description: call.description,
      reasons: verdict.reasons,
      ...(await previewOf(call)),
      ...(verdict.commands && { commands: verdict.commands }),
      suggestedRules: verdict.suggestedRules,
      folder,
    }
    const outcome = await this.ask(request, setup, context.signal)
    this.deps.rules.markUsed(verdict.rulesUsed, this.now())
    switch (outcome.decision) {
      case 'allow-once':
        return undefined
      case 'allow-chat':
        this.add({ rule: context.tool, action: 'allow', scope: 'chat', chatId: setup.chatId }, 'approval')
        return undefined
      case 'always':
        for (const rule of outcome.rules) {
          this.add({ rule, action: 'allow', scope: outcome.scope, ...(folder && { folder }) }, 'approval')
        }
        return undefined
      case 'deny':
        return {
          denied: outcome.message?.trim()
            ? `The user denied this call, saying: ${outcome.message.trim()}`
            : 'The user denied this call.',
        }
      case 'unanswered':
        return { denied: outcome.reason }
    }
  }

  /** Shows the card and waits for its answer; the card ends (`cancelled`) when the call stops. */
  private async ask(
    request: ApprovalRequest,
    setup: Pick<GateSetup, 'asker' | 'emit'>,
    signal: AbortSignal,
  ): Promise<AskResult> {
    // Asked before it is announced, so an answer to the announcement finds the card waiting.
    const answered = setup.asker.ask(request, signal)
    setup.emit({ type: 'approval_requested', request })
    let outcome: AskResult | undefined
    try {
      outcome = await answered
      return outcome
    } finally {
      const decision = outcome?.decision
      setup.emit({
        type: 'approval_resolved',
        id: request.id,
        callId: request.callId,
        outcome: decision === undefined ? 'cancelled' : decision === 'unanswered' ? 'deny' : decision,
      })
    }
  }

  private changed(): void {
    this.deps.events.emit('permissions.changed', { rules: this.list() })
  }
}

async function previewOf(call: ToolHookCall): Promise<Pick<ApprovalRequest, 'preview'>> {
  if (call.description.kind !== 'edit') return {}
  const preview = await call.preview()
  return preview ? { preview } : {}
}

/** Rules and locations are compared as real paths: a folder reached through a link is the same folder. */
function realFolder(folder: string): string {
  try {
    return realpathSync(folder)
  } catch {
    return resolve(folder)
  }
}

/** Waits for `previous`, or rejects as soon as the call is stopped. */
function untilStopped(previous: Promise<void>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted()
  return new Promise((done, fail) => {
    const stop = () => fail(signal.reason)
    signal.addEventListener('abort', stop, { once: true })
    previous.then(() => {
      signal.removeEventListener('abort', stop)
      done()
    })
  })
}

function notFound(id: string): AtelierError {
  return new AtelierError('not_found', `No permission rule with id "${id}".`, { id })
}
