/**
 * What a person does to MCP servers (Settings → MCP, `atelier mcp`), carried out in order: the
 * change saved by the store, the live session made to follow it, and `mcp.changed` announced with
 * every server as listed — its settings, secrets masked, beside how its session and sign-in stand.
 */

import { AtelierError } from '../../../src-shared/errors'
import type { McpServerInfo, McpServerInput, McpServerStatus, McpSignIn } from '../../../src-shared/mcp'
import type { AtelierEvents } from '../../core/events'
import { commandLine, needsApproval } from '../../core/mcp-launch'
import type { SealedSecrets } from '../../core/sealed-secrets'
import type { McpOAuthCredentialsRepository } from '../../db/mcp-oauth-credentials-repository'
import type { StoredMcpServer } from '../../db/mcp-servers-repository'
import type { ToolRegistry } from '../registry'
import type { ConfineServer } from '../sandbox/command-sandbox'
import type { McpConnection } from './mcp-connection'
import { oauthTarget } from './mcp-launch-config'
import { maskedDefinition, signInOf } from './mcp-server-definitions'
import type { Approval, McpServerStore } from './mcp-server-store'
import { McpSessions } from './mcp-sessions'
import { McpOAuth } from './oauth/mcp-oauth'

export interface McpServerOAuthOptions {
  /** Where what signing in leaves (registrations, tokens) is kept, sealed. */
  credentials: McpOAuthCredentialsRepository
  /** Opens an authorization page in the system browser (the desktop app's shell); true when it did. */
  openExternal?: (url: string) => boolean | Promise<boolean>
  /** How long a sign-in waits for the browser (5 minutes; tests shorten it). */
  signInTimeoutMs?: number
}

export class McpServerService {
  private readonly sessions: McpSessions
  private readonly oauth: McpOAuth
  /** Once closing, the database may be gone: nothing more is announced. */
  private closed = false
  /** The servers' states as `prepare` last announced them; any other announcement clears it. */
  private announcedStates = ''

  constructor(
    private readonly store: McpServerStore,
    private readonly secrets: SealedSecrets,
    registry: ToolRegistry,
    private readonly events: AtelierEvents,
    oauth: McpServerOAuthOptions,
    /** Confines the stdio servers set to run in the sandbox. */
    confine?: ConfineServer,
  ) {
    this.oauth = new McpOAuth({
      repository: oauth.credentials,
      secrets,
      openExternal: oauth.openExternal,
      timeoutMs: oauth.signInTimeoutMs,
      onChange: () => this.changed(),
    })
    this.sessions = new McpSessions({
      servers: store,
      secrets,
      registry,
      oauth: this.oauth,
      onChange: () => this.changed(),
      ...(confine && { confine }),
    })
  }

  /** Every server as saved, beside what is known of its session: connects nothing. */
  list(): McpServerInfo[] {
    return this.store.list().map((server) => this.toInfo(server))
  }

  /** Adds a server, on. `approve`: the person has seen the command line (the CLI prints it back). */
  add(input: McpServerInput, approval: Approval): McpServerInfo {
    return this.announce(this.store.add(input, approval))
  }

  /**
   * Edits a server, keeping it on or off. Its session is closed so the next use runs the server as
   * it now stands; a stdio server whose launch changed waits for approval again. A value sent as
   * `MASKED_VALUE` keeps the one stored under its name.
   */
  async update(name: string, input: McpServerInput): Promise<McpServerInfo> {
    // Saved first, so a turn starting meanwhile cannot bring the old launch back.
    const { before, after } = this.store.update(name, input)
    // Tokens and a registration are for one server and one client: another of either signs in anew.
    if (signInOf(before) !== signInOf(after)) this.oauth.forget(before.id)
    await this.sessions.disconnect(before.id)
    return this.announce(after)
  }

  /** Reads an `mcpServers` JSON file; servers whose name exists are skipped. Imported servers await approval. */
  import(json: string): { added: string[]; skipped: string[] } {
    const imported = this.store.import(json)
    if (imported.added.length > 0) this.changed()
    return imported
  }

