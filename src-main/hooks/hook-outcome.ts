/**
 * What a hook's exit and output mean, as Claude Code defines them: exit 0 continues (its stdout may
 * be a JSON answer), exit 2 blocks with stderr as the reason, any other exit is an error that blocks
 * nothing. Several hooks of one event run side by side; the strictest answer wins.
 */
import type { HookDecision, HookEvent, HookRun } from '../../src-shared/hooks'
import type { HookProcessResult } from './run-hook-command'

/** What a run decided, with its reason and the text it gives the model. */
export type HookVerdict = Pick<HookRun, 'decision' | 'reason' | 'context'>

/** Events whose plain (non-JSON) stdout is context for the model, as in Claude Code. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEvent> = new Set(['UserPromptSubmit', 'SessionStart'])

export function verdictOf(event: HookEvent, result: HookProcessResult): HookVerdict {
  if (result.failure || result.timedOut) return { decision: 'error', reason: result.failure }
  if (result.exitCode === 2) {
    return { decision: 'block', reason: result.stderr.trim() || 'The hook exited with code 2.' }
  }
  if (result.exitCode !== 0) {
    const said = result.stderr.trim()
    return { decision: 'error', reason: `It exited with code ${result.exitCode}${said ? `: ${said}` : '.'}` }
  }
  const stdout = result.stdout.trim()
  if (!stdout.startsWith('{')) {
    return STDOUT_IS_CONTEXT.has(event) && stdout
      ? { decision: 'none', context: stdout }
      : { decision: 'none' }
  }
  let answer: Record<string, unknown>
  try {
    answer = JSON.parse(stdout) as Record<string, unknown>
  } catch (error) {
    return {
      decision: 'error',
      reason: `It printed output that is not valid JSON: ${(error as Error).message}`,
    }
  }
  return answerOf(answer)
}

/** The fields of a JSON answer, at the top or under `hookSpecificOutput` as Claude Code nests them. */
function answerOf(answer: Record<string, unknown>): HookVerdict {
  const specific = (typeof answer.hookSpecificOutput === 'object' && answer.hookSpecificOutput) || {}
  const field = (name: string): unknown => (specific as Record<string, unknown>)[name] ?? answer[name]
  const text = (name: string) => (typeof field(name) === 'string' ? (field(name) as string) : undefined)
  const context = text('additionalContext')
  const withContext = (verdict: HookVerdict): HookVerdict => (context ? { ...verdict, context } : verdict)
  if (answer.continue === false) {
    return withContext({ decision: 'stop', reason: text('stopReason') ?? 'A hook stopped the turn.' })
  }
  const permission = text('permissionDecision')
  const reason = text('permissionDecisionReason') ?? text('reason')
  const decided = (decision: HookDecision) => withContext({ decision, ...(reason && { reason }) })
  if (permission === 'deny' || answer.decision === 'block') return decided('block')
  if (permission === 'ask') return decided('ask')
  if (permission === 'allow' || answer.decision === 'approve') return decided('allow')
  return withContext({ decision: 'none' })
}

const STRICTNESS: Record<HookDecision, number> = { error: 0, none: 0, allow: 1, ask: 2, block: 3, stop: 4 }

/** What the hooks of one event decided together: the strictest decision, its reasons, every context. */
export interface HookOutcome {
  decision: HookDecision
  /** The reasons of the runs that decided it, each naming its hook. */
  reason?: string
  /** What every run gave the model to read, in order. */
  context?: string
  runs: HookRun[]
}

export function combine(runs: HookRun[]): HookOutcome {
  let decision: HookDecision = 'none'
  for (const run of runs) if (STRICTNESS[run.decision] > STRICTNESS[decision]) decision = run.decision
  const deciding = decision === 'none' ? [] : runs.filter((run) => run.decision === decision)
  const reason = deciding.map((run) => `${run.reason ?? 'no reason given'} (hook: ${run.command})`).join(' ')
  const context = runs.flatMap((run) => (run.context ? [run.context] : [])).join('\n\n')
  return { decision, runs, ...(reason && { reason }), ...(context && { context }) }
}
