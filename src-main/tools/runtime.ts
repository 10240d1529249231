import type { ToolDefinition } from '../../src-shared/tools'
import type { ToolRegistry } from './registry'
import { getToolDefinitionsForTools } from './settings-policy'
import type { ToolSettingsService } from './tool-settings-service'
import type { EffectiveToolSettings, RegisteredTool } from './types'

/** The tools a turn may offer: definitions for the provider, executors for the calls. */
export interface EnabledToolRuntime {
  definitions: ToolDefinition[]
  tools: Map<string, { tool: RegisteredTool; settings: EffectiveToolSettings }>
}

/**
 * Saved settings merged over defaults, disabled tools left out, each definition built for its
 * settings. The turn and the capabilities inspector both call this, so what one shows the other sends.
 */
export function getEnabledToolRuntime(
  registry: ToolRegistry,
  settings: ToolSettingsService,
  user: string,
): EnabledToolRuntime {
  const resolved = registry
    .list()
    .map((entry) => ({ tool: entry.tool, settings: settings.resolve(user, entry).settings }))
  const enabled = resolved.filter((item) => item.settings.enabled)
  return {
    definitions: getToolDefinitionsForTools(enabled),
    tools: new Map(enabled.map((item) => [item.tool.definition.name, item])),
  }
}
