import type { LocalSecretStore } from '../core/local-secret-store'
import { commandLine, launchApproval, launchOf } from '../core/mcp-launch'
import type { McpOAuthConfig, McpServerConfig } from '../core/mcp-server-config'
import { MCP_URL, type SealedSecrets } from '../core/sealed-secrets'
import type { Database } from './database'

/**
 * Names that looked secret to Atelier up to schema 15, when only their values were sealed: the
 * migrations read them to tell a value kept in the clear by default from one the person marked not
 * secret.
 */
export const LEGACY_SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|KEY|AUTH|CREDENTIAL|COOKIE|SESSION/i

/**
 * A configured MCP server: how to reach it, whether it is on, and what launch the person approved.
 * Its `env` (stdio) or `headers` (http) hold only the values kept in the clear; the secret ones are
 * in `secrets`, sealed.
 */
export type StoredMcpServer = McpServerConfig & {
  enabled: boolean
  /** The digest of the stdio launch (command line, environment, folder) the person confirmed; a changed one waits for a new yes. */
  approvedLaunch: string | null
  /** Secret values by environment variable (stdio) or header (http) name, sealed by the secret store. */
  secrets: Record<string, Buffer>
  /** A remote server's OAuth client secret and signing key (`oauth.clientSecret`, `oauth.clientPrivateKey`), sealed. */
  oauthSecrets?: OAuthSecrets
  /** A remote server's URL as typed, sealed, when it carries credentials; its `url` then reads them masked. */
  sealedUrl?: Buffer
}

export interface OAuthSecrets {
  clientSecret?: Buffer
  clientPrivateKey?: Buffer
}

/** Where each OAuth secret of the settings is kept in `mcp_oauth_credentials`. */
const OAUTH_SECRET_KINDS = { clientSecret: 'client_secret', clientPrivateKey: 'client_private_key' } as const

interface Row {
  id: string
  name: string
  transport: 'stdio' | 'http'
  config: string
  enabled: 0 | 1
  approved_launch: string | null
}

/** A row whose JSON no longer parses keeps its name and stays off, so nothing odd is started. */
function toServer(row: Row, secrets: Record<string, Buffer>, oauthSecrets?: OAuthSecrets): StoredMcpServer {
  let config: Record<string, unknown> = {}
  let enabled = row.enabled === 1
  try {
    config = JSON.parse(row.config) as Record<string, unknown>
  } catch {
    enabled = false
  }
  const base = { id: row.id, name: row.name, enabled, approvedLaunch: row.approved_launch, secrets }
  if (row.transport === 'http') {
    return {
      ...base,
      transport: 'http',
      url: String(config.url ?? ''),
      headers: (config.headers ?? {}) as Record<string, string>,
      ...(typeof config.oauth === 'object' &&
        config.oauth !== null && { oauth: config.oauth as McpOAuthConfig }),
      ...(oauthSecrets && Object.keys(oauthSecrets).length > 0 && { oauthSecrets }),
      ...(typeof config.sealedUrl === 'string' && { sealedUrl: Buffer.from(config.sealedUrl, 'base64') }),
    }
  }
  return {
    ...base,
    transport: 'stdio',
    command: String(config.command ?? ''),
    args: Array.isArray(config.args) ? config.args.map(String) : [],
    env: (config.env ?? {}) as Record<string, string>,
    cwd: typeof config.cwd === 'string' ? config.cwd : null,
    ...(config.sandboxed === true && { sandboxed: true }),
  }
}

/** The row's `config`: the settings in the clear, and the URL sealed (only a seal opens it). */
function configJson(server: McpServerConfig & Pick<StoredMcpServer, 'sealedUrl'>): string {
  return JSON.stringify(
    server.transport === 'stdio'
      ? {
          command: server.command,
          args: server.args,
          env: server.env,
          cwd: server.cwd,
          ...(server.sandboxed && { sandboxed: true }),
        }
      : {
          url: server.url,
          headers: server.headers,
          ...(server.oauth && { oauth: server.oauth }),
          ...(server.sealedUrl && { sealedUrl: server.sealedUrl.toString('base64') }),
        },
  )
}

export class McpServersRepository {
  private readonly statements
  private readonly saveInTransaction

