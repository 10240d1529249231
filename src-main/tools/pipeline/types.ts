import type { ChatMode } from '../../../src-shared/contract'
import type { ToolCallResult } from '../../../src-shared/tool-calls'
import type { ToolProgress } from '../../../src-shared/tools'
import type { ToolCallRecord, ToolHost } from '../types'

/** One call as a model made it. `arguments` may be the raw JSON text or already parsed. */
export interface ToolCall {
  id?: string
  name: string
  arguments: unknown
}

/** Where and for whom the call runs, and the ways back to whoever watches it. */
export interface ToolCallScope {
  chatId?: string
  user: string
  workingDirectory: string | null
  mode: ChatMode
  restrict: boolean
  /**
   * The tools the model was offered in this turn; a call to any other is refused. Absent where
   * there is no turn (`atelier tool`, the playground): every enabled tool may run.
   */
  offered?: ReadonlySet<string>
  /** The provider and model of the turn that makes the call; absent where there is no turn. */
  model?: ToolCallRecord['model']
  /** The person's stop (for a one-shot `execute`; a turn's scheduler passes its own to `run`). */
  signal?: AbortSignal
  onUpdate?: (progress: ToolProgress) => void
  /** Stops the whole turn (see ToolHost). */
  abortTurn?: ToolHost['abortTurn']
  /** Asks the turn's person something while the call runs (see ToolHost). */
  ask?: ToolHost['ask']
  /** Puts the chat in another approval mode from the turn's next request on (see ToolHost). */
  switchApprovalMode?: ToolHost['switchApprovalMode']
  /** Runs subagents for the call (see ToolHost). */
  subagents?: ToolHost['subagents']
  /** Sends an MCP server's approved sampling request to the chat's model (see ToolHost). */
  sample?: ToolHost['sample']
  /** The person ran it themselves outside the sandbox (`atelier tool --no-sandbox`): commands run as they are. */
  unsandboxed?: boolean
}

/** What the model receives (`content`) and what only hooks and the UI see (the rest). */
export type ToolExecutionResult = ToolCallResult
