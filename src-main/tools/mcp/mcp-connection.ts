/**
 * One MCP server, over the official SDK client: connected on first use, its tool list cached until
 * the server says it changed, reconnected after it died. A stdio server is spawned without a shell,
 * so arguments reach it as the literal strings they are.
 */
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  type CallToolResult,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type GetPromptResult,
  ListRootsRequestSchema,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type Root,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import packageJson from '../../../package.json'
import { AtelierError } from '../../../src-shared/errors'
import type { McpServerConfig } from '../../core/mcp-server-config'
import { type ConfineServer, serverLaunch } from '../sandbox/command-sandbox'
import { AtelierOAuthProvider, SignInRequiredError } from './oauth/atelier-oauth-provider'
import { closeProcessTree } from './process-tree'
import { ServerRequestRouter } from './server-requests'

export type { McpServerConfig }

/** Enough of a server's stderr to see why it failed, not enough to grow without bound. */
const STDERR_LIMIT = 64 * 1024

export interface McpCallOptions {
  signal: AbortSignal
  onProgress(progress: { progress: number; total?: number; message?: string }): void
  /** Without progress for this long, the call fails; each progress notification starts it again. */
  timeoutMs: number
  /** However much progress arrives, the call ends by then. */
  maxTotalMs: number
}

export class McpConnection {
  private client: Client | undefined
  private connecting: Promise<Client> | undefined
  /** The client while it connects, so a close (quitting) need not wait for a server that hangs. */
  private opening: Client | undefined
  private stdio: StdioClientTransport | undefined
  private tools: Tool[] | undefined
  private stderrText = ''
  /** What `roots/list` answers: the folder of the chat that last prepared the servers. */
  private roots: Root[] = []
  private router: ServerRequestRouter | undefined

  constructor(
    readonly config: McpServerConfig,
    /** Told when the session ends without being closed (the server crashed or was killed). */
    private readonly onLost: () => void = () => {},
    /** A remote server's OAuth client (passive: stored tokens, refreshed, never a browser). */
    private readonly authProvider?: OAuthClientProvider,
    /** Confines a stdio server set to run in the sandbox; without it, such a server does not start. */
    private readonly confine?: ConfineServer,
  ) {}

  /** Routes what the server asks (elicitation, sampling) to the call in flight it belongs to. */
  get requests(): ServerRequestRouter {
    this.router ??= new ServerRequestRouter(this.config.name)
    return this.router
  }

  /** The stdio server's process, while it runs. */
  get pid(): number | null {
    return this.client ? (this.stdio?.pid ?? null) : null
  }

  /** The tail of what the server wrote to stderr. */
  get stderr(): string {
    return this.stderrText
  }

  get connected(): boolean {
    return this.client !== undefined
  }

