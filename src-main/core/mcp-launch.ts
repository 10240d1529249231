/**
 * What a person sees and approves of an MCP server's launch. Shared by the server settings and the
 * migration that sealed the secrets stored before, so an approval given then still holds.
 */
import { createHash } from 'node:crypto'

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
}

/**
 * The launch as approved, as a digest of the command line, environment and folder: a changed
 * secret asks again, yet the approval kept in the database holds no value of the launch — neither a
 * secret's nor one in the clear that the person marks secret later.
 */
export function launchApproval({ command, args, env, secrets, cwd }: StdioLaunch): string {
  const sealed = Object.entries(secrets)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    // A sealed value is replaced exactly when the secret is.
    .map(([name, value]) => [name, value.toString('base64')])
  const launch = { command: commandLine({ command, args }), env, cwd, secrets: Object.fromEntries(sealed) }
  return createHash('sha256').update(JSON.stringify(launch)).digest('hex')
}
