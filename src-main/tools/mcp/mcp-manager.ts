/**
 * The MCP servers' tools as registry entries. Nothing connects until `prepare` is called — by a turn
 * about to start or by the capabilities inspector — and only enabled servers are passed to it, so a
 * disabled server is never started nor contacted. One connection per server serves both, so opening
 * the inspector warms the next turn.
 */

import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ErrorCode, McpError, type Root, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { errorMessage } from '../../../src-shared/errors'
import type { McpServerStatus } from '../../../src-shared/mcp'
import type { JsonSchema, ToolKind, ToolProgress } from '../../../src-shared/tools'
import { inProcess } from '../define-tool'
import { ToolError } from '../errors'
import type { ToolRegistry } from '../registry'
import type { ConfineServer } from '../sandbox/command-sandbox'
import { clampIntegerSetting, integerParameter, TIMEOUT_SECONDS } from '../settings-policy'
import type { EffectiveToolSettings, RegisteredTool, ToolHost } from '../types'
import { IdleDeadline } from './idle-deadline'
import { McpAuthorizationError, McpConnection, type McpServerConfig } from './mcp-connection'
import { mcpToolName } from './names'
import { SignInRequiredError } from './oauth/atelier-oauth-provider'
import { toToolOutput } from './results'
import type { AskPerson } from './server-requests'

interface Entry {
  connection: McpConnection
  /** The tool list the registry entries were made from; a new list means new entries. */
  listed: Tool[] | undefined
  unregister: (() => void)[]
  error?: string
  /** The last connection was refused as unauthorized: the server needs signing in to. */
  refused?: boolean
}

export class McpManager {
  private readonly entries = new Map<string, Entry>()
  /** The stderr of servers since disconnected (turned off, edited), so settings can still show why. */
  private readonly pastStderr = new Map<string, string>()
  /** What every connection answers to `roots/list` (see `rootsOf`). */
  private roots: Root[] = []

  constructor(
    private readonly registry: ToolRegistry,
    /** Told when a server's session ends by itself (a crash), so whoever shows it can follow. */
    private readonly onServerLost: () => void = () => {},
    /** A remote server's OAuth client for its connections, if it has one. */
    private readonly authProviderFor: (server: McpServerConfig) => OAuthClientProvider | undefined = () =>
      undefined,
    /** Confines the stdio servers set to run in the sandbox. */
    private readonly confine?: ConfineServer,
  ) {}

  /**
   * Connects these servers (the enabled ones) if they are not yet, refreshes their tools in the
   * registry, and closes any other server it had open. A server that fails does not stop the others.
   */
  async prepare(servers: McpServerConfig[]): Promise<McpServerStatus[]> {
    for (const [id, entry] of this.entries) {
      const current = servers.find((server) => server.id === id)
      if (!current || JSON.stringify(current) !== JSON.stringify(entry.connection.config))
        await this.disconnect(id)
    }
    return Promise.all(servers.map((server) => this.refresh(server)))
  }

  /** New roots for every server, open or opened later; open ones are told they changed. */
  setRoots(roots: Root[]): void {
    this.roots = roots
    for (const entry of this.entries.values()) entry.connection.setRoots(roots)
  }

  /** Connects this one server afresh (after signing in), leaving the others as they are. */
  async reconnect(server: McpServerConfig): Promise<McpServerStatus> {
    await this.disconnect(server.id)
    return this.refresh(server)
  }

  /** The connection of a server: its process id (tests), its resources and prompts (the catalog). */
  connection(id: string): McpConnection | undefined {
    return this.entries.get(id)?.connection
  }

  /** What the server wrote to stderr in its current session, else in its last one. */
  stderr(id: string): string {
    return this.entries.get(id)?.connection.stderr ?? this.pastStderr.get(id) ?? ''
  }

