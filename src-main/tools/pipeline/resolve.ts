/**
 * Stage 1, resolve: the call names a tool that is registered, enabled for the user and offered in
 * this turn — what the model was shown, not merely what exists — and, for a project's own custom
 * tool, called in that project.
 */
import { ToolError } from '../errors'
import type { RegistryEntry, ToolRegistry } from '../registry'
import type { ToolSettingsService } from '../tool-settings-service'
import type { EffectiveToolSettings } from '../types'

export interface ResolvedTool {
  entry: RegistryEntry
  settings: EffectiveToolSettings
}

export function resolveTool(
  registry: ToolRegistry,
  toolSettings: ToolSettingsService,
  name: string,
  user: string,
  offered: ReadonlySet<string> | undefined,
  workingDirectory: string | null,
): ResolvedTool {
  const entry = registry.get(name)
  if (!entry) {
    const names = offered ? [...offered] : registry.list().map((e) => e.tool.definition.name)
    throw new ToolError(
      'unknown_tool',
      `Unknown tool "${name}". Available tools: ${names.join(', ') || 'none'}.`,
    )
  }
  const { settings } = toolSettings.resolve(user, entry)
  if (!settings.enabled) {
    throw new ToolError(
      'not_enabled',
      `The tool "${name}" is turned off in Atelier's settings; do not call it again. The user can turn it on in Settings → Tools.`,
    )
  }
  if (offered && !offered.has(name)) {
    throw new ToolError(
      'not_offered',
      `The tool "${name}" is not offered in this chat; do not call it again. Offered tools: ${[...offered].join(', ') || 'none'}.`,
    )
  }
  const { source } = entry
  if (source.kind === 'custom' && source.project !== undefined && source.project !== workingDirectory) {
    throw new ToolError(
      'not_offered',
      `The tool "${name}" belongs to the project ${source.project} and runs only in chats bound to it.`,
    )
  }
  return { entry, settings }
}
