/**
 * The registry only catalogues: names to tools, with their source. Built-ins register themselves at
 * import time into `builtinTools`; each app instance copies them into its own registry, which also
 * takes the entries that come and go at run time (MCP servers, tool services, custom modules).
 */
import { AtelierError } from '../../src-shared/errors'
import type { ToolSource } from '../../src-shared/tools'
import type { RegisteredTool } from './types'

/** Provider limits on function names: OpenAI, Gemini and Anthropic all accept this set. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/

export interface RegistryEntry {
  tool: RegisteredTool
  source: ToolSource
}

export class ToolRegistry {
  private readonly entries = new Map<string, RegistryEntry>()

  /**
   * Adds a tool. A name no provider accepts is refused (`invalid_name`), and so is a second tool of a
   * name (`name_taken`): an MCP server, a tool service or a custom module may bring one.
   */
  register(tool: RegisteredTool, source: ToolSource = { kind: 'builtin' }): () => void {
    const { name } = tool.definition
    if (!TOOL_NAME_PATTERN.test(name)) {
      throw new AtelierError(
        'invalid_name',
        `Tool name "${name}" must match ${TOOL_NAME_PATTERN} to be accepted by every provider.`,
        { name },
      )
    }
    if (this.entries.has(name)) {
      throw new AtelierError('name_taken', `A tool named "${name}" is already registered.`, { name })
    }
    this.entries.set(name, { tool, source })
    return () => {
      if (this.entries.get(name)?.tool === tool) this.entries.delete(name)
    }
  }

  get(name: string): RegistryEntry | undefined {
    return this.entries.get(name)
  }

  /** Every entry, sorted by name so listings and wire tool lists are stable. */
  list(): RegistryEntry[] {
    return [...this.entries.values()].sort((a, b) =>
      a.tool.definition.name.localeCompare(b.tool.definition.name),
    )
  }

  /** A new registry holding this one's entries; run-time additions to it stay its own. */
  clone(): ToolRegistry {
    const copy = new ToolRegistry()
    for (const { tool, source } of this.entries.values()) copy.register(tool, source)
    return copy
  }
}

/** Built-in tools, filled at import time by `registerTool` calls in `builtin/`. */
export const builtinTools = new ToolRegistry()

export function registerTool(tool: RegisteredTool): void {
  builtinTools.register(tool)
}