  async connect(): Promise<Client> {
    if (this.client) return this.client
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined
    })
    return this.connecting
  }

  /** The server's tools, fetched once per connection and again after `tools/list_changed`. */
  async listTools(): Promise<Tool[]> {
    const client = await this.connect()
    if (this.tools) return this.tools
    const tools = await allPages(
      (cursor) => client.listTools(cursor ? { cursor } : {}),
      (page) => page.tools,
    )
    this.tools = tools
    return tools
  }

  /** The server's resources, every page; none when it does not offer resources. */
  async listResources(): Promise<Resource[]> {
    const client = await this.connect()
    if (!client.getServerCapabilities()?.resources) return []
    return allPages(
      (cursor) => client.listResources(cursor ? { cursor } : {}),
      (page) => page.resources,
    )
  }

  async readResource(uri: string): Promise<ReadResourceResult> {
    const client = await this.connect()
    if (!client.getServerCapabilities()?.resources) {
      throw new AtelierError('unsupported', `The MCP server “${this.config.name}” offers no resources.`)
    }
    return client.readResource({ uri })
  }

  /** The server's prompts, every page; none when it does not offer prompts. */
  async listPrompts(): Promise<Prompt[]> {
    const client = await this.connect()
    if (!client.getServerCapabilities()?.prompts) return []
    return allPages(
      (cursor) => client.listPrompts(cursor ? { cursor } : {}),
      (page) => page.prompts,
    )
  }

  async getPrompt(name: string, args: Record<string, string>): Promise<GetPromptResult> {
    const client = await this.connect()
    if (!client.getServerCapabilities()?.prompts) {
      throw new AtelierError('unsupported', `The MCP server “${this.config.name}” offers no prompts.`)
    }
    return client.getPrompt({ name, arguments: args })
  }

  /** New roots for `roots/list`; a connected server is told they changed. */
  setRoots(roots: Root[]): void {
    if (JSON.stringify(roots) === JSON.stringify(this.roots)) return
    this.roots = roots
    // A server that cannot take the notification (gone meanwhile) asks again when it reconnects.
    this.client?.sendRootsListChanged().catch(() => {})
  }

  /** Calls a tool; the abort signal sends `notifications/cancelled` to the server. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<CallToolResult> {
    const client = await this.connect()
    return (await client.callTool({ name, arguments: args }, undefined, {
      signal: options.signal,
      onprogress: options.onProgress,
      timeout: options.timeoutMs,
      resetTimeoutOnProgress: true,
      maxTotalTimeout: options.maxTotalMs,
    })) as CallToolResult
  }

  /** Closes the session; a stdio server's process ends with it, and so does all it started. */
  async close(): Promise<void> {
    const client = this.client ?? this.opening
    const pid = this.stdio?.pid ?? null
    this.client = undefined
    this.opening = undefined
    this.tools = undefined
    if (client) await closeProcessTree(pid, () => client.close())
  }

  private async open(): Promise<Client> {
    const client = new Client(
      { name: 'Atelier', version: packageJson.version },
      {
        // Elicitation in form mode only (URL mode is not handled); the SDK fills the schema's defaults
        // into an accepted answer. Sampling without tools or context inclusion (see ./sampling.ts).
        capabilities: {
          roots: { listChanged: true },
          elicitation: { form: { applyDefaults: true } },
          sampling: {},
        },
        listChanged: {
          // Only the cache is dropped, at once: the next turn or inspection lists the tools again.
          tools: {
            autoRefresh: false,
            debounceMs: 0,
            onChanged: () => {
              this.tools = undefined
            },
          },
        },
      },
    )
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: this.roots }))
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      request.params.mode === 'url'
        ? { action: 'decline' }
        : this.requests.elicit(request.params, extra.signal),
    )
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      this.requests.sample(request.params, extra.signal),
    )
    client.onclose = () => {
      // The server went away (crashed, killed): the next use connects again.
      if (this.client === client) {
        this.client = undefined
        this.tools = undefined
        this.onLost()
      }
    }
    this.opening = client
    try {
      await this.attach(client)
    } catch (error) {
      if (this.opening === client) throw error
    }
    if (this.opening !== client) {
      // Closed while it connected (turned off, quitting): what did connect is closed too.
      await client.close()
      throw new AtelierError(
        'server_unavailable',
        `The MCP server “${this.config.name}” was closed while it connected.`,
      )
    }
    this.opening = undefined
    this.client = client
    return client
  }

  /** A stdio server's process as it starts: in the sandbox when the person set it so. */
  private async launch(config: Extract<McpServerConfig, { transport: 'stdio' }>) {
    const command = {
      file: config.command,
      args: config.args,
      env: { ...getDefaultEnvironment(), ...config.env },
      cwd: config.cwd ?? process.cwd(),
    }
    return serverLaunch(command, {
      sandboxed: config.sandboxed,
      folder: config.cwd,
      name: `The MCP server “${config.name}”`,
      confine: this.confine,
    })
  }

  /** Connects the client over the server's transport. */
  private async attach(client: Client): Promise<void> {
    const { config } = this
    if (config.transport === 'stdio') {
      const launch = await this.launch(config)
      this.stdio = new StdioClientTransport({
        command: launch.command.file,
        args: launch.command.args,
        env: launch.command.env as Record<string, string>,
        cwd: launch.command.cwd,
        stderr: 'pipe',
      })
      const { onclose } = client
      client.onclose = () => {
        onclose?.()
        launch.done()
      }
      this.stdio.stderr?.on('data', (chunk: Buffer) => this.keepStderr(chunk.toString('utf8')))
      return client.connect(this.stdio)
    }
    this.stdio = undefined
    const url = new URL(config.url)
    const requestInit = { headers: config.headers }
    const { authProvider } = this
    // The server's own refusal, kept: when the OAuth flow it starts fails (its metadata cannot be
    // fetched…), the connection still failed for want of authorization, and signing in says why.
    let challenged: 401 | 403 | undefined
    const watching: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      const asked = new URL(input instanceof Request ? input.url : String(input))
      if (asked.origin !== url.origin || asked.pathname !== url.pathname) return response
      const refused = response.status === 401 || response.status === 403
      // Only the latest answer counts: a refusal the OAuth flow then overcame is not the failure.
      challenged = refused ? (response.status as 401 | 403) : undefined
      if (refused && authProvider instanceof AtelierOAuthProvider) authProvider.refused(response)
      return response
    }
    try {
      await client.connect(
        new StreamableHTTPClientTransport(url, { requestInit, authProvider, fetch: watching }),
      )
    } catch (error) {
      if (this.opening !== client) throw error
      // The OAuth flow stopped where only the person can go on: signing in is theirs to start.
      if (error instanceof UnauthorizedError || error instanceof SignInRequiredError) {
        throw new McpAuthorizationError(401, error)
      }
      if (challenged && !(error instanceof StreamableHTTPError)) {
        throw new McpAuthorizationError(challenged, error as Error)
      }
      const status = error instanceof StreamableHTTPError ? error.code : undefined
      if (status === 401 || status === 403) throw new McpAuthorizationError(status, error as Error)
      // Servers from before Streamable HTTP speak the older HTTP+SSE transport: they refuse the POST
      // (400, 404, 405, as the specification's backwards compatibility says). Any other failure is
      // this server's own, and trying SSE would only hide it.
      if (status !== 400 && status !== 404 && status !== 405) throw error
      await client.connect(new SSEClientTransport(url, { requestInit, authProvider }))
    }
  }

  private keepStderr(text: string): void {
    this.stderrText = (this.stderrText + text).slice(-STDERR_LIMIT)
  }
}

