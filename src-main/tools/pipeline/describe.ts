/**
 * Stage 3, describe: what the call will do, in words and paths, before anything decides on it —
 * what a policy matches and a person reads instead of raw JSON. Then stage 4, check.
 */
import type { ToolCallDescription, ToolDisplay } from '../../../src-shared/tools'
import type { RegisteredTool, ToolContext } from '../types'

export async function describeCall(
  tool: RegisteredTool,
  args: unknown,
  context: ToolContext,
): Promise<ToolCallDescription> {
  if (!tool.describe) return { kind: tool.kind, summary: tool.definition.name, locations: [] }
  return { kind: tool.kind, ...(await tool.describe(args, context)) }
}

/**
 * What the call would change, for a person deciding on it. A preview that fails (the file is gone,
 * the edit would not apply) shows nothing: the call itself will say why when it runs.
 */
export async function previewCall(
  tool: RegisteredTool,
  args: unknown,
  context: ToolContext,
): Promise<ToolDisplay | undefined> {
  try {
    return await tool.preview?.(args, context)
  } catch {
    return undefined
  }
}

/**
 * Stage 4, check: what would make the call fail whoever allowed it — a path outside the folder, a
 * file this chat has not read, an edit that does not apply — found before anyone is asked, so a
 * person is never asked about a call that cannot succeed. The tool checks again when it runs.
 */
export async function checkCall(tool: RegisteredTool, args: unknown, context: ToolContext): Promise<void> {
  await tool.check?.(args, context)
}
