import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { type Command, InvalidArgumentError } from 'commander'
import { AtelierError, errorMessage } from '../../../src-shared/errors'
import {
  type BrokerInput,
  DEFAULT_DISCOVER_WAIT_MS,
  type DescriptorChange,
  isStdioService,
  MAX_DISCOVER_WAIT_MS,
  type ToolServiceInfo,
} from '../../../src-shared/tool-services'
import { printJson, withAtelier } from '../open-atelier'

interface BrokerOptions {
  token?: string
  user?: string
  password?: string
  nkey?: string
  creds?: string
  ca?: string
  discoverWait?: number
}

export function registerServicesCommand(program: Command): void {
  const services = program
    .command('services')
    .description('tool services: tools other processes serve, over a NATS broker or a local stdio pipe')

  services
    .command('broker [url]')
    .description(
      'set the NATS broker (no URL: show it); the token, password or nkey seed, and credentials in the URL, go to the secret store',
    )
    .option('--token <token>', 'authenticate with a token')
    .option('--user <user>', 'authenticate as this user (with --password)')
    .option('--password <password>', "the user's password")
    .option('--nkey <seed>', 'authenticate with an nkey seed')
    .option('--creds <file>', 'authenticate with a .creds file')
    .option('--ca <file>', 'trust this CA for TLS')
    .option(
      '--discover-wait <ms>',
      `after connecting, the longest a turn waits for the enabled announced services to announce themselves (0–${MAX_DISCOVER_WAIT_MS}, default ${DEFAULT_DISCOVER_WAIT_MS})`,
      discoverWait,
    )
    .action((url: string | undefined, options: BrokerOptions, command: Command) =>
      withAtelier(command, async ({ services: service }) => {
        if (url === undefined) {
          // How the connection stands is known only by trying it: this process has no other.
          const info = await service.connect()
          warn(info.warning)
          return printJson(info)
        }
        const input: BrokerInput = {
          url,
          auth: { kind: 'none' },
          ...(options.ca && { caFile: resolve(options.ca) }),
          ...(options.discoverWait !== undefined && { discoverWaitMs: options.discoverWait }),
        }
        if (options.token) Object.assign(input, { auth: { kind: 'token' }, secret: options.token })
        else if (options.user) {
          Object.assign(input, { auth: { kind: 'user', user: options.user } })
          if (options.password) input.secret = options.password
        } else if (options.nkey) Object.assign(input, { auth: { kind: 'nkey' }, secret: options.nkey })
        else if (options.creds) input.auth = { kind: 'creds', file: resolve(options.creds) }
        const info = await service.setBroker(input)
        process.stdout.write(
          `broker ${info.url} (${info.auth.kind}${info.hasSecret ? ', secret stored' : ''})\n`,
        )
        warn(info.warning)
      }),
    )

  services
    .command('add <file>')
    .description('add the service or tool descriptor(s) a JSON file holds (an array adds several)')
    .action((file: string, _options: unknown, command: Command) =>
      withAtelier(command, ({ services: service }) => {
        let json: unknown
        try {
          json = JSON.parse(readFileSync(resolve(file), 'utf8'))
        } catch (error) {
          throw new AtelierError('invalid_descriptor', `${file}: ${errorMessage(error)}`)
        }
        const { added } = service.add(json)
        process.stdout.write(`added ${added.join(', ')}\n`)
      }),
    )

  services
    .command('list')
    .description('every service with its tools: configured ones, and those live on the broker')
    .option('--json', 'as JSON')
    .action((options: { json?: boolean }, command: Command) =>
      withAtelier(command, async ({ services: service }) => {
        // Announcements arrive right after connecting (Atelier asks every live service to announce).
        await service.discover()
        const list = service.list()
        if (options.json) return printJson(list)
        if (list.length === 0) return void process.stdout.write('no tool services\n')
        for (const info of list) process.stdout.write(`${describe(info)}\n`)
      }),
    )

  services
    .command('remove <id>')
    .description('forget a configured service (and its tools), or one tool')
    .action((id: string, _options: unknown, command: Command) =>
      withAtelier(command, async ({ services: service }) => {
        await service.remove(id)
        process.stdout.write(`removed ${id}\n`)
      }),
    )

  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    services
      .command(`${name} <id>`)
      .description(
        enabled
          ? 'enable a service; for an announced one, the version it announces now (shown), off again if it announces another'
          : 'disable a service (a stdio service’s process tree ends)',
      )
      .action((id: string, _options: unknown, command: Command) =>
        withAtelier(command, async ({ services: service }) => {
          await service.discover()
          const info = await service.setEnabled(id, enabled)
          process.stdout.write(`${name}d ${id}\n`)
          // The person enables an announced service here without having seen it: say what it is.
          if (enabled && info.origin === 'announced') process.stdout.write(`  ${describe(info)}\n`)
        }),
      )
  }
}

function describe(info: ToolServiceInfo): string {
  const { descriptor } = info
  const where = isStdioService(descriptor)
    ? `stdio: ${descriptor.command.join(' ')}`
    : `nats: ${descriptor['request-queue']} → ${
        descriptor['reply-to'] === 'inbox' ? 'each call’s inbox' : descriptor['response-queue']
      }`
  const state = info.enabled ? 'on' : 'off'
  // A tool may be off while its service is on (its own switch), or with it (the service is off).
  const tools =
    info.tools.map(({ name }) => (info.enabledTools.includes(name) ? name : `${name} (off)`)).join(', ') ||
    'no tools'
  const changed = info.changes
    ? `  changed since enabled: ${info.changes.map(describeChange).join('; ')}`
    : ''
  return `${info.id}  ${state}  ${info.origin}  ${where}  tools: ${tools}${changed}`
}

function describeChange({ field, before, after }: DescriptorChange): string {
  if (before === undefined) return `${field} added`
  if (after === undefined) return `${field} gone`
  return `${field} ${JSON.stringify(before)} → ${JSON.stringify(after)}`
}

function discoverWait(text: string): number {
  const ms = Number(text)
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_DISCOVER_WAIT_MS) {
    throw new InvalidArgumentError(`a whole number of milliseconds from 0 to ${MAX_DISCOVER_WAIT_MS}`)
  }
  return ms
}

/** A warning about the broker, on stderr: stdout stays what a script reads. */
function warn(warning: string | null): void {
  if (warning) process.stderr.write(`warning: ${warning}\n`)
}
