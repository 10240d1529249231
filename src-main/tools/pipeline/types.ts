import type { PendingActionView } from '../../../src-shared/approvals'
import type { ChatMode } from '../../../src-shared/contract'
import type { ElicitationAnswer, ElicitationQuestion } from '../../../src-shared/elicitation'
import type { ToolDisplay, ToolErrorType, ToolProgress } from '../../../src-shared/tools'
import type { ToolHost } from '../types'
import type { CallGate } from './decide'

/** One call as a model made it. `arguments` may be the raw JSON text or already parsed. */
export interface ToolCall {
  id?: string
  name: string
  arguments: unknown
}

/** Where and for whom the call runs. */
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
  /** The turn's approvals; absent where the person makes the call themselves (`atelier tool`, the playground). */
  gate?: CallGate
  /** The person's stop. */
  signal?: AbortSignal
  onUpdate?: (progress: ToolProgress) => void
  /** Stops the whole turn (see ToolHost). */
  abortTurn?: ToolHost['abortTurn']
  /** Asks the turn's person about a change a call proposes (see ToolHost's `confirm`). */
  confirmAction?: (
    action: PendingActionView,
    call: { callId: string; tool: string; args: unknown },
    signal: AbortSignal,
  ) => Promise<boolean>
  /** Asks the turn's person what an MCP server wants to know during a call (see ToolHost's `elicit`). */
  elicit?: (
    question: ElicitationQuestion,
    call: { callId: string; tool: string },
    signal: AbortSignal,
  ) => Promise<ElicitationAnswer>
}

/** What the model receives (`content`) and what only hooks and the UI see (the rest). */
export interface ToolExecutionResult {
  content: string
  isError: boolean
  errorType?: ToolErrorType
  /** The content was cut: by the result cap, or by the tool itself (a file window, a capped stream). */
  truncated: boolean
  durationMs: number
  display?: ToolDisplay
  data?: unknown
}
