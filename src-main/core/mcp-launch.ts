/**
 * What a person sees and approves of an MCP server's launch, and whether the approval given still
 * holds. Shared by the server settings and the migration that sealed the secrets stored before, so
 * an approval given then still holds.
 */
import { createHash } from 'node:crypto'
import type { McpServerConfig } from './mcp-server-config'

/** The command line as a person would type it: arguments with spaces or quotes are quoted. */
export function commandLine(server: { command: string; args: string[] }): string {
  const quote = (part: string) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replace(/'/g, `'\\''`)}'`)
  return [server.command, ...server.args].map(quote).join(' ')
}

/** A stdio server's launch: everything that can change what its command does. */
export interface StdioLaunch {
  command: string
  args: string[]
  /** The environment values kept in the clear. */
  env: Record<string, string>
  /** The secret environment values, sealed. */
  secrets: Record<string, Buffer>
  cwd: string | null
  /** Runs in the sandbox: taking it out of the sandbox asks again. */
  sandboxed?: boolean
}

/**
 * The launch as approved, as a digest of the command line, environment and folder: a changed
 * secret asks again, yet the approval kept in the database holds no value of the launch — neither a
 * secret's nor one in the clear that the person marks secret later.
 */
export function launchApproval({ command, args, env, secrets, cwd, sandboxed }: StdioLaunch): string {
  const sealed = Object.entries(secrets)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    // A sealed value is replaced exactly when the secret is.
    .map(([name, value]) => [name, value.toString('base64')])
  const launch = {
    command: commandLine({ command, args }),
    env,
    cwd,
    secrets: Object.fromEntries(sealed),
    // Only when set, so approvals given before the sandbox existed still hold.
    ...(sandboxed && { sandboxed }),
  }
  return createHash('sha256').update(JSON.stringify(launch)).digest('hex')
}

/** A server as stored: its secret values (environment or headers) sealed, by name. */
type SealedServer = McpServerConfig & { secrets: Record<string, Buffer> }

/**
 * What a person approves of a stdio server: the command line, and the environment and folder it
 * runs with, since either can change what the command does — as a digest (`launchApproval`).
 * Remote servers need no approval.
 */
export function launchOf(server: SealedServer): string {
  if (server.transport === 'http') return ''
  const { command, args, env, secrets, cwd, sandboxed } = server
  return launchApproval({ command, args, env, secrets, cwd, sandboxed })
}

/** A stdio server whose launch changed since the person approved it (or was never approved) waits. */
export function needsApproval(server: SealedServer & { approvedLaunch: string | null }): boolean {
  return server.transport === 'stdio' && server.approvedLaunch !== launchOf(server)
}