/** The most pages of one listing that are fetched: a server that never stops paging is cut off. */
export const PAGE_LIMIT = 100

/**
 * Every page of a paginated listing, following `nextCursor` to the end — or until a cursor comes
 * back that was already followed, or `PAGE_LIMIT` pages, so a server that pages forever cannot
 * hang the listing: what the pages so far held is the listing then.
 */
async function allPages<Page extends { nextCursor?: string }, Item>(
  list: (cursor: string | undefined) => Promise<Page>,
  items: (page: Page) => Item[],
): Promise<Item[]> {
  const all: Item[] = []
  const followed = new Set<string>()
  let cursor: string | undefined
  for (let pages = 0; pages < PAGE_LIMIT; pages++) {
    const page = await list(cursor)
    all.push(...items(page))
    cursor = page.nextCursor
    if (!cursor || followed.has(cursor)) break
    followed.add(cursor)
  }
  return all
}

/** The server refused the connection as unauthorized: it needs sign-in, which is said as such. */
export class McpAuthorizationError extends AtelierError {
  override readonly name = 'McpAuthorizationError'

  constructor(
    readonly status: 401 | 403,
    override readonly cause: Error,
  ) {
    super(
      'needs_sign_in',
      status === 401
        ? 'needs sign-in: the server answered 401 Unauthorized (it requires OAuth authorization)'
        : 'needs sign-in: the server answered 403 Forbidden (the credentials are not enough)',
      { status },
    )
  }
}
