/**
 * Stage 4, decide: whether the described call may run. Before-tool hooks answer here, and so will
 * the approval policy; any of them may block it with a reason the model reads, or wait for a
 * person. Waiting is not run time: the tool's timeout starts after this stage.
 */
import { ToolError } from '../errors'
import { type BeforeToolHook, runHook, type ToolHookCall } from './hooks'

export async function decide(hooks: Iterable<BeforeToolHook>, call: ToolHookCall): Promise<void> {
  const name = call.context.tool
  for (const hook of hooks) {
    const verdict = await runHook(name, 'beforeTool', () => hook(call))
    if (verdict) throw new ToolError('blocked', `The call to ${name} was blocked: ${verdict.block}`)
  }
}
