/**
 * MCP servers as settings: added by hand or imported from an `mcpServers` file (as Claude Desktop
 * and Cursor write it), switched on and off, and — for stdio servers — started only once the person
 * has seen and approved the exact command line, again after any change to it.
 */
import { randomUUID } from 'node:crypto'
import { AtelierError } from '../../../src-shared/errors'
import type { McpServerInfo, McpServerInput, McpServerStatus } from '../../../src-shared/mcp'
import type { AtelierEvents } from '../../core/events'
import type { McpServersRepository, StoredMcpServer } from '../../db/mcp-servers-repository'
import type { ToolRegistry } from '../registry'
import type { McpServerConfig } from './mcp-connection'
import { McpManager } from './mcp-manager'

const NAME = /^[a-zA-Z0-9_-]{1,32}$/

/** The command line as a person would type it: arguments with spaces or quotes are quoted. */
export function commandLine(server: McpServerConfig): string {
  if (server.transport === 'http') return server.url
  const quote = (part: string) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`)
  return [server.command, ...server.args].map(quote).join(' ')
}

export class McpServerService {
  private readonly manager: McpManager
  /** Once closing, the database may be gone: nothing more is announced. */
  private closed = false
  /** The servers' states as `prepare` last announced them; any other announcement clears it. */
  private announcedStates = ''

  constructor(
    private readonly repository: McpServersRepository,
    registry: ToolRegistry,
    private readonly events: AtelierEvents,
    private readonly now: () => number = Date.now,
  ) {
    this.manager = new McpManager(registry, () => this.changed())
  }

  list(): McpServerInfo[] {
    return this.repository.list().map((server) => this.toInfo(server))
  }

  /** Adds a server, on. `approve`: the person has seen the command line (the CLI prints it back). */
  add(input: McpServerInput, { approve }: { approve: boolean }): McpServerInfo {
    this.checkName(input.name)
    const config = configFrom(randomUUID(), input)
    const server: StoredMcpServer = {
      ...config,
      enabled: true,
      approvedLaunch: approve ? launchOf(config) : null,
    }
    return this.save(server)
  }

  /**
   * Edits a server, keeping it on or off. Its session is closed so the next use runs the server as
   * it now stands; a stdio server whose launch changed waits for approval again.
   */
  async update(name: string, input: McpServerInput): Promise<McpServerInfo> {
    const current = this.get(name)
    if (input.name !== current.name) this.checkName(input.name)
    const next: StoredMcpServer = {
      ...configFrom(current.id, input),
      enabled: current.enabled,
      approvedLaunch: current.approvedLaunch,
    }
    // Saved first, so a turn starting meanwhile cannot bring the old launch back.
    this.repository.save(next, this.now())
    await this.manager.disconnect(current.id)
    return this.announce(next)
  }

  /** Reads an `mcpServers` JSON file; servers whose name exists are skipped. Imported servers await approval. */
  import(json: string): { added: string[]; skipped: string[] } {
    let parsed: unknown
    try {
      parsed = JSON.parse(json)
    } catch (error) {
      throw new AtelierError(
        'invalid_import',
        `The file is not JSON: ${error instanceof Error ? error.message : error}`,
      )
    }
    const servers = (parsed as { mcpServers?: unknown })?.mcpServers
    if (typeof servers !== 'object' || servers === null) {
      throw new AtelierError('invalid_import', 'The file has no "mcpServers" object.')
    }
    const added: string[] = []
    const skipped: string[] = []
    for (const [name, value] of Object.entries(servers as Record<string, Record<string, unknown>>)) {
      if (this.repository.byName(name)) {
        skipped.push(name)
        continue
      }
      const input: McpServerInput =
        typeof value.url === 'string'
          ? { name, transport: 'http', url: value.url, headers: stringRecord(value.headers) }
          : {
              name,
              transport: 'stdio',
              command: String(value.command ?? ''),
              args: Array.isArray(value.args) ? value.args.map(String) : [],
              env: stringRecord(value.env),
              cwd: typeof value.cwd === 'string' ? value.cwd : null,
            }
      this.add(input, { approve: false })
      added.push(name)
    }
    return { added, skipped }
  }

  /** Turning a server off ends its session at once: a stdio server's process tree is killed. */
  async setEnabled(
    name: string,
    enabled: boolean,
    { approve }: { approve: boolean },
  ): Promise<McpServerInfo> {
    const server = this.get(name)
    const next = { ...server, enabled, approvedLaunch: approve ? launchOf(server) : server.approvedLaunch }
    this.repository.save(next, this.now())
    if (!enabled) await this.manager.disconnect(server.id)
    return this.announce(next)
  }

  async remove(name: string): Promise<void> {
    const server = this.get(name)
    this.repository.delete(server.id)
    await this.manager.forget(server.id)
    this.changed()
  }

  /**
   * Connects the enabled, approved servers (and only those) and brings their tools into the
   * registry; servers turned off or removed since are disconnected and their tools removed.
   */
  async prepare(): Promise<McpServerStatus[]> {
    const enabled = this.repository.list().filter((server) => server.enabled)
    const ready = enabled.filter((server) => !needsApproval(server))
    const statuses = await this.manager.prepare(ready.map(configOf))
    const waiting = enabled.filter(needsApproval).map(({ id, name }) => ({
      id,
      name,
      connected: false,
      tools: [],
      error: 'its command line waits for your approval in Settings → MCP',
    }))
    // Every turn and inspection comes here: settings hear of it only when a server's state moved.
    const statesNow = JSON.stringify(statuses)
    if (statesNow !== this.announcedStates) {
      this.changed()
      this.announcedStates = statesNow
    }
    return [...statuses, ...waiting]
  }

  /** The person has seen the server's launch as it now stands and lets it run. */
  approve(name: string): McpServerInfo {
    const server = this.get(name)
    return this.save({ ...server, approvedLaunch: launchOf(server) })
  }

  /** What a server wrote to stderr in its current or last session (the last 64 KiB); empty before it ran. */
  stderr(name: string): string {
    return this.manager.stderr(this.get(name).id)
  }

  /** Disconnects every server (a stdio server's process ends with its session). */
  close(): Promise<void> {
    this.closed = true
    return this.manager.close()
  }

  private save(server: StoredMcpServer): McpServerInfo {
    this.repository.save(server, this.now())
    return this.announce(server)
  }

  private announce(server: StoredMcpServer): McpServerInfo {
    this.changed()
    return this.toInfo(server)
  }

  private changed(): void {
    this.announcedStates = ''
    if (this.closed) return
    this.events.emit('mcp.changed', { servers: this.list() })
  }

  private checkName(name: string): void {
    if (!NAME.test(name)) {
      throw new AtelierError(
        'invalid_name',
        `An MCP server name is 1 to 32 letters, digits, "_" or "-", not "${name}".`,
      )
    }
    if (this.repository.byName(name)) {
      throw new AtelierError('name_taken', `An MCP server named "${name}" already exists.`)
    }
  }

  private toInfo(server: StoredMcpServer): McpServerInfo {
    const { connected, tools, error } = this.manager.status(server)
    return {
      id: server.id,
      name: server.name,
      transport: server.transport,
      target: commandLine(server),
      enabled: server.enabled,
      needsApproval: needsApproval(server),
      definition: inputOf(server),
      running: connected,
      ...(error && { error }),
      tools,
    }
  }

  private get(name: string): StoredMcpServer {
    const server = this.repository.byName(name) ?? this.repository.get(name)
    if (!server) throw new AtelierError('not_found', `No MCP server named "${name}".`, { name })
    return server
  }
}

/**
 * What a person approves of a stdio server: the command line, and the environment and folder it
 * runs with, since either can change what the command does. Remote servers need no approval.
 */
function launchOf(server: McpServerConfig): string {
  if (server.transport === 'http') return ''
  return JSON.stringify({ command: commandLine(server), env: server.env, cwd: server.cwd })
}

function needsApproval(server: StoredMcpServer): boolean {
  return server.transport === 'stdio' && server.approvedLaunch !== launchOf(server)
}

function configFrom(id: string, input: McpServerInput): McpServerConfig {
  return input.transport === 'stdio'
    ? {
        id,
        name: input.name,
        transport: 'stdio',
        command: input.command,
        args: input.args ?? [],
        env: input.env ?? {},
        cwd: input.cwd ?? null,
      }
    : { id, name: input.name, transport: 'http', url: validUrl(input.url), headers: input.headers ?? {} }
}

function inputOf(server: StoredMcpServer): McpServerInput {
  const { id: _, enabled: __, approvedLaunch: ___, ...input } = server
  return input
}

function configOf({ enabled: _, approvedLaunch: __, ...config }: StoredMcpServer): McpServerConfig {
  return config
}

function validUrl(url: string): string {
  if (!/^https?:\/\/\S+$/.test(url)) throw new AtelierError('invalid_url', `"${url}" is not an http(s) URL.`)
  return url
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {}
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, String(item)]))
}
