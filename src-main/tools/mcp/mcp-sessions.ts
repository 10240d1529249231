/**
 * The MCP servers' live side: connects the enabled servers whose launch is approved (and only
 * those), with their secrets opened for the launch, brings their tools into the registry, and keeps
 * why a server could not launch — until its settings change.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import { errorMessage } from '../../../src-shared/errors'
import type { McpServerStatus } from '../../../src-shared/mcp'
import { needsApproval } from '../../core/mcp-launch'
import type { SealedSecrets } from '../../core/sealed-secrets'
import type { StoredMcpServer } from '../../db/mcp-servers-repository'
import type { ToolRegistry } from '../registry'
import type { ConfineServer } from '../sandbox/command-sandbox'
import type { McpConnection, McpServerConfig } from './mcp-connection'
import { launchConfig, oauthTarget } from './mcp-launch-config'
import { McpManager } from './mcp-manager'
import { rootsOf } from './mcp-roots'
import type { McpOAuth } from './oauth/mcp-oauth'

/** What a turn hears of an enabled stdio server that was never approved, or changed since. */
const WAITING_FOR_APPROVAL = 'its command line waits for your approval in Settings → MCP'

export interface McpSessionsDeps {
  /** The enabled servers as saved now, and one by id (the OAuth client of a connection reads it). */
  servers: { list(): StoredMcpServer[]; byId(id: string): StoredMcpServer | undefined }
  secrets: SealedSecrets
  registry: ToolRegistry
  oauth: McpOAuth
  /** A server's session ended by itself (a crash), or its state moved: whoever shows it follows. */
  onChange(): void
  /** Confines the stdio servers set to run in the sandbox. */
  confine?: ConfineServer
}

export class McpSessions {
  private readonly manager: McpManager
  /** Why the last `prepare` could not launch a server: a stored secret it could not decrypt. */
  private readonly unlaunchable = new Map<string, string>()

  constructor(private readonly deps: McpSessionsDeps) {
    this.manager = new McpManager(
      deps.registry,
      () => deps.onChange(),
      (config) => this.authProviderFor(config),
      deps.confine,
    )
  }

  /**
   * Connects the enabled, approved servers (and only those) and brings their tools into the
   * registry; servers turned off or removed since are disconnected and their tools removed.
   * `folder`: the preparing chat's project folder, which becomes the servers' roots (left as they
   * are when not given: the resources and prompts listings belong to no chat). Enabled servers that
   * wait for approval are in the answer, saying so.
   */
  async prepare(folder?: string | null): Promise<McpServerStatus[]> {
    if (folder !== undefined) this.manager.setRoots(rootsOf(folder))
    const enabled = this.deps.servers.list().filter((server) => server.enabled)
    const launches: McpServerConfig[] = []
    const unlaunchable: McpServerStatus[] = []
    this.unlaunchable.clear()
    for (const server of enabled.filter((server) => !needsApproval(server))) {
      try {
        launches.push(launchConfig(server, this.deps.secrets))
      } catch (error) {
        const message = errorMessage(error)
        this.unlaunchable.set(server.id, message)
        unlaunchable.push({ id: server.id, name: server.name, connected: false, tools: [], error: message })
      }
    }
    const waiting = enabled
      .filter(needsApproval)
      .map(({ id, name }) => ({ id, name, connected: false, tools: [], error: WAITING_FOR_APPROVAL }))
    return [...(await this.manager.prepare(launches)), ...unlaunchable, ...waiting]
  }

  /** Connects this one server afresh (after signing in), leaving the others as they are. */
  reconnect(server: StoredMcpServer): Promise<McpServerStatus> {
    return this.manager.reconnect(launchConfig(server, this.deps.secrets))
  }

  /** Closes a server's session (edited, turned off, signed out): the next use runs it as it now stands. */
  async disconnect(id: string): Promise<void> {
    this.unlaunchable.delete(id)
    await this.manager.disconnect(id)
  }

  /** A removed server leaves nothing behind, not even its last stderr. */
  async forget(id: string): Promise<void> {
    this.unlaunchable.delete(id)
    await this.manager.forget(id)
  }

  /** A server as it stands: connected with its tools, or why not (its last failure, or why it could not launch). */
  status(server: StoredMcpServer): McpServerStatus & { refused: boolean } {
    const status = this.manager.status(server)
    const error = status.error ?? this.unlaunchable.get(server.id)
    return { ...status, ...(error && { error }), refused: this.manager.refused(server.id) }
  }

  /** A prepared server's connection, for its resources and prompts. */
  connection(id: string): McpConnection | undefined {
    return this.manager.connection(id)
  }

  /** What a server wrote to stderr in its current or last session (the last 64 KiB); empty before it ran. */
  stderr(id: string): string {
    return this.manager.stderr(id)
  }

  /** Disconnects every server (a stdio server's process ends with its session). */
  close(): Promise<void> {
    return this.manager.close()
  }

  /** The OAuth client of a remote server's connections: passive, it never opens a browser. */
  private authProviderFor(config: McpServerConfig): OAuthClientProvider | undefined {
    const server = config.transport === 'http' ? this.deps.servers.byId(config.id) : undefined
    return server && this.deps.oauth.passiveProvider(oauthTarget(server, this.deps.secrets))
  }
}
