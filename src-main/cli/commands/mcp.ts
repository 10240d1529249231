import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { type Command, InvalidArgumentError } from 'commander'
import { AtelierError } from '../../../src-shared/errors'
import { isSecret, type McpServerInfo } from '../../../src-shared/mcp'
import { printJson, withAtelier } from '../open-atelier'

function keyValue(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=')
  if (at < 1) throw new InvalidArgumentError('expected NAME=VALUE')
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) }
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value]
}

/** Which values went to the secret store, so the person knows what is no longer shown. */
function storedEncrypted({ definition }: McpServerInfo): string {
  const values = (definition.transport === 'stdio' ? definition.env : definition.headers) ?? {}
  const names = Object.keys(values).filter((name) => isSecret(definition.secret, name))
  return names.length > 0 ? ` (stored encrypted: ${names.join(', ')})` : ''
}

interface AddOptions {
  url?: string
  header?: Record<string, string>
  env?: Record<string, string>
  secret?: string[]
  public?: string[]
  cwd?: string
}

/** `--secret NAME` and `--public NAME` as the contract's marks; names marked neither follow their look. */
function secretMarks({ secret = [], public: clear = [] }: AddOptions): Record<string, boolean> {
  const both = secret.find((name) => clear.includes(name))
  if (both) throw new AtelierError('invalid_secret', `${both} is given as both --secret and --public.`)
  return Object.fromEntries([...secret.map((name) => [name, true]), ...clear.map((name) => [name, false])])
}

export function registerMcpCommand(program: Command): void {
  const mcp = program
    .command('mcp')
    .description('MCP servers: their tools join the built-ins, connected when a turn needs them')

  mcp
    .command('add <name> [command...]')
    .description(
      'add a server: `add NAME -- COMMAND ARGS…` (stdio) or `add NAME --url URL` (Streamable HTTP, SSE fallback)',
    )
    .option('--url <url>', 'a remote server')
    .option('--header <name=value>', 'an HTTP header for a remote server (repeatable)', keyValue)
    .option('--env <name=value>', 'an environment variable for a stdio server (repeatable)', keyValue)
    .option(
      '--secret <name>',
      'store this --env or --header value encrypted and never show it (repeatable); names with TOKEN, KEY, SECRET, PASSWORD, AUTH… are by default',
      collect,
    )
    .option(
      '--public <name>',
      'keep this --env or --header value as typed, whatever its name (repeatable)',
      collect,
    )
    .option('--cwd <dir>', 'the folder a stdio server starts in')
    .action((name: string, commandParts: string[], options: AddOptions, command: Command) =>
      withAtelier(command, ({ mcp: servers }) => {
        const [executable, ...args] = commandParts
        if (!options.url && !executable) throw new InvalidArgumentError('give a command after --, or --url')
        const secret = secretMarks(options)
        // Typing the command here is the approval the desktop app asks for; it is printed back as run.
        const info = options.url
          ? servers.add(
              { name, transport: 'http', url: options.url, headers: options.header ?? {}, secret },
              { approve: true },
            )
          : servers.add(
              {
                name,
                transport: 'stdio',
                command: executable ?? '',
                args,
                env: options.env ?? {},
                secret,
                cwd: options.cwd ? resolve(options.cwd) : null,
              },
              { approve: true },
            )
        process.stdout.write(`added ${info.name}: ${info.target}${storedEncrypted(info)}\n`)
      }),
    )

  mcp
    .command('list')
    .description('every server, on or off, with its command line or URL')
    .option('--json', 'as JSON')
    .action((options: { json?: boolean }, command: Command) =>
      withAtelier(command, ({ mcp: servers }) => {
        const list = servers.list()
        if (options.json) return printJson(list)
        for (const server of list) {
          const state = server.enabled ? (server.needsApproval ? 'needs approval' : 'on') : 'off'
          process.stdout.write(`${state.padEnd(14)} ${server.name}  ${server.target}\n`)
        }
      }),
    )

  mcp
    .command('enable <name>')
    .description('turn a server on, approving its command line as printed')
    .action((name: string, _options: unknown, command: Command) =>
      withAtelier(command, async ({ mcp: servers }) => {
        const info = await servers.setEnabled(name, true, { approve: true })
        process.stdout.write(`on ${info.name}: ${info.target}\n`)
      }),
    )

  mcp
    .command('disable <name>')
    .description('turn a server off: it is neither started nor contacted')
    .action((name: string, _options: unknown, command: Command) =>
      withAtelier(command, async ({ mcp: servers }) => {
        await servers.setEnabled(name, false, { approve: false })
        process.stdout.write(`off ${name}\n`)
      }),
    )

  mcp
    .command('remove <name>')
    .description('forget a server')
    .action((name: string, _options: unknown, command: Command) =>
      withAtelier(command, async ({ mcp: servers }) => {
        await servers.remove(name)
        process.stdout.write(`removed ${name}\n`)
      }),
    )

  mcp
    .command('import <file>')
    .description(
      'add the servers of an mcpServers JSON file (Claude Desktop, Cursor); each waits for `enable`',
    )
    .action((file: string, _options: unknown, command: Command) =>
      withAtelier(command, ({ mcp: servers }) => {
        const { added, skipped } = servers.import(readFileSync(file, 'utf8'))
        for (const server of servers.list().filter((s) => added.includes(s.name))) {
          process.stdout.write(
            `added ${server.name} (run \`atelier mcp enable ${server.name}\` to approve): ${server.target}\n`,
          )
        }
        for (const name of skipped) process.stdout.write(`skipped ${name}: a server with that name exists\n`)
      }),
    )
}
