/**
 * Stage 3, describe: what the call will do, in words and paths, before anything decides on it —
 * what a policy matches and a person reads instead of raw JSON.
 */
import type { ToolCallDescription } from '../../../src-shared/tools'
import type { RegisteredTool, ToolContext } from '../types'

export async function describeCall(
  tool: RegisteredTool,
  args: unknown,
  context: ToolContext,
): Promise<ToolCallDescription> {
  if (!tool.describe) return { kind: tool.kind, summary: tool.definition.name, locations: [] }
  return { kind: tool.kind, ...(await tool.describe(args, context)) }
}