  constructor(db: Database) {
    this.statements = {
      list: db.prepare<[], Row>('SELECT * FROM mcp_servers ORDER BY name'),
      get: db.prepare<[string], Row>('SELECT * FROM mcp_servers WHERE id = ?'),
      byName: db.prepare<[string], Row>('SELECT * FROM mcp_servers WHERE name = ?'),
      secrets: db.prepare<[string], { name: string; sealed: Buffer }>(
        'SELECT name, sealed FROM mcp_secrets WHERE server_id = ? ORDER BY name',
      ),
      upsert: db.prepare(
        `INSERT INTO mcp_servers (id, name, transport, config, enabled, approved_launch, created_at, updated_at)
         VALUES (@id, @name, @transport, @config, @enabled, @approvedLaunch, @now, @now)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, transport = excluded.transport,
           config = excluded.config, enabled = excluded.enabled,
           approved_launch = excluded.approved_launch, updated_at = excluded.updated_at`,
      ),
      forgetSecrets: db.prepare('DELETE FROM mcp_secrets WHERE server_id = ?'),
      keepSecret: db.prepare('INSERT INTO mcp_secrets (server_id, name, sealed) VALUES (?, ?, ?)'),
      oauthSecrets: db.prepare<[string], { kind: string; sealed: Buffer }>(
        "SELECT kind, sealed FROM mcp_oauth_credentials WHERE server_id = ? AND kind IN ('client_secret', 'client_private_key')",
      ),
      forgetOAuthSecrets: db.prepare(
        "DELETE FROM mcp_oauth_credentials WHERE server_id = ? AND kind IN ('client_secret', 'client_private_key')",
      ),
      keepOAuthSecret: db.prepare(
        'INSERT INTO mcp_oauth_credentials (server_id, kind, sealed) VALUES (?, ?, ?)',
      ),
      // Its secrets and OAuth credentials go with it (ON DELETE CASCADE).
      delete: db.prepare('DELETE FROM mcp_servers WHERE id = ?'),
    }
    this.saveInTransaction = db.transaction((server: StoredMcpServer, now: number) => {
      this.statements.upsert.run({
        id: server.id,
        name: server.name,
        transport: server.transport,
        config: configJson(server),
        enabled: server.enabled ? 1 : 0,
        approvedLaunch: server.approvedLaunch,
        now,
      })
      this.statements.forgetSecrets.run(server.id)
      for (const [name, sealed] of Object.entries(server.secrets)) {
        this.statements.keepSecret.run(server.id, name, sealed)
      }
      this.statements.forgetOAuthSecrets.run(server.id)
      for (const [field, kind] of Object.entries(OAUTH_SECRET_KINDS)) {
        const sealed = server.oauthSecrets?.[field as keyof OAuthSecrets]
        if (sealed) this.statements.keepOAuthSecret.run(server.id, kind, sealed)
      }
    })
  }

  list(): StoredMcpServer[] {
    return this.statements.list.all().map((row) => this.withSecrets(row))
  }

  get(id: string): StoredMcpServer | undefined {
    const row = this.statements.get.get(id)
    return row && this.withSecrets(row)
  }

  byName(name: string): StoredMcpServer | undefined {
    const row = this.statements.byName.get(name)
    return row && this.withSecrets(row)
  }

  save(server: StoredMcpServer, now: number): void {
    this.saveInTransaction(server, now)
  }

  delete(id: string): boolean {
    return this.statements.delete.run(id).changes > 0
  }

  private withSecrets(row: Row): StoredMcpServer {
    const secrets = this.statements.secrets.all(row.id).map(({ name, sealed }) => [name, sealed] as const)
    const oauthSecrets: OAuthSecrets = {}
    for (const { kind, sealed } of this.statements.oauthSecrets.all(row.id)) {
      if (kind === OAUTH_SECRET_KINDS.clientSecret) oauthSecrets.clientSecret = sealed
      if (kind === OAUTH_SECRET_KINDS.clientPrivateKey) oauthSecrets.clientPrivateKey = sealed
    }
    return toServer(row, Object.fromEntries(secrets), oauthSecrets)
  }
}

/**
 * Schema 8: servers stored before kept every environment value and header in `config`, and their
 * approval as the launch's text, all in clear. Values whose name looks secret (`LEGACY_SECRET_NAME`) are
 * sealed into `mcp_secrets` and scrubbed from the row; an approval of the launch as it stood becomes
 * the digest of that same launch, and any other approval (of an older launch, perhaps with an older
 * secret) is dropped — that server was waiting for a new one anyway.
 */