  /** Turning a server off ends its session at once: a stdio server's process tree is killed. */
  async setEnabled(name: string, enabled: boolean, approval: Approval): Promise<McpServerInfo> {
    const server = this.store.setEnabled(name, enabled, approval)
    if (!enabled) await this.sessions.disconnect(server.id)
    return this.announce(server)
  }

  /** The person has seen the server's launch as it now stands and lets it run. */
  approve(name: string): McpServerInfo {
    return this.announce(this.store.approve(name))
  }

  async remove(name: string): Promise<void> {
    const server = this.store.remove(name)
    this.oauth.forget(server.id, { credentials: false })
    await this.sessions.forget(server.id)
    this.changed()
  }

  /**
   * Connects the enabled, approved servers (and only those) for a turn or the inspector; see
   * `McpSessions.prepare`. `folder`: the preparing chat's project folder, the servers' roots.
   */
  async prepare(folder?: string | null): Promise<McpServerStatus[]> {
    const statuses = await this.sessions.prepare(folder)
    // Every turn and inspection comes here: settings hear of it only when a server's state moved.
    const statesNow = JSON.stringify(statuses)
    if (statesNow !== this.announcedStates) {
      this.changed()
      this.announcedStates = statesNow
    }
    return statuses
  }

  /**
   * Signs in to a remote server (OAuth). Resolves once the authorization URL is known — opened in the
   * system browser where the app can, else for the caller to show — or, when no browser is needed
   * (client credentials, a stored token that still works), once signed in. The rest completes in
   * the background: the server is connected again and `mcp.changed` says how it went.
   */
  async signIn(name: string): Promise<McpSignIn> {
    const server = this.store.get(name)
    const target = oauthTarget(server, this.secrets)
    // Only this server: signing in to one must not start the others.
    const reconnect = async () => {
      const current = this.store.byId(server.id)
      if (!current?.enabled) {
        await this.sessions.disconnect(server.id)
        this.changed()
        return undefined
      }
      const status = await this.sessions.reconnect(current)
      this.changed()
      return status
    }
    return this.oauth.signIn(target, reconnect)
  }

  /** Settles when the server's sign-in under way has ended; rejects with why it failed. */
  signInCompletion(name: string): Promise<void> {
    return this.oauth.completion(this.store.get(name).id)
  }

  /** Forgets the server's tokens and closes its session: it needs signing in again. */
  async signOut(name: string): Promise<McpServerInfo> {
    const server = this.store.get(name)
    if (server.transport !== 'http') {
      throw new AtelierError('invalid_transport', `“${server.name}” is a stdio server: it has no sign-in.`)
    }
    this.oauth.signOut(server.id)
    await this.sessions.disconnect(server.id)
    return this.announce(server)
  }

  /** A prepared server's connection, for its resources and prompts. */
  connection(id: string): McpConnection | undefined {
    return this.sessions.connection(id)
  }

  /** What a server wrote to stderr in its current or last session (the last 64 KiB); empty before it ran. */
  stderr(name: string): string {
    return this.sessions.stderr(this.store.get(name).id)
  }

  /** Disconnects every server (a stdio server's process ends with its session). */
  close(): Promise<void> {
    this.closed = true
    this.oauth.close()
    return this.sessions.close()
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

  private toInfo(server: StoredMcpServer): McpServerInfo {
    const { connected, tools, error: sessionError, refused } = this.sessions.status(server)
    const auth = server.transport === 'http' ? this.oauth.state(server.id, refused) : 'none'
    // A failed sign-in is news until a later one (or a refresh) signs in.
    const failure = auth === 'signed-in' ? undefined : this.oauth.failure(server.id)
    const error = failure ?? sessionError
    return {
      id: server.id,
      name: server.name,
      transport: server.transport,
      target: server.transport === 'http' ? server.url : commandLine(server),
      enabled: server.enabled,
      needsApproval: needsApproval(server),
      definition: maskedDefinition(server),
      running: connected,
      ...(error && { error }),
      tools,
      auth,
    }
  }
}
