import type { McpServerStatus } from '../../src-shared/mcp'
import type { ServiceDiscovery } from '../../src-shared/tool-services'
import type { ToolDefinition } from '../../src-shared/tools'
import type { ToolRegistry } from './registry'
import { getToolDefinitionsForTools } from './settings-policy'
import type { ToolSettingsService } from './tool-settings-service'

/**
 * The tools one turn offers, computed once: the request carries these definitions (mapped to the
 * wire once), the inspector shows them, and the executor refuses a call to any tool not among them.
 */
export interface ToolProjection {
  definitions: ToolDefinition[]
  offered: ReadonlySet<string>
  /** The enabled MCP servers as connecting them went. */
  servers: McpServerStatus[]
  /** Whether a tool that runs commands (a shell) is among them: what the sandbox confines. */
  runsCommands: boolean
  /** Set when the broker had just connected: how long the projection waited for the services' announcements. */
  discovery?: ServiceDiscovery
}

/** Saved settings merged over defaults, disabled tools left out, each definition built for its settings. */
export function enabledToolDefinitions(
  registry: ToolRegistry,
  settings: ToolSettingsService,
  user: string,
): ToolDefinition[] {
  const enabled = registry
    .list()
    .map((entry) => ({ tool: entry.tool, settings: settings.resolve(user, entry).settings }))
    .filter((item) => item.settings.enabled)
  return getToolDefinitionsForTools(enabled)
}
