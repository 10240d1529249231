/**
 * Approvals: the gate a turn's calls pass before they run (the rules and the mode, then the person
 * when they ask), and the saved rules behind Settings → Permissions and `atelier permissions`.
 */
import { randomUUID } from 'node:crypto'
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import type { ApprovalMode, ApprovalRequest, PermissionRule, RuleSource } from '../../src-shared/approvals'
import type { MethodRequest } from '../../src-shared/contract'
import { AtelierError } from '../../src-shared/errors'
import type { AtelierEvents } from '../core/events'
import type { PermissionRulesRepository } from '../db/permission-rules-repository'
import type { PreferencesService } from '../preferences/preferences-service'
import type { ToolHookCall } from '../tools/executor'
import type { ApprovalGate, AskApproval, GateVerdict } from '../tools/scheduler/scheduler'
import { evaluateCall, type Verdict } from './policy'
import { assertRule } from './rules'

/** Where a turn's calls are judged: its chat, the folder it works in (null in chat mode), its mode. */
export interface GateSetup {
  chatId: string
  folder: string | null
  mode: ApprovalMode
}

export interface ApprovalServiceDeps {
  rules: PermissionRulesRepository
  preferences: PreferencesService
  events: AtelierEvents
  now?: () => number
}

export class ApprovalService {
  private readonly now: () => number

  constructor(private readonly deps: ApprovalServiceDeps) {
    this.now = deps.now ?? Date.now
  }

  /**
   * The gate for one turn's calls. A call is judged when its turn to be decided comes (after the
   * calls before it), so "Allow for this chat" on one card spares the person the rest.
   */
  gateFor(setup: GateSetup): ApprovalGate {
    const folder = setup.folder === null ? null : realFolder(setup.folder)
    return async (call, ask, hooked) => {
      const judged = await this.judge(call, setup, folder, hooked?.permission === 'allow')
      // A hook that asks makes a call the rules and the mode let run wait for the person.
      const verdict: Verdict =
        hooked?.permission === 'ask' && judged.action === 'allow'
          ? { ...judged, action: 'ask', reasons: [`A hook asks: ${hooked.reason}`] }
          : judged
      if (verdict.action === 'ask') return this.askPerson(call, verdict, setup, folder, ask)
      this.deps.rules.markUsed(verdict.rulesUsed, this.now())
      const by = verdict.rulesUsed.length > 0 ? 'rule' : hooked?.permission === 'allow' ? 'hook' : 'mode'
      const decided = {
        kind: 'approval' as const,
        by: by as 'rule' | 'hook' | 'mode',
        ...(verdict.rulesUsed.length > 0 && { rules: verdict.rulesWritten }),
        at: this.now(),
      }
      if (verdict.action === 'allow') return { decision: { ...decided, outcome: 'allowed' } }
      const reasons = verdict.reasons.join(' ')
      return {
        decision: { ...decided, outcome: 'denied', message: reasons },
        refusal: `Atelier's permissions refuse this call: ${reasons} Do not retry it.`,
      }
    }
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

  private judge(
    call: ToolHookCall,
    setup: GateSetup,
    folder: string | null,
    hookAllows: boolean,
  ): Promise<Verdict> {
    return evaluateCall({
      hookAllows,
      tool: call.context.tool,
      description: call.description,
      mode: setup.mode,
      folder,
      rules: this.deps.rules.applicable(setup.chatId, folder),
      protectedPaths: this.deps.preferences.get().protectedPaths,
      sandbox: this.deps.preferences.get().sandbox,
    })
  }

  private async askPerson(
    call: ToolHookCall,
    verdict: Verdict,
    setup: GateSetup,
    folder: string | null,
    ask: AskApproval,
  ): Promise<GateVerdict> {
    const { context } = call
    const request: ApprovalRequest = {
      kind: 'approval',
      id: randomUUID(),
      chatId: setup.chatId,
      callId: context.callId,
      tool: context.tool,
      description: call.description,
      reasons: verdict.reasons,
      ...(await previewOf(call)),
      ...(verdict.commands && { commands: verdict.commands }),
      suggestedRules: verdict.suggestedRules,
      folder,
    }
    const { answer, waitedMs } = await ask(request)
    this.deps.rules.markUsed(verdict.rulesUsed, this.now())
    const decided = { kind: 'approval' as const, by: 'person' as const, at: this.now(), waitedMs }
    if (!('decision' in answer) || answer.decision === 'approve-plan' || answer.decision === 'keep-planning')
      throw new AtelierError('invalid_answer', 'An approval was answered as another kind of question.')
    switch (answer.decision) {
      case 'allow-once':
        return { decision: { ...decided, outcome: 'allowed', scope: 'once' } }
      case 'allow-chat':
        this.add({ rule: context.tool, action: 'allow', scope: 'chat', chatId: setup.chatId }, 'approval')
        return { decision: { ...decided, outcome: 'allowed', scope: 'chat', rules: [context.tool] } }
      case 'always':
        for (const rule of answer.rules) {
          this.add({ rule, action: 'allow', scope: answer.scope, ...(folder && { folder }) }, 'approval')
        }
        return { decision: { ...decided, outcome: 'allowed', scope: answer.scope, rules: answer.rules } }
      case 'deny': {
        const message = answer.message?.trim()
        return {
          decision: { ...decided, outcome: 'denied', ...(message && { message }) },
          refusal: message ? `The user denied this call, saying: ${message}` : 'The user denied this call.',
        }
      }
      case 'unanswered':
        // Kept with the call: why it needed a person. The model reads why nobody answered.
        return {
          decision: { ...decided, by: 'nobody', outcome: 'denied', message: verdict.reasons.join(' ') },
          refusal: answer.reason,
        }
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

function notFound(id: string): AtelierError {
  return new AtelierError('not_found', `No permission rule with id "${id}".`, { id })
}