  /** Closes a server's session and removes its tools (turned off, edited, removed). */
  async disconnect(id: string): Promise<void> {
    const entry = this.entries.get(id)
    if (!entry) return
    this.entries.delete(id)
    for (const unregister of entry.unregister) unregister()
    await entry.connection.close()
    if (entry.connection.stderr) this.pastStderr.set(id, entry.connection.stderr)
  }

  /** A removed server leaves nothing behind. */
  async forget(id: string): Promise<void> {
    await this.disconnect(id)
    this.pastStderr.delete(id)
  }

  /** Whether the server's last connection was refused as unauthorized. */
  refused(id: string): boolean {
    return this.entries.get(id)?.refused === true
  }

  /** A server as it stands: connected now, its tools as last listed, its last failure. */
  status(server: { id: string; name: string }): McpServerStatus {
    return statusOf(server, this.entries.get(server.id))
  }

  async close(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((id) => this.disconnect(id)))
  }

  private async refresh(server: McpServerConfig): Promise<McpServerStatus> {
    let entry = this.entries.get(server.id)
    if (!entry) {
      const created: Entry = {
        connection: new McpConnection(server, this.onServerLost, this.authProviderFor(server), this.confine),
        listed: undefined,
        unregister: [],
      }
      created.connection.setRoots(this.roots)
      this.entries.set(server.id, created)
      entry = created
    }
    try {
      const tools = await entry.connection.listTools()
      if (tools !== entry.listed) this.register(entry, server, tools)
      delete entry.error
      delete entry.refused
    } catch (error) {
      entry.refused =
        error instanceof McpAuthorizationError ||
        error instanceof UnauthorizedError ||
        error instanceof SignInRequiredError
      const message = errorMessage(error)
      // Past the handshake (a server that guards only its tools): said as needing sign-in all the same,
      // with where to sign in.
      const said =
        entry.refused && !message.startsWith('needs sign-in') ? `needs sign-in: ${message}` : message
      entry.error = entry.refused
        ? `${said} — sign in from Settings → MCP or with \`atelier mcp login ${server.name}\``
        : said
    }
    // This entry, not the map's: a server turned off meanwhile is reported with why it did not connect.
    return statusOf(server, entry)
  }

  private register(entry: Entry, server: McpServerConfig, tools: Tool[]): void {
    for (const unregister of entry.unregister.splice(0)) unregister()
    for (const tool of tools) {
      const registered = mcpTool(entry.connection, server, tool)
      entry.unregister.push(this.registry.register(registered, { kind: 'mcp', server: server.name }))
    }
    entry.listed = tools
  }
}

/** A call's cap whatever the progress: ten minutes by default, an hour at most. */
const MAX_TOTAL_SECONDS = { min: 5, max: 3600, fallback: 600 }

function deadlines(settings: EffectiveToolSettings): { idle: number; total: number } {
  const idle = clampIntegerSetting(settings.parameters.timeoutSeconds, TIMEOUT_SECONDS)
  return {
    idle,
    total: Math.max(idle, clampIntegerSetting(settings.parameters.maxTotalSeconds, MAX_TOTAL_SECONDS)),
  }
}

/**
 * What an MCP tool's calls do, as far as its server says: only a read-only hint makes it a read and
 * only a destructive hint an edit; the rest (and every hint a server leaves out) stays `other`.
 */
export function mcpToolKind(annotations: Tool['annotations']): ToolKind {
  if (annotations?.readOnlyHint === true) return 'read'
  if (annotations?.destructiveHint === true) return 'edit'
  return 'other'
}

/** MCP progress as a count: a total only when it is a positive number, a message only when it says something. */
export function countedProgress(report: {
  progress: number
  total?: number
  message?: string
}): ToolProgress {
  const { progress, total, message } = report
  return {
    kind: 'progress',
    done: progress,
    ...(total !== undefined && Number.isFinite(total) && total > 0 && { total }),
    ...(message?.trim() && { message }),
  }
}

