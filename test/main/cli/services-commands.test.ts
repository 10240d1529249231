import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { connect, headers, type NatsConnection } from '@nats-io/transport-node'
import { afterEach, describe, expect, it } from 'vitest'
import {
  ANNOUNCE_SUBJECT,
  DISCOVER_SUBJECT,
  type ServiceAnnouncement,
  type ToolServiceInfo,
} from '../../../src-shared/tool-services'
import { FAKE_ENV } from '../../support/agent-harness'
import { killHard } from '../../support/fixture-process'
import { useNatsServers } from '../../support/nats-server'
import { useTempDirs } from '../../support/temp-dir'
import { atelier, atelierWith, fakeRunArgs, runEvents, useFakeProviders } from './built-cli'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const EXAMPLE = join(ROOT, 'examples', 'joke-service')

const JOKE_ANNOUNCEMENT: ServiceAnnouncement = {
  service: {
    id: 'joke-service',
    'request-queue': 'raw.joke.request',
    'response-queue': 'raw.joke.response',
  },
  tools: [
    {
      type: 'tool-service',
      name: 'tell-joke',
      description: 'Tell a joke on a given topic',
      service: 'joke-service',
      arguments: [{ name: 'topic', type: 'string', description: 'The topic' }],
    },
  ],
  ttlSeconds: 60,
}

