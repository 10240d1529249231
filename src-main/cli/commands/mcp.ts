import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { type Command, InvalidArgumentError } from 'commander'
import { AtelierError } from '../../../src-shared/errors'
import { isSecret, type McpOAuthSettings, type McpServerInfo } from '../../../src-shared/mcp'
import { MASKED_VALUE } from '../../../src-shared/secrets'
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
  if (definition.transport === 'http' && definition.url.includes(MASKED_VALUE))
    names.push('the URL’s credentials')
  if (definition.transport === 'http' && definition.oauth?.clientSecret) names.push('the OAuth client secret')
  if (definition.transport === 'http' && definition.oauth?.clientPrivateKey)
    names.push('the OAuth private key')
  return names.length > 0 ? ` (stored encrypted: ${names.join(', ')})` : ''
}

interface AddOptions {
  url?: string
  header?: Record<string, string>
  env?: Record<string, string>
  secret?: string[]
  public?: string[]
  cwd?: string
  sandboxed?: boolean
  clientId?: string
  clientSecret?: string
  clientMetadataUrl?: string
  clientCredentials?: boolean
  clientPrivateKey?: string
  signingAlgorithm?: string
  scope?: string
}

/** The OAuth flags as the server's `oauth` settings; none given, none stored. */
function oauthSettings(options: AddOptions): { oauth?: McpOAuthSettings } {
  const { clientId, clientSecret, clientMetadataUrl, clientCredentials, scope, signingAlgorithm } = options
  // The key is read from its file here: its text is what is stored (sealed), not the path.
  const clientPrivateKey = options.clientPrivateKey && readFileSync(options.clientPrivateKey, 'utf8')
  const given = clientId ?? clientSecret ?? clientMetadataUrl ?? scope ?? clientPrivateKey ?? signingAlgorithm
  if (!given && !clientCredentials) return {}
  if (!options.url) throw new InvalidArgumentError('the OAuth options are for a remote server (--url)')
  return {
    oauth: {
      ...(clientId && { clientId }),
      ...(clientSecret && { clientSecret }),
      ...(clientMetadataUrl && { clientMetadataUrl }),
      ...(clientPrivateKey && { clientPrivateKey }),
      ...(signingAlgorithm && { signingAlgorithm }),
      ...(clientCredentials && { grant: 'client_credentials' as const }),
      ...(scope && { scope }),
    },
  }
}

/** `--secret NAME` and `--public NAME` as the contract's marks; names marked neither are secret. */
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
      'store this --env or --header value encrypted and never show it (repeatable): every value is, unless --public',
      collect,
    )
    .option(
      '--public <name>',
      'this --env or --header value is not secret: keep it as typed and show it (repeatable)',
      collect,
    )
    .option('--cwd <dir>', 'the folder a stdio server starts in')
    .option(
      '--sandboxed',
      'run a stdio server in the sandbox: it writes only its --cwd, reads no secrets, and has the network only if the sandbox allows it',
    )
    .option(
      '--client-id <id>',
      'OAuth: a client registered with the server beforehand (no dynamic registration)',
    )
    .option('--client-secret <secret>', 'OAuth: that client’s secret (stored encrypted)')
    .option(
      '--client-metadata-url <url>',
      'OAuth: an https URL of a Client ID Metadata Document, used where the server supports them',
    )
    .option(
      '--client-credentials',
      'OAuth: sign in as a machine client (needs --client-id and --client-secret)',
    )
    .option(
      '--client-private-key <file>',
      'OAuth, with --client-credentials: a PEM (PKCS #8) key that signs the token requests (private_key_jwt) instead of a secret; stored encrypted',
    )
    .option(
      '--signing-algorithm <alg>',
      'OAuth: that key’s algorithm (ES256, RS256, …; by default as the key is)',
    )
    .option('--scope <scopes>', 'OAuth: scopes to ask for when the server names none')
    .action((name: string, commandParts: string[], options: AddOptions, command: Command) =>
      withAtelier(command, ({ mcp: servers }) => {
        const [executable, ...args] = commandParts
        if (!options.url && !executable) throw new InvalidArgumentError('give a command after --, or --url')
        const secret = secretMarks(options)
        // Typing the command here is the approval the desktop app asks for; it is printed back as run.
        const info = options.url
          ? servers.add(
              {
                name,
                transport: 'http',
                url: options.url,
                headers: options.header ?? {},
                secret,
                ...oauthSettings(options),
              },
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
                ...(options.sandboxed && { sandboxed: true }),
              },
              { approve: true },
            )
        const sandboxed =
          info.definition.transport === 'stdio' && info.definition.sandboxed ? ', in the sandbox' : ''
        process.stdout.write(`added ${info.name}: ${info.target}${sandboxed}${storedEncrypted(info)}\n`)
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
          const signIn =
            server.auth === 'none' ? '' : `  (${server.auth === 'signed-in' ? 'signed in' : 'needs sign-in'})`
          process.stdout.write(`${state.padEnd(14)} ${server.name}  ${server.target}${signIn}\n`)
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
    .command('login <name>')
    .description(
      'sign in to a remote server that asks for OAuth: prints the authorization URL to open and waits for the browser (5 minutes)',
    )
    .action((name: string, _options: unknown, command: Command) =>
      withAtelier(command, async ({ mcp: servers }) => {
        const { authorizationUrl } = await servers.signIn(name)
        if (authorizationUrl) {
          process.stdout.write(
            `Open this URL to sign in to ${name}:\n${authorizationUrl}\nWaiting for the browser…\n`,
          )
          await servers.signInCompletion(name)
        }
        const info = servers.list().find((server) => server.name === name)
        if (info?.error && !info.running) {
          throw new AtelierError(
            'sign_in_failed',
            `Signed in to ${name}, but it did not connect: ${info.error}`,
          )
        }
        const count = info?.tools.length ?? 0
        const connection =
          info?.enabled === false
            ? ' (it is off: `atelier mcp enable` to use it)'
            : `: ${count} tool${count === 1 ? '' : 's'}`
        process.stdout.write(`Signed in to ${name}${connection}\n`)
      }),
    )

  mcp
    .command('logout <name>')
    .description('forget the tokens of a remote server: it needs signing in again')
    .action((name: string, _options: unknown, command: Command) =>
      withAtelier(command, async ({ mcp: servers }) => {
        await servers.signOut(name)
        process.stdout.write(`Signed out of ${name}\n`)
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