/** One MCP tool as a registry entry, switchable and with a timeout like a built-in. */
function mcpTool(connection: McpConnection, server: McpServerConfig, tool: Tool): RegisteredTool {
  const description = tool.description ?? tool.title ?? tool.name
  return {
    definition: {
      name: mcpToolName(server.name, tool.name),
      description: `${description} (MCP server “${server.name}”)`,
      parameters: tool.inputSchema as JsonSchema,
    },
    settings: {
      title: `${tool.title ?? tool.name} (${server.name})`,
      description,
      category: 'interaction',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: {
        timeoutSeconds: TIMEOUT_SECONDS.fallback,
        maxTotalSeconds: MAX_TOTAL_SECONDS.fallback,
      },
      parameterDescriptors: [
        integerParameter(
          'timeoutSeconds',
          'Timeout',
          'How long a call may go without progress from the server.',
          TIMEOUT_SECONDS,
          's',
        ),
        integerParameter(
          'maxTotalSeconds',
          'Longest call',
          'However much progress the server reports, a call ends by then.',
          MAX_TOTAL_SECONDS,
          's',
        ),
      ],
    },
    // The server's progress restarts the timeout, so the executor's own deadline is the hard cap.
    managesOwnTimeout: true,
    maxRuntimeSeconds: (settings) => deadlines(settings).total,
    kind: mcpToolKind(tool.annotations),
    runner: inProcess(async (args, context) => {
      const { idle, total } = deadlines(context.settings)
      // The idle timeout is kept here rather than by the SDK, so that it can stand still while the
      // person answers the server's question; the SDK keeps the hard cap.
      const idleDeadline = new IdleDeadline(
        idle * 1000,
        () =>
          new ToolError('timeout', `${tool.name} on “${server.name}” timed out: no progress for ${idle} s`),
        context.signal,
      )
      const { ask: askPerson } = context
      const ask: AskPerson | undefined =
        askPerson &&
        ((question, signal) =>
          idleDeadline.pausedWhile(async () => {
            const answer = await askPerson({ kind: 'elicitation', ...question }, signal)
            // Nobody to answer: the server hears no.
            return 'action' in answer && answer.action !== 'approve' ? answer : { action: 'decline' }
          }))
      try {
        // While it runs, what the server asks (a form, a completion) goes to this call's person and chat.
        const answers = { ask, sample: sampleWhileIdle(context.sample, idleDeadline) }
        const result = await connection.requests.during(context.chatId, answers, context.signal, () =>
          connection.callTool(tool.name, (args ?? {}) as Record<string, unknown>, {
            signal: idleDeadline.signal,
            onProgress: (progress) => {
              idleDeadline.restart()
              context.onUpdate(countedProgress(progress))
            },
            timeoutMs: total * 1000,
            maxTotalMs: total * 1000,
          }),
        )
        return toToolOutput(result)
      } catch (error) {
        if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
          throw new ToolError('timeout', `${tool.name} on “${server.name}” timed out: ${error.message}`)
        }
        // Mid-session (a token that no longer refreshes, a step-up to more scope): the person signs in.
        const refused = error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403)
        if (refused || error instanceof UnauthorizedError || error instanceof SignInRequiredError) {
          throw new ToolError(
            'execution_failed',
            `“${server.name}” needs sign-in (Settings → MCP, or \`atelier mcp login ${server.name}\`): ${error.message}`,
          )
        }
        throw error
      } finally {
        idleDeadline.dispose()
      }
    }),
  }
}

/** A call's sampling, its idle timeout standing still while the person and then the model answer. */
function sampleWhileIdle(sample: ToolHost['sample'], deadline: IdleDeadline): ToolHost['sample'] {
  return sample && ((question, signal) => deadline.pausedWhile(() => sample(question, signal)))
}

function statusOf({ id, name }: { id: string; name: string }, entry: Entry | undefined): McpServerStatus {
  return {
    id,
    name,
    connected: entry?.connection.connected ?? false,
    tools: (entry?.listed ?? []).map((tool) => mcpToolName(name, tool.name)),
    ...(entry?.error && { error: entry.error }),
  }
}
