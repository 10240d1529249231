/**
 * Stage 2, validate: the arguments against the tool's source schema, `null` as absent. A wrong
 * argument is a ToolArgumentError the model can fix, never replaced by a default.
 */
import { validateToolArguments } from '../arg-parsing'
import type { RegisteredTool } from '../types'

export function validateArguments(tool: RegisteredTool, raw: unknown): unknown {
  return validateToolArguments(tool.definition.name, tool.definition.parameters, raw)
}
