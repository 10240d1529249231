import type { McpServerConfig } from '../core/mcp-server-config'
import type { Database } from './database'

/** A configured MCP server: how to reach it, whether it is on, and what launch the person approved. */
export type StoredMcpServer = McpServerConfig & {
  enabled: boolean
  /** The stdio launch (command line, environment, folder) the person confirmed; a changed one waits for a new yes. */
  approvedLaunch: string | null
}

interface Row {
  id: string
  name: string
  transport: 'stdio' | 'http'
  config: string
  enabled: 0 | 1
  approved_launch: string | null
}

/** A row whose JSON no longer parses keeps its name and stays off, so nothing odd is started. */
function toServer(row: Row): StoredMcpServer {
  let config: Record<string, unknown> = {}
  let enabled = row.enabled === 1
  try {
    config = JSON.parse(row.config) as Record<string, unknown>
  } catch {
    enabled = false
  }
  const base = { id: row.id, name: row.name, enabled, approvedLaunch: row.approved_launch }
  if (row.transport === 'http') {
    return {
      ...base,
      transport: 'http',
      url: String(config.url ?? ''),
      headers: (config.headers ?? {}) as Record<string, string>,
    }
  }
  return {
    ...base,
    transport: 'stdio',
    command: String(config.command ?? ''),
    args: Array.isArray(config.args) ? config.args.map(String) : [],
    env: (config.env ?? {}) as Record<string, string>,
    cwd: typeof config.cwd === 'string' ? config.cwd : null,
  }
}

export class McpServersRepository {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      list: db.prepare<[], Row>('SELECT * FROM mcp_servers ORDER BY name'),
      get: db.prepare<[string], Row>('SELECT * FROM mcp_servers WHERE id = ?'),
      byName: db.prepare<[string], Row>('SELECT * FROM mcp_servers WHERE name = ?'),
      upsert: db.prepare(
        `INSERT INTO mcp_servers (id, name, transport, config, enabled, approved_launch, created_at, updated_at)
         VALUES (@id, @name, @transport, @config, @enabled, @approvedLaunch, @now, @now)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, transport = excluded.transport,
           config = excluded.config, enabled = excluded.enabled,
           approved_launch = excluded.approved_launch, updated_at = excluded.updated_at`,
      ),
      delete: db.prepare('DELETE FROM mcp_servers WHERE id = ?'),
    }
  }

  list(): StoredMcpServer[] {
    return this.statements.list.all().map(toServer)
  }

  get(id: string): StoredMcpServer | undefined {
    const row = this.statements.get.get(id)
    return row && toServer(row)
  }

  byName(name: string): StoredMcpServer | undefined {
    const row = this.statements.byName.get(name)
    return row && toServer(row)
  }

  save(server: StoredMcpServer, now: number): void {
    const config =
      server.transport === 'stdio'
        ? { command: server.command, args: server.args, env: server.env, cwd: server.cwd }
        : { url: server.url, headers: server.headers }
    this.statements.upsert.run({
      id: server.id,
      name: server.name,
      transport: server.transport,
      config: JSON.stringify(config),
      enabled: server.enabled ? 1 : 0,
      approvedLaunch: server.approvedLaunch,
      now,
    })
  }

  delete(id: string): boolean {
    return this.statements.delete.run(id).changes > 0
  }
}
