/**
 * Stage 4, decide: whether the described call may run. Before-tool hooks answer first, then the
 * approval gate of the turn (its policy, and a person when the policy asks). Either may refuse with
 * a reason the model reads. Waiting is not run time: the tool's timeout starts after this stage.
 */
import { ToolError } from '../errors'
import { type BeforeToolHook, runHook, type ToolHookCall } from './hooks'

/**
 * The approval gate a turn puts its calls through: resolves when the call may run, or with the
 * refusal the model reads. It may wait for a person; the call's signal ends the wait.
 */
export type CallGate = (call: ToolHookCall) => Promise<undefined | { denied: string }>

export async function decide(
  hooks: Iterable<BeforeToolHook>,
  gate: CallGate | undefined,
  call: ToolHookCall,
): Promise<void> {
  const name = call.context.tool
  for (const hook of hooks) {
    const verdict = await runHook(name, 'beforeTool', () => hook(call))
    if (verdict) throw new ToolError('blocked', `The call to ${name} was blocked: ${verdict.block}`)
  }
  const verdict = await gate?.(call)
  if (verdict) throw new ToolError('denied', verdict.denied)
}