export function sealClearTextSecrets(db: Database, store: LocalSecretStore): { scrubbed: boolean } {
  const { rows, rewrite, keepSecret } = migrationStatements(db)
  for (const { row, config } of rows) {
    const server = toServer(row, {})
    const values = server.transport === 'stdio' ? server.env : server.headers
    const clear = Object.fromEntries(
      Object.entries(values).filter(([name]) => !LEGACY_SECRET_NAME.test(name)),
    )
    const secrets = Object.fromEntries(
      Object.entries(values)
        .filter(([name]) => LEGACY_SECRET_NAME.test(name))
        .map(([name, value]) => [name, store.seal(String(value))]),
    )
    let approved = row.approved_launch
    if (server.transport === 'stdio') {
      const { command, args, env, cwd } = server
      const approvedAsItStands = approved === JSON.stringify({ command: commandLine(server), env, cwd })
      approved = approvedAsItStands ? launchApproval({ command, args, env: clear, secrets, cwd }) : null
    }
    const scrubbed = { ...config, [server.transport === 'stdio' ? 'env' : 'headers']: clear }
    rewrite.run(JSON.stringify(scrubbed), approved, row.id)
    for (const [name, sealed] of Object.entries(secrets)) keepSecret.run(row.id, name, sealed)
  }
  return { scrubbed: rows.length > 0 }
}

/**
 * What a migration of the stored servers works with: every row whose `config` parses (one that does
 * not is left as it is, and stays off), and the statements that rewrite a row and keep a secret.
 */
function migrationStatements(db: Database) {
  const rows = db
    .prepare<[], Row>('SELECT * FROM mcp_servers')
    .all()
    .flatMap((row) => {
      try {
        return [{ row, config: JSON.parse(row.config) as Record<string, unknown> }]
      } catch {
        return []
      }
    })
  return {
    rows,
    rewrite: db.prepare('UPDATE mcp_servers SET config = ?, approved_launch = ? WHERE id = ?'),
    keepSecret: db.prepare('INSERT INTO mcp_secrets (server_id, name, sealed) VALUES (?, ?, ?)'),
  }
}

/**
 * Schema 16: every value is secret unless the person says otherwise, where until now only names that
 * looked secret (`LEGACY_SECRET_NAME`) were — `DATABASE_URL=postgres://u:PASS@…`, `GH_PAT`,
 * `SENTRY_DSN` stayed in clear. A value in clear whose name looks secret was marked not secret by
 * the person and stays so; every other one is sealed into `mcp_secrets`, and a remote server's URL
 * carrying credentials is sealed too. An approval of the launch as it stood still holds.
 */
export function sealEveryValue(db: Database, secrets: SealedSecrets): { scrubbed: boolean } {
  const { rows, rewrite, keepSecret } = migrationStatements(db)
  const storedSecrets = db.prepare<[string], { name: string; sealed: Buffer }>(
    'SELECT name, sealed FROM mcp_secrets WHERE server_id = ?',
  )
  let scrubbed = false
  for (const { row, config } of rows) {
    const before = toServer(
      row,
      Object.fromEntries(storedSecrets.all(row.id).map(({ name, sealed }) => [name, sealed])),
    )
    const values = before.transport === 'stdio' ? before.env : before.headers
    const clear = Object.fromEntries(Object.entries(values).filter(([name]) => LEGACY_SECRET_NAME.test(name)))
    const sealed = Object.fromEntries(
      Object.entries(values)
        .filter(([name]) => !LEGACY_SECRET_NAME.test(name))
        .map(([name, value]) => [name, secrets.seal(String(value))]),
    )
    const url = before.transport === 'http' ? secrets.sealUrl(before.url, undefined, MCP_URL) : undefined
    if (Object.keys(sealed).length === 0 && !url?.sealed) continue
    const after: StoredMcpServer =
      before.transport === 'stdio'
        ? { ...before, env: clear, secrets: { ...before.secrets, ...sealed } }
        : {
            ...before,
            headers: clear,
            secrets: { ...before.secrets, ...sealed },
            ...(url && { url: url.shown, sealedUrl: url.sealed }),
          }
    const approved = row.approved_launch === launchOf(before) ? launchOf(after) : row.approved_launch
    rewrite.run(JSON.stringify({ ...config, ...JSON.parse(configJson(after)) }), approved, row.id)
    for (const [name, value] of Object.entries(sealed)) keepSecret.run(row.id, name, value)
    scrubbed = true
  }
  return { scrubbed }
}