describe('atelier services (built CLI)', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs()
  const nats = useNatsServers()
  const startFake = useFakeProviders()
  const children: ChildProcess[] = []
  const connections: NatsConnection[] = []
  afterEach(async () => {
    await Promise.all(children.splice(0).map(killHard))
    await Promise.all(connections.splice(0).map((connection) => connection.close()))
  })

  /**
   * A service written on the bare NATS client, not on the SDK: it answers each discover with its
   * announcement `announceDelayMs` later, and each request with a joke, in the seed's shape (the
   * topic `unusable` with a message that is no response).
   */
  async function rawJokeService(url: string, announceDelayMs: number): Promise<void> {
    const connection = await connect({ servers: url })
    connections.push(connection)
    const { service } = JOKE_ANNOUNCEMENT
    connection.subscribe(DISCOVER_SUBJECT, {
      callback: () => {
        setTimeout(
          () => connection.publish(ANNOUNCE_SUBJECT, JSON.stringify(JOKE_ANNOUNCEMENT)),
          announceDelayMs,
        )
      },
    })
    connection.subscribe(service['request-queue'], {
      callback: (_error, message) => {
        const { arguments: args } = message.json<{ arguments: string }>()
        const header = headers()
        header.set('id', message.headers?.get('id') ?? '')
        const { topic } = JSON.parse(args) as { topic: string }
        // `unusable`: an answer that is no response at all.
        const answer =
          topic === 'unusable'
            ? '[1, 2, 3]'
            : JSON.stringify({ error: null, response: `A joke about ${topic}.`, end_of_stream: true })
        connection.publish(service['response-queue'], answer, { headers: header })
      },
    })
    await connection.flush()
  }

  it('offers an announced service to a one-shot run and to inspect, waiting for its late announcement', async () => {
    const server = await nats()
    await rawJokeService(server.url, 100)
    const fake = await startFake()
    const dataDir = tempDir()
    const project = realpathSync(tempDir())
    expect((await atelier(dataDir, 'services', 'broker', server.url)).code).toBe(0)
    expect((await atelier(dataDir, 'services', 'enable', 'joke-service')).code).toBe(0)

    const inspected = await atelier(dataDir, 'inspect', '--provider', 'openai-chat', '--cwd', project)
    expect(inspected.code).toBe(0)
    expect(
      JSON.parse(inspected.stdout).map((tool: { function: { name: string } }) => tool.function.name),
    ).toContain('tell-joke')

    fake.enqueue(
      { toolCalls: [{ id: 'joke', name: 'tell-joke', arguments: '{"topic":"cheese"}' }] },
      { text: 'Told.' },
    )
    const run = await atelierWith(
      FAKE_ENV,
      dataDir,
      ...fakeRunArgs(fake, project, 'a joke', '--json', '--approval', 'full-auto'),
    )
    expect(run.code).toBe(0)
    const events = runEvents(run)
    const discovered = events.find((event) => event.type === 'services_discovered')
    expect(discovered).toMatchObject({ services: ['joke-service'], waitedMs: expect.any(Number) })
    expect(discovered?.type === 'services_discovered' && discovered.waitedMs).toBeGreaterThan(0)
    const ended = events.find((event) => event.type === 'tool_call' && event.call.result)
    expect(ended?.type === 'tool_call' && ended.call.result).toMatchObject({
      isError: false,
      content: 'A joke about cheese.',
    })
  })

  it('ends a call at once on an unusable response, and a later process shows it among the broker’s errors, connected', async () => {
    const server = await nats()
    await rawJokeService(server.url, 0)
    const dataDir = tempDir()
    expect((await atelier(dataDir, 'services', 'broker', server.url)).code).toBe(0)
    expect((await atelier(dataDir, 'services', 'enable', 'joke-service')).code).toBe(0)

    const started = Date.now()
    const failed = await atelier(dataDir, 'tool', 'tell-joke', '{"topic":"unusable"}')
    expect(failed.code).toBe(1)
    expect(failed.stdout).toContain('sent a response that cannot be used: it is not a JSON object')
    expect(Date.now() - started).toBeLessThan(15_000)

    const broker = JSON.parse((await atelier(dataDir, 'services', 'broker')).stdout)
    expect(broker.status).toBe('connected')
    expect(broker.errors).toEqual([
      expect.stringContaining('is not a service response (it is not a JSON object)'),
    ])
    const [listed] = JSON.parse(
      (await atelier(dataDir, 'services', 'list', '--json')).stdout,
    ) as ToolServiceInfo[]
    expect(listed).toMatchObject({ id: 'joke-service', enabled: true, enabledTools: ['tell-joke'] })
  })

  it('lists service and custom tools in `tools`, and reads and sets their settings with `settings get|set`', async () => {
    const dataDir = tempDir()
    const home = tempDir()
    mkdirSync(join(home, '.atelier', 'tools'), { recursive: true })
    writeFileSync(
      join(home, '.atelier', 'tools', 'hello.ts'),
      `export default (api) => ({
  name: 'hello_custom',
  label: 'hello_custom',
  description: 'Says hello',
  parameters: api.typebox.Type.Object({}),
  execute: async () => ({ content: [{ type: 'text', text: 'hello' }] }),
})
`,
    )
    const cli = (...args: string[]) => atelierWith({ HOME: home }, dataDir, ...args)
    const file = join(tempDir(), 'stdio.json')
    const tool = JSON.parse(readFileSync(join(EXAMPLE, 'tell-joke.json'), 'utf8'))
    writeFileSync(
      file,
      JSON.stringify([
        { ...JSON.parse(readFileSync(join(EXAMPLE, 'joke-service-stdio.json'), 'utf8')), cwd: ROOT },
        { ...tool, service: 'joke-stdio' },
        { ...tool, name: 'tell-another-joke', service: 'joke-stdio' },
      ]),
    )
    expect((await cli('services', 'add', file)).code).toBe(0)

    const set = await cli('settings', 'set', 'tell-joke', 'timeoutSeconds=90', 'inactivitySeconds=7')
    expect(set.code).toBe(0)
    expect(JSON.parse(set.stdout).parameters).toEqual({ timeoutSeconds: 90, inactivitySeconds: 7 })
    const got = JSON.parse((await cli('settings', 'get', 'tell-joke')).stdout)
    expect(got).toMatchObject({
      parameters: { timeoutSeconds: 90, inactivitySeconds: 7 },
      source: { kind: 'service', service: 'joke-stdio' },
    })
    expect((await cli('settings', 'set', 'tell-another-joke', 'enabled=false')).code).toBe(0)
    expect((await cli('settings', 'set', 'hello_custom', 'enabled=false')).code).toBe(0)
    expect(JSON.parse((await cli('settings', 'get', 'hello_custom')).stdout)).toMatchObject({
      enabled: false,
    })

    const listed = (await cli('tools')).stdout
    expect(listed).toMatch(/^on {3}tell-joke \[service:joke-stdio\].*timeoutSeconds=90 inactivitySeconds=7/m)
    expect(listed).toMatch(/^off {2}tell-another-joke \[service:joke-stdio\]/m)
    expect(listed).toMatch(/^off {2}hello_custom \[custom:/m)
    expect((await cli('services', 'list')).stdout).toMatch(
      /^joke-stdio {2}on {2}configured {2}stdio: .* {2}tools: tell-joke, tell-another-joke \(off\)$/m,
    )
  })

  it('adds descriptors from files, lists, disables, enables and removes them, refusing a bad one', async () => {
    const dataDir = tempDir()
    const file = join(tempDir(), 'jokes.json')
    const read = (name: string) => JSON.parse(readFileSync(join(EXAMPLE, name), 'utf8'))
    writeFileSync(
      file,
      JSON.stringify([read('joke-service.json'), read('tell-joke.json'), read('tell-dad-joke.json')]),
    )

    expect(await atelier(dataDir, 'services', 'add', file)).toMatchObject({
      code: 0,
      stdout: 'added joke-service, tell-joke, tell-dad-joke\n',
    })
    const listed = JSON.parse(
      (await atelier(dataDir, 'services', 'list', '--json')).stdout,
    ) as ToolServiceInfo[]
    expect(listed).toEqual([
      expect.objectContaining({
        id: 'joke-service',
        transport: 'nats',
        origin: 'configured',
        enabled: true,
        tools: [
          expect.objectContaining({ name: 'tell-joke', style: 'pun' }),
          expect.objectContaining({ name: 'tell-dad-joke' }),
        ],
      }),
    ])
    expect((await atelier(dataDir, 'services', 'disable', 'joke-service')).code).toBe(0)
    expect((await atelier(dataDir, 'services', 'list')).stdout).toMatch(
      /^joke-service {2}off {2}configured {2}nats: /,
    )
    expect((await atelier(dataDir, 'services', 'enable', 'joke-service')).code).toBe(0)

    const stray = join(tempDir(), 'stray.json')
    writeFileSync(stray, JSON.stringify({ ...read('tell-joke.json'), name: 'stray', service: 'elsewhere' }))
    const refused = await atelier(dataDir, 'services', 'add', stray)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      /names the service "elsewhere", which is not configured.*\(invalid_descriptor\)/,
    )

    expect((await atelier(dataDir, 'services', 'remove', 'tell-dad-joke')).code).toBe(0)
    expect((await atelier(dataDir, 'services', 'remove', 'joke-service')).code).toBe(0)
    expect((await atelier(dataDir, 'services', 'list')).stdout).toBe('no tool services\n')
  })

  it('warns on stderr when the broker is not on this machine and Atelier signs in with nothing', async () => {
    const dataDir = tempDir()
    const open = await atelier(dataDir, 'services', 'broker', 'nats://192.0.2.10:4222')
    expect(open).toMatchObject({ code: 0, stdout: 'broker nats://192.0.2.10:4222 (none)\n' })
    expect(open.stderr).toMatch(/^warning: The broker nats:\/\/192\.0\.2\.10:4222 is not on this machine/)
    const shown = await atelier(dataDir, 'services', 'broker')
    expect(JSON.parse(shown.stdout).warning).toMatch(/anyone who reaches it can read every call/)
    expect(shown.stderr).toMatch(/^warning: /)

    const signedIn = await atelier(dataDir, 'services', 'broker', 'nats://192.0.2.10:4222', '--token', 't0k')
    expect(signedIn).toMatchObject({ code: 0, stderr: '' })
    const here = await atelier(dataDir, 'services', 'broker', 'nats://127.0.0.1:4222')
    expect(here).toMatchObject({ code: 0, stderr: '' })
  })

  it('keeps the broker token in the secret store, finds the announced joke service, and runs its tool once enabled', async () => {
    const server = await nats(['--auth', 'sesame'])
    const dataDir = tempDir()
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(EXAMPLE, 'main.ts'), '--nats', server.url],
      {
        cwd: ROOT,
        env: { ...process.env, NATS_TOKEN: 'sesame' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    )
    children.push(child)
    let stderr = ''
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    while (!stderr.includes('serving')) {
      if (child.exitCode !== null) throw new Error(`the joke service exited: ${stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }

    const set = await atelier(dataDir, 'services', 'broker', server.url, '--token', 'sesame')
    expect(set).toMatchObject({ code: 0, stdout: `broker ${server.url} (token, secret stored)\n` })
    expect(readFileSync(join(dataDir, 'atelier.db')).includes('sesame')).toBe(false)
    const broker = JSON.parse((await atelier(dataDir, 'services', 'broker')).stdout)
    expect(broker).toMatchObject({ url: server.url, auth: { kind: 'token' }, hasSecret: true })
    expect(JSON.stringify(broker)).not.toContain('sesame')

    const listed = JSON.parse(
      (await atelier(dataDir, 'services', 'list', '--json')).stdout,
    ) as ToolServiceInfo[]
    expect(listed).toEqual([expect.objectContaining({ id: 'joke-service', origin: 'announced' })])
    // An announced service comes from the network: its tools are not there until it is enabled.
    const off = await atelier(dataDir, 'tool', 'tell-joke', '{"topic":"food"}')
    expect(off).toMatchObject({ code: 1, stdout: expect.stringContaining('"type":"unknown_tool"') })
    const enabled = await atelier(dataDir, 'services', 'enable', 'joke-service')
    expect(enabled).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^enabled joke-service\n {2}joke-service {2}on {2}announced {2}nats: /),
    })
    const joke = await atelier(dataDir, 'tool', 'tell-joke', '{"topic":"food"}')
    expect(joke).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("but I couldn't make enough dough."),
    })
  })
})
