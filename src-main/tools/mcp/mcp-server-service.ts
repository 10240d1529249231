/**
 * MCP servers as settings: added by hand or imported from an `mcpServers` file (as Claude Desktop
 * and Cursor write it), switched on and off, and — for stdio servers — started only once the person
 * has seen and approved the exact command line, again after any change to it. Secret values (tokens,
 * auth headers) are sealed at rest and masked in all it answers; only a launch unseals them.
 */
import { randomUUID } from 'node:crypto'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import { isHttpsUrl } from '@modelcontextprotocol/sdk/client/auth.js'
import { AtelierError } from '../../../src-shared/errors'
import {
  isSecret,
  MASKED_VALUE,
  type McpOAuthSettings,
  type McpServerInfo,
  type McpServerInput,
  type McpServerStatus,
  type McpSignIn,
  SECRET_NAME,
} from '../../../src-shared/mcp'
import type { AtelierEvents } from '../../core/events'
import type { LocalSecretStore } from '../../core/local-secret-store'
import { commandLine, launchApproval } from '../../core/mcp-launch'
import type { McpOAuthConfig } from '../../core/mcp-server-config'
import type { McpOAuthCredentialsRepository } from '../../db/mcp-oauth-credentials-repository'
import type { McpServersRepository, OAuthSecrets, StoredMcpServer } from '../../db/mcp-servers-repository'
import type { ToolRegistry } from '../registry'
import type { McpConnection, McpServerConfig } from './mcp-connection'
import { McpManager } from './mcp-manager'
import { rootsOf } from './mcp-roots'
import { signingAlgorithmOf } from './oauth/atelier-oauth-provider'
import { McpOAuth, type OAuthTarget } from './oauth/mcp-oauth'

const NAME = /^[a-zA-Z0-9_-]{1,32}$/

/** A server as its settings say, before `enabled` and the approval. */
type StoredDefinition = McpServerConfig & Pick<StoredMcpServer, 'secrets' | 'oauthSecrets'>

export interface McpServerOAuthOptions {
  /** Where what signing in leaves (registrations, tokens) is kept, sealed. */
  credentials: McpOAuthCredentialsRepository
  /** Opens an authorization page in the system browser (the desktop app's shell); true when it did. */
  openExternal?: (url: string) => boolean | Promise<boolean>
  /** How long a sign-in waits for the browser (5 minutes; tests shorten it). */
  signInTimeoutMs?: number
}

export class McpServerService {
  private readonly manager: McpManager
  private readonly oauth: McpOAuth
  /** Once closing, the database may be gone: nothing more is announced. */
  private closed = false
  /** The servers' states as `prepare` last announced them; any other announcement clears it. */
  private announcedStates = ''
  /** Why the last `prepare` could not launch a server: a stored secret it could not decrypt. */
  private readonly unlaunchable = new Map<string, string>()

  constructor(
    private readonly repository: McpServersRepository,
    private readonly secrets: LocalSecretStore,
    registry: ToolRegistry,
    private readonly events: AtelierEvents,
    oauth: McpServerOAuthOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.oauth = new McpOAuth({
      repository: oauth.credentials,
      secrets,
      openExternal: oauth.openExternal,
      timeoutMs: oauth.signInTimeoutMs,
      onChange: () => this.changed(),
    })
    this.manager = new McpManager(
      registry,
      () => this.changed(),
      (config) => this.authProviderFor(config),
    )
  }

  list(): McpServerInfo[] {
    return this.repository.list().map((server) => this.toInfo(server))
  }

  /** Adds a server, on. `approve`: the person has seen the command line (the CLI prints it back). */
  add(input: McpServerInput, { approve }: { approve: boolean }): McpServerInfo {
    this.checkName(input.name)
    const definition = this.definitionFrom(randomUUID(), input, undefined)
    const server: StoredMcpServer = {
      ...definition,
      enabled: true,
      approvedLaunch: approve ? launchOf(definition) : null,
    }
    return this.save(server)
  }

