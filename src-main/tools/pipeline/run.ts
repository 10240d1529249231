/**
 * Stage 5, run: the call goes to its tool's runner, within its budget. The deadline starts here,
 * after any wait for a person. A tool that ignores its signal still cannot hold the turn past its
 * budget; one that handles its own stop (a shell reporting `aborted` with the output so far) is
 * given a moment to answer. A call that has begun to make its change is waited for: the result
 * must say what happened, and "timed out" for a write that then lands is a lie the model acts on.
 */
import type { RegisteredTool, ToolCallRecord, ToolHost } from '../types'

/** How long past its budget a tool that times itself out gets before the executor steps in. */
const OWN_TIMEOUT_GRACE_SECONDS = 5

/**
 * How long a stopped tool of kind `edit` that cannot say whether it committed (an MCP server's,
 * a custom tool) is given to report what it did before the executor calls it stopped.
 */
const EDIT_SETTLE_MS = 2000

/** The reason a call's signal aborts when its budget is spent. */
export class Timeout extends Error {}

/**
 * Whether a call has passed its point of no return: the tool says so through its host's
 * `beginCommit` (see ToolHost). A stop arriving later cannot undo the change, so the executor waits
 * for the call to report it instead of calling it stopped.
 */
export interface CommitState {
  begun: boolean
}

/** How long a stopped call is still awaited before the executor reports the stop. */
function settleAfterStop(tool: RegisteredTool): number {
  if (tool.managesOwnTimeout) return OWN_TIMEOUT_GRACE_SECONDS * 1000
  return tool.kind === 'edit' ? EDIT_SETTLE_MS : 0
}

export async function runWithinBudget(
  tool: RegisteredTool,
  call: ToolCallRecord,
  host: ToolHost,
  controller: AbortController,
  timeoutSeconds: number,
  commit: CommitState,
): Promise<unknown> {
  const { signal } = controller
  const grace = tool.managesOwnTimeout ? OWN_TIMEOUT_GRACE_SECONDS * 1000 : 0
  call.deadline = Date.now() + timeoutSeconds * 1000
  let timer = setTimeout(() => controller.abort(new Timeout()), timeoutSeconds * 1000 + grace)
  let settled = false
  // A question the call puts to the person (a plan to approve, say) is not its budget: the clock
  // stops while it waits, and goes on with what was left.
  const { ask } = host
  const asking = ask && {
    ...host,
    ask: async (...question: Parameters<typeof ask>) => {
      clearTimeout(timer)
      const left = call.deadline - Date.now()
      try {
        return await ask(...question)
      } finally {
        call.deadline = Date.now() + left
        if (!settled) timer = setTimeout(() => controller.abort(new Timeout()), left + grace)
      }
    },
  }
  let giveUp: NodeJS.Timeout | undefined
  const stopped = new Promise<never>((_, reject) => {
    const onStop = () => {
      // Past its commit the call's change is made whatever the stop says: its own result tells it.
      if (commit.begun) return
      giveUp = setTimeout(() => reject(signal.reason), settleAfterStop(tool))
    }
    signal.addEventListener('abort', onStop, { once: true })
  })
  try {
    signal.throwIfAborted()
    return await Promise.race([tool.runner.run(call, asking || host), stopped])
  } finally {
    settled = true
    clearTimeout(timer)
    clearTimeout(giveUp)
    stopped.catch(() => {})
  }
}
