/**
 * The MCP servers as saved: names checked, servers added, imported from an `mcpServers` file (as
 * Claude Desktop and Cursor write it), edited, switched on and off, approved and removed — rows in
 * the database, nothing live.
 */
import { randomUUID } from 'node:crypto'
import { AtelierError, errorMessage } from '../../../src-shared/errors'
import type { McpServerInput } from '../../../src-shared/mcp'
import { launchOf } from '../../core/mcp-launch'
import type { SealedSecrets } from '../../core/sealed-secrets'
import type { McpServersRepository, StoredMcpServer } from '../../db/mcp-servers-repository'
import { storedDefinition } from './mcp-server-definitions'

const NAME = /^[a-zA-Z0-9_-]{1,32}$/

/** `approve`: the person has seen the command line as it now stands (the CLI prints it back). */
export interface Approval {
  approve: boolean
}

export class McpServerStore {
  constructor(
    private readonly repository: McpServersRepository,
    private readonly secrets: SealedSecrets,
    private readonly now: () => number = Date.now,
  ) {}

  list(): StoredMcpServer[] {
    return this.repository.list()
  }

  /** The server by name (or id); refused with `not_found`. */
  get(name: string): StoredMcpServer {
    const server = this.repository.byName(name) ?? this.repository.get(name)
    if (!server) throw new AtelierError('not_found', `No MCP server named "${name}".`, { name })
    return server
  }

  /** The server by id as stored now, or undefined once removed. */
  byId(id: string): StoredMcpServer | undefined {
    return this.repository.get(id)
  }

  /** Adds a server, on. */
  add(input: McpServerInput, { approve }: Approval): StoredMcpServer {
    this.checkName(input.name)
    const definition = storedDefinition(randomUUID(), input, undefined, this.secrets)
    return this.save({ ...definition, enabled: true, approvedLaunch: approve ? launchOf(definition) : null })
  }

  /**
   * Saves an edit, keeping the server on or off and its approval as given: a stdio server whose
   * launch changed waits for approval again. A value sent as `MASKED_VALUE` keeps the stored one.
   * Returns the server as it was and as it is now.
   */
  update(name: string, input: McpServerInput): { before: StoredMcpServer; after: StoredMcpServer } {
    const before = this.get(name)
    if (input.name !== before.name) this.checkName(input.name)
    const after = this.save({
      ...storedDefinition(before.id, input, before, this.secrets),
      enabled: before.enabled,
      approvedLaunch: before.approvedLaunch,
    })
    return { before, after }
  }

  /** Reads an `mcpServers` JSON file; servers whose name exists are skipped. Imported servers await approval. */
  import(json: string): { added: string[]; skipped: string[] } {
    let parsed: unknown
    try {
      parsed = JSON.parse(json)
    } catch (error) {
      throw new AtelierError('invalid_import', `The file is not JSON: ${errorMessage(error)}`)
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

  setEnabled(name: string, enabled: boolean, { approve }: Approval): StoredMcpServer {
    const server = this.get(name)
    const approvedLaunch = approve ? launchOf(server) : server.approvedLaunch
    return this.save({ ...server, enabled, approvedLaunch })
  }

  /** The person has seen the server's launch as it now stands and lets it run. */
  approve(name: string): StoredMcpServer {
    const server = this.get(name)
    return this.save({ ...server, approvedLaunch: launchOf(server) })
  }

  /** Forgets the server; its OAuth credentials go with its row. Returns it as it was. */
  remove(name: string): StoredMcpServer {
    const server = this.get(name)
    this.repository.delete(server.id)
    return server
  }

  private save(server: StoredMcpServer): StoredMcpServer {
    this.repository.save(server, this.now())
    return server
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
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {}
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, String(item)]))
}
