/**
 * Stage 5, run: the call goes to its tool's runner, within its budget. The deadline starts here,
 * after any wait for a person. A tool that ignores its signal still cannot hold the turn past its
 * budget; one that handles its own stop (a shell reporting `aborted` with the output so far) is
 * given a moment to answer.
 */
import type { RegisteredTool, ToolCallRecord, ToolHost } from '../types'

/** How long past its budget a tool that times itself out gets before the executor steps in. */
const OWN_TIMEOUT_GRACE_SECONDS = 5

/** The reason a call's signal aborts when its budget is spent. */
export class Timeout extends Error {}

export async function runWithinBudget(
  tool: RegisteredTool,
  call: ToolCallRecord,
  host: ToolHost,
  controller: AbortController,
  timeoutSeconds: number,
): Promise<unknown> {
  const { signal } = controller
  const grace = tool.managesOwnTimeout ? OWN_TIMEOUT_GRACE_SECONDS * 1000 : 0
  call.deadline = Date.now() + timeoutSeconds * 1000
  const timer = setTimeout(() => controller.abort(new Timeout()), timeoutSeconds * 1000 + grace)
  let giveUp: NodeJS.Timeout | undefined
  const stopped = new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => (giveUp = setTimeout(() => reject(signal.reason), grace)), {
      once: true,
    })
  })
  try {
    signal.throwIfAborted()
    return await Promise.race([tool.runner.run(call, host), stopped])
  } finally {
    clearTimeout(timer)
    clearTimeout(giveUp)
    stopped.catch(() => {})
  }
}