  /**
   * Edits a server, keeping it on or off. Its session is closed so the next use runs the server as
   * it now stands; a stdio server whose launch changed waits for approval again. A value sent as
   * `MASKED_VALUE` keeps the one stored under its name.
   */
  async update(name: string, input: McpServerInput): Promise<McpServerInfo> {
    const current = this.get(name)
    if (input.name !== current.name) this.checkName(input.name)
    const next: StoredMcpServer = {
      ...this.definitionFrom(current.id, input, current),
      enabled: current.enabled,
      approvedLaunch: current.approvedLaunch,
    }
    // Saved first, so a turn starting meanwhile cannot bring the old launch back.
    this.repository.save(next, this.now())
    this.unlaunchable.delete(current.id)
    // Tokens and a registration are for one server and one client: another of either signs in anew.
    if (signInOf(current) !== signInOf(next)) this.oauth.forget(current.id)
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
    // Its OAuth credentials go with its row.
    this.repository.delete(server.id)
    this.oauth.forget(server.id, { credentials: false })
    await this.manager.forget(server.id)
    this.changed()
  }

  /**
   * Connects the enabled, approved servers (and only those) and brings their tools into the
   * registry; servers turned off or removed since are disconnected and their tools removed.
   * `folder`: the preparing chat's project folder, which becomes the servers' roots (left as they
   * are when not given: the resources and prompts listings belong to no chat).
   */
  async prepare(folder?: string | null): Promise<McpServerStatus[]> {
    if (folder !== undefined) this.manager.setRoots(rootsOf(folder))
    const enabled = this.repository.list().filter((server) => server.enabled)
    const launches: McpServerConfig[] = []
    const unlaunchable: McpServerStatus[] = []
    this.unlaunchable.clear()
    for (const server of enabled.filter((server) => !needsApproval(server))) {
      try {
        launches.push(this.launchConfig(server))
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        this.unlaunchable.set(server.id, message)
        unlaunchable.push({ id: server.id, name: server.name, connected: false, tools: [], error: message })
      }
    }
    const statuses = [...(await this.manager.prepare(launches)), ...unlaunchable]
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

  /**
   * Signs in to a remote server (OAuth). Resolves once the authorization URL is known — opened in the
   * system browser where the app can, else for the caller to show — or, when no browser is needed
   * (client credentials, a stored token that still works), once signed in. The rest completes in
   * the background: the server is connected again and `mcp.changed` says how it went.
   */
  async signIn(name: string): Promise<McpSignIn> {
    const server = this.get(name)
    const target = this.oauthTarget(server)
    // Only this server: signing in to one must not start the others.
    const reconnect = async () => {
      const current = this.repository.get(server.id)
      if (!current?.enabled) {
        await this.manager.disconnect(server.id)
        this.changed()
        return undefined
      }
      const status = await this.manager.reconnect(this.launchConfig(current))
      this.changed()
      return status
    }
    return this.oauth.signIn(target, reconnect)
  }

  /** Settles when the server's sign-in under way has ended; rejects with why it failed. */
  signInCompletion(name: string): Promise<void> {
    return this.oauth.completion(this.get(name).id)
  }

  /** Forgets the server's tokens and closes its session: it needs signing in again. */
  async signOut(name: string): Promise<McpServerInfo> {
    const server = this.get(name)
    if (server.transport !== 'http') {
      throw new AtelierError('invalid_transport', `“${server.name}” is a stdio server: it has no sign-in.`)
    }
    this.oauth.signOut(server.id)
    await this.manager.disconnect(server.id)
    return this.announce(server)
  }

  /** A prepared server's connection, for its resources and prompts. */
  connection(id: string): McpConnection | undefined {
    return this.manager.connection(id)
  }

  /** What a server wrote to stderr in its current or last session (the last 64 KiB); empty before it ran. */
  stderr(name: string): string {
    return this.manager.stderr(this.get(name).id)
  }

  /** Disconnects every server (a stdio server's process ends with its session). */
  close(): Promise<void> {
    this.closed = true
    this.oauth.close()
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
    const status = this.manager.status(server)
    const { connected, tools } = status
    const auth =
      server.transport === 'http' ? this.oauth.state(server.id, this.manager.refused(server.id)) : 'none'
    // A failed sign-in is news until a later one (or a refresh) signs in.
    const failure = auth === 'signed-in' ? undefined : this.oauth.failure(server.id)
    const error = failure ?? status.error ?? this.unlaunchable.get(server.id)
    return {
      id: server.id,
      name: server.name,
      transport: server.transport,
      target: server.transport === 'http' ? server.url : commandLine(server),
      enabled: server.enabled,
      needsApproval: needsApproval(server),
      definition: definitionOf(server),
      running: connected,
      ...(error && { error }),
      tools,
      auth,
    }
  }

  /**
   * The server as the database keeps it: the values whose names are secret (by the person's marks,
   * else by `SECRET_NAME`) sealed, the others in the clear.
   */
  private definitionFrom(
    id: string,
    input: McpServerInput,
    current: StoredMcpServer | undefined,
  ): StoredDefinition {
    const typed = (input.transport === 'stdio' ? input.env : input.headers) ?? {}
    for (const name of Object.keys(input.secret ?? {})) {
      if (!(name in typed)) {
        throw new AtelierError('invalid_secret', `${name} is marked secret or public, but has no value.`, {
          name,
        })
      }
    }
    // Names mean environment variables of a stdio server and headers of a remote one.
    const kept = current?.transport === input.transport ? current : undefined
    const clear: Record<string, string> = {}
    const secrets: Record<string, Buffer> = {}
    for (const [name, sent] of Object.entries(typed)) {
      const value = sent === MASKED_VALUE ? this.storedValue(kept, name) : sent
      if (isSecret(input.secret, name)) secrets[name] = this.sealedAs(value, kept?.secrets[name])
      else clear[name] = value
    }
    return input.transport === 'stdio'
      ? {
          id,
          name: input.name,
          transport: 'stdio',
          command: input.command,
          args: input.args ?? [],
          env: clear,
          cwd: input.cwd ?? null,
          secrets,
        }
      : {
          id,
          name: input.name,
          transport: 'http',
          url: validUrl(input.url),
          headers: clear,
          secrets,
          ...this.oauthFrom(input.oauth, kept),
        }
  }

  /**
   * A remote server's `oauth` settings as stored: the client secret and private key sealed
   * (`MASKED_VALUE` keeps the stored one), the rest in clear, checked so that a sign-in cannot fail
   * later for a reason known now.
   */
  private oauthFrom(
    input: McpOAuthSettings | undefined,
    current: StoredMcpServer | undefined,
  ): { oauth?: McpOAuthConfig; oauthSecrets?: OAuthSecrets } {
    if (!input) return {}
    const { clientSecret, clientPrivateKey, ...settings } = input
    const oauth = Object.fromEntries(
      Object.entries(settings).filter(([, value]) => value !== undefined && value !== ''),
    ) as McpOAuthConfig
    if (oauth.clientMetadataUrl !== undefined && !isHttpsUrl(oauth.clientMetadataUrl)) {
      throw new AtelierError(
        'invalid_oauth',
        `A client metadata document URL is https with a path, not "${oauth.clientMetadataUrl}".`,
      )
    }
    if ((clientSecret || clientPrivateKey) && !oauth.clientId) {
      throw new AtelierError('invalid_oauth', 'A client secret or key needs the client id it belongs to.')
    }
    if (clientPrivateKey && oauth.grant !== 'client_credentials') {
      throw new AtelierError('invalid_oauth', 'A private key signs client-credentials requests only.')
    }
    if (clientSecret && clientPrivateKey) {
      throw new AtelierError('invalid_oauth', 'A client authenticates with a secret or with a key, not both.')
    }
    if (oauth.grant === 'client_credentials' && !(oauth.clientId && (clientSecret || clientPrivateKey))) {
      throw new AtelierError(
        'invalid_oauth',
        'Client credentials need a client id, and a client secret or private key.',
      )
    }
    const stored = current?.oauthSecrets
    const sealed: OAuthSecrets = {}
    for (const [field, value, label] of [
      ['clientSecret', clientSecret, 'client secret'],
      ['clientPrivateKey', clientPrivateKey, 'private key'],
    ] as const) {
      if (value === MASKED_VALUE) {
        const kept = stored?.[field]
        if (!kept) {
          throw new AtelierError(
            'secret_missing',
            `The OAuth ${label} has no stored value to keep: type it.`,
            {
              name: field,
            },
          )
        }
        sealed[field] = kept
      } else if (value) {
        if (field === 'clientPrivateKey') checkPrivateKey(value, oauth.signingAlgorithm)
        sealed[field] = this.sealedAs(value, stored?.[field])
      }
    }
    return { oauth, ...(Object.keys(sealed).length > 0 && { oauthSecrets: sealed }) }
  }

  /** A remote server as signing in needs it: its headers, client secret and key unsealed, for this use only. */
  private oauthTarget(server: StoredMcpServer): OAuthTarget {
    const config = this.launchConfig(server)
    if (config.transport !== 'http') {
      throw new AtelierError('invalid_transport', `“${server.name}” is a stdio server: it has no sign-in.`)
    }
    const { clientSecret, clientPrivateKey } = server.oauthSecrets ?? {}
    return {
      id: server.id,
      name: server.name,
      url: config.url,
      headers: config.headers,
      settings: {
        ...config.oauth,
        ...(clientSecret && { clientSecret: this.unseal('the OAuth client secret', clientSecret) }),
        ...(clientPrivateKey && { clientPrivateKey: this.unseal('the OAuth private key', clientPrivateKey) }),
      },
    }
  }

  /** The OAuth client of a remote server's connections: passive, it never opens a browser. */
  private authProviderFor(config: McpServerConfig): OAuthClientProvider | undefined {
    const server = config.transport === 'http' ? this.repository.get(config.id) : undefined
    return server && this.oauth.passiveProvider(this.oauthTarget(server))
  }

  /** What `name` holds now, for a value sent back masked. */
  private storedValue(server: StoredMcpServer | undefined, name: string): string {
    const sealed = server?.secrets[name]
    if (server && sealed) return this.unseal(name, sealed)
    const value = server && clearValues(server)[name]
    if (value === undefined) {
      throw new AtelierError('secret_missing', `${name} has no stored value to keep: type its value.`, {
        name,
      })
    }
    return value
  }

  /** The stored seal while it still holds this very value, so the approval stands; else a new one. */
  private sealedAs(value: string, stored: Buffer | undefined): Buffer {
    if (stored && this.opened(stored) === value) return stored
    return this.secrets.seal(value)
  }

  /** A seal's value, or undefined when it no longer opens (its key is gone or was replaced). */
  private opened(sealed: Buffer): string | undefined {
    try {
      return this.secrets.unseal(sealed)
    } catch {
      return undefined
    }
  }

  private unseal(name: string, sealed: Buffer): string {
    try {
      return this.secrets.unseal(sealed)
    } catch (error) {
      const reason = AtelierError.isInstance(error) ? (error.data as { reason?: string })?.reason : undefined
      throw new AtelierError(
        'secret_unreadable',
        `The stored value of ${name} cannot be decrypted (${reason ?? String(error)}): type it again in Settings → MCP, or add the server again with \`atelier mcp add\`.`,
        { name },
      )
    }
  }

  /** The server as a connection needs it: its secret values unsealed, for this launch only. */
  private launchConfig(server: StoredMcpServer): McpServerConfig {
    const { enabled: _, approvedLaunch: __, secrets, oauthSecrets, ...config } = server
    // Unsealed here only to fail now, as unlaunchable, rather than inside the connection.
    if (oauthSecrets?.clientSecret) this.unseal('the OAuth client secret', oauthSecrets.clientSecret)
    if (oauthSecrets?.clientPrivateKey) this.unseal('the OAuth private key', oauthSecrets.clientPrivateKey)
    const unsealed = Object.fromEntries(
      Object.entries(secrets).map(([name, sealed]) => [name, this.unseal(name, sealed)]),
    )
    return config.transport === 'stdio'
      ? { ...config, env: { ...config.env, ...unsealed } }
      : { ...config, headers: { ...config.headers, ...unsealed } }
  }

  private get(name: string): StoredMcpServer {
    const server = this.repository.byName(name) ?? this.repository.get(name)
    if (!server) throw new AtelierError('not_found', `No MCP server named "${name}".`, { name })
    return server
  }
}

/**
 * What a person approves of a stdio server: the command line, and the environment and folder it
 * runs with, since either can change what the command does — as a digest (`launchApproval`).
 * Remote servers need no approval.
 */
function launchOf(server: StoredDefinition): string {
  if (server.transport === 'http') return ''
  const { command, args, env, secrets, cwd } = server
  return launchApproval({ command, args, env, secrets, cwd })
}

function needsApproval(server: StoredMcpServer): boolean {
  return server.transport === 'stdio' && server.approvedLaunch !== launchOf(server)
}

/** The values kept in the clear: a stdio server's environment, a remote server's headers. */
function clearValues(server: StoredDefinition): Record<string, string> {
  return server.transport === 'stdio' ? server.env : server.headers
}

/**
 * The server for the edit form and every listing: secret values masked, and marks only where
 * they differ from what the name suggests.
 */
function definitionOf(server: StoredMcpServer): McpServerInput {
  const masked = Object.fromEntries(Object.keys(server.secrets).map((name) => [name, MASKED_VALUE]))
  const values = { ...clearValues(server), ...masked }
  const marks = Object.keys(values).flatMap((name) => {
    const secret = name in server.secrets
    return secret === SECRET_NAME.test(name) ? [] : [[name, secret] as const]
  })
  const secret = marks.length > 0 ? { secret: Object.fromEntries(marks) } : {}
  return server.transport === 'stdio'
    ? {
        name: server.name,
        transport: 'stdio',
        command: server.command,
        args: server.args,
        env: values,
        ...secret,
        cwd: server.cwd,
      }
    : {
        name: server.name,
        transport: 'http',
        url: server.url,
        headers: values,
        ...secret,
        ...(server.oauth && {
          oauth: {
            ...server.oauth,
            ...(server.oauthSecrets?.clientSecret && { clientSecret: MASKED_VALUE }),
            ...(server.oauthSecrets?.clientPrivateKey && { clientPrivateKey: MASKED_VALUE }),
          },
        }),
      }
}

/** What a server's tokens and registration are bound to: its URL and how it signs in. */
function signInOf(server: StoredMcpServer): string {
  if (server.transport !== 'http') return ''
  const { clientSecret, clientPrivateKey } = server.oauthSecrets ?? {}
  return JSON.stringify([
    server.url,
    server.oauth ?? {},
    clientSecret?.toString('base64') ?? '',
    clientPrivateKey?.toString('base64') ?? '',
  ])
}

/** A private key that cannot sign is refused when it is typed, not at the first sign-in. */
function checkPrivateKey(pem: string, algorithm: string | undefined): void {
  try {
    signingAlgorithmOf(pem, algorithm)
  } catch (error) {
    throw new AtelierError(
      'invalid_oauth',
      `The OAuth private key cannot be used: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}

function validUrl(url: string): string {
  if (!/^https?:\/\/\S+$/.test(url)) throw new AtelierError('invalid_url', `"${url}" is not an http(s) URL.`)
  return url
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {}
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, String(item)]))
}
