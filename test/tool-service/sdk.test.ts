/**
 * The tool-service SDK against a real nats-server (the test plays Atelier's side with a bare
 * client: publish requests, listen on the response queue), and over stdio against the joke
 * service's real process.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { connect, headers, type NatsConnection } from '@nats-io/transport-node'
import { afterEach, describe, expect, it } from 'vitest'
import { JokeService, jokeParts, tellJoke } from '../../examples/joke-service/joke-service'
import {
  ANNOUNCE_SUBJECT,
  cancelSubject,
  DISCOVER_SUBJECT,
  type NatsServiceDescriptor,
  parseServiceResponse,
  type ServiceAnnouncement,
  type ServiceResponse,
  type StdioResponseLine,
  type StdioServiceDescriptor,
  type ToolDescriptor,
} from '../../src-shared/tool-services'
import {
  DynamicToolService,
  type InvokeContext,
  type InvokeFunction,
  type InvokeResult,
  type NatsServiceHandle,
  type ServeNatsOptions,
  sanitizeHeaderValue,
  ToolServiceError,
} from '../../src-tool-service'
import { type NatsServer, useNatsServers } from '../support/nats-server'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const EXAMPLE = new URL('../../examples/joke-service/', import.meta.url)

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(new URL(file, EXAMPLE), 'utf8')) as T
}

const jokeDescriptor = readJson<NatsServiceDescriptor>('joke-service.json')
const tellJokeTool = readJson<ToolDescriptor>('tell-joke.json')
const jokeTools = [tellJokeTool, readJson<ToolDescriptor>('tell-dad-joke.json')]
const REQUEST_QUEUE = jokeDescriptor['request-queue']
const RESPONSE_QUEUE = jokeDescriptor['response-queue']

function deferred<T = void>() {
  let resolve: (value: T) => void = () => {}
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

/** A service whose `invoke` is the function given (a test's own behaviour). */
class Scripted extends DynamicToolService {
  constructor(private readonly fn: InvokeFunction) {
    super()
  }
  override invoke(
    user: string,
    config: Record<string, unknown>,
    args: Record<string, unknown>,
    context: InvokeContext,
  ): InvokeResult | Promise<InvokeResult> {
    return this.fn(user, config, args, context)
  }
}

const connections: NatsConnection[] = []
const handles: NatsServiceHandle[] = []

async function serve(
  service: DynamicToolService,
  server: NatsServer,
  options: Partial<ServeNatsOptions> = {},
): Promise<NatsServiceHandle> {
  const handle = await service.serveNats({
    servers: server.url,
    requestQueue: REQUEST_QUEUE,
    responseQueue: RESPONSE_QUEUE,
    log: () => {},
    ...options,
  })
  handles.push(handle)
  return handle
}

/** Atelier's side, bare: publishes requests and collects the responses by their `id` header. */
class Caller {
  readonly responses = new Map<string, ServiceResponse[]>()
  readonly unparsed: string[] = []
  private waiters: (() => void)[] = []

  private constructor(readonly connection: NatsConnection) {}

  static async start(server: NatsServer, responseQueue = RESPONSE_QUEUE): Promise<Caller> {
    const connection = await connect({ servers: server.url })
    connections.push(connection)
    const caller = new Caller(connection)
    connection.subscribe(responseQueue, {
      callback: (_error, msg) => {
        const id = msg.headers?.get('id') ?? ''
        const response = parseServiceResponse(msg.string())
        if (!response) caller.unparsed.push(msg.string())
        else caller.responses.set(id, [...(caller.responses.get(id) ?? []), response])
        for (const wake of caller.waiters.splice(0)) wake()
      },
    })
    await connection.flush()
    return caller
  }

  send(id: string, user: string, config: unknown, args: unknown, subject = REQUEST_QUEUE): void {
    this.publishRaw(
      id,
      JSON.stringify({ user, config: JSON.stringify(config), arguments: JSON.stringify(args) }),
      subject,
    )
  }

  publishRaw(id: string | undefined, body: string, subject = REQUEST_QUEUE): void {
    const h = headers()
    if (id !== undefined) h.set('id', id)
    this.connection.publish(subject, body, { headers: h })
  }

  cancel(id: string, requestQueue = REQUEST_QUEUE): void {
    this.connection.publish(cancelSubject(requestQueue), JSON.stringify({ id }))
  }

  of(id: string): ServiceResponse[] {
    return this.responses.get(id) ?? []
  }

  async until(predicate: () => boolean): Promise<void> {
    while (!predicate()) await new Promise<void>((resolve) => this.waiters.push(resolve))
  }

  /** Every response of a call, once its final one has arrived. */
  async finished(id: string): Promise<ServiceResponse[]> {
    await this.until(() => this.of(id).some((response) => response.end_of_stream))
    return this.of(id)
  }

  async call(id: string, user: string, config: unknown, args: unknown): Promise<ServiceResponse[]> {
    this.send(id, user, config, args)
    return this.finished(id)
  }
}

/** A flush succeeds only on a live connection (it rejects at once while reconnecting). */
function isConnected(connection: NatsConnection): Promise<boolean> {
  return connection.flush().then(
    () => true,
    () => false,
  )
}

const done = (response: string): ServiceResponse => ({ error: null, response, end_of_stream: true })
const failed = (type: string, message: string): ServiceResponse => ({
  error: { type, message },
  response: '',
  end_of_stream: true,
})

describe('serveNats', () => {
  const startServer = useNatsServers()
  // Registered after useNatsServers, so (hooks run as a stack) this runs before the brokers stop.
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((handle) => handle.close({ graceMs: 0 })))
    await Promise.all(connections.splice(0).map((connection) => connection.close()))
  })

  it('answers each request on the response queue, correlated by the id header', async () => {
    const server = await startServer()
    await serve(new JokeService(), server)
    const caller = await Caller.start(server)
    caller.send('call-a', 'alice', { style: 'pun' }, { topic: 'programming' })
    caller.send('call-b', 'bob', { style: 'dad' }, { topic: 'food' })
    caller.send('call-c', 'carol', {}, { topic: 'Volcanoes' })
    expect(await caller.finished('call-a')).toEqual([done(tellJoke('alice', 'pun', 'programming'))])
    expect(await caller.finished('call-b')).toEqual([done(tellJoke('bob', 'dad', 'food'))])
    // No style: a pun, as the seed; an unknown topic still gets a joke about it.
    expect(await caller.finished('call-c')).toEqual([done(tellJoke('carol', 'pun', 'Volcanoes'))])
    expect(tellJoke('alice', 'pun', 'programming')).toBe(
      "Hey alice! Here's a pun about programming for you:\n\nWhy do programmers prefer dark mode? Because light attracts bugs.",
    )
    expect(tellJoke('carol', 'pun', 'Volcanoes')).toContain('Volcanoes')
    expect(caller.unparsed).toEqual([])
  })

  it('answers a request that carries a reply subject (an inbox) there, streamed too, and nothing on the response queue', async () => {
    const server = await startServer()
    await serve(new JokeService(), server)
    const overheard = await Caller.start(server)
    const inbox = await Caller.start(server, '_INBOX.one-call')
    const header = headers()
    header.set('id', 'private')
    const request = { user: 'alice', config: '{"style":"dad"}', arguments: '{"topic":"music","stream":true}' }
    inbox.connection.publish(REQUEST_QUEUE, JSON.stringify(request), {
      headers: header,
      reply: '_INBOX.one-call',
    })
    const streamed = await inbox.finished('private')
    expect(streamed.length).toBeGreaterThan(2)
    expect(streamed.map((response) => response.response).join('')).toBe(tellJoke('alice', 'dad', 'music'))
    await overheard.connection.flush()
    expect(overheard.responses.size).toBe(0)
    expect(overheard.unparsed).toEqual([])
  })

  it('JSON-encodes an object result, and passes user, config and arguments through parsed', async () => {
    const server = await startServer()
    await serve(
      new Scripted(async (user, config, args) => ({ user, config, args, list: [1, 'two'] })),
      server,
    )
    const caller = await Caller.start(server)
    const [response] = await caller.call('obj', 'alice', { collection: 'customers' }, { question: 'why?' })
    expect(response?.end_of_stream).toBe(true)
    expect(response?.error).toBeNull()
    expect(JSON.parse(response?.response ?? '')).toEqual({
      user: 'alice',
      config: { collection: 'customers' },
      args: { question: 'why?' },
      list: [1, 'two'],
    })
  })

  it('streams an async iterable: one response per part, then a final empty one', async () => {
    const server = await startServer()
    await serve(new JokeService(), server)
    const caller = await Caller.start(server)
    const streamed = await caller.call('stream', 'alice', { style: 'dad' }, { topic: 'music', stream: true })
    const parts = jokeParts('alice', 'dad', 'music')
    expect(streamed).toEqual([
      ...parts.map((part) => ({ error: null, response: part, end_of_stream: false })),
      done(''),
    ])
    expect(streamed.map((response) => response.response).join('')).toBe(tellJoke('alice', 'dad', 'music'))
    // The config can ask for the stream too.
    const byConfig = await caller.call('stream-config', 'bob', { stream: true }, { topic: 'space' })
    expect(byConfig.map((response) => response.response).join('')).toBe(tellJoke('bob', 'pun', 'space'))
    expect(byConfig).toHaveLength(4)
  })

  it('turns thrown errors into the error convention', async () => {
    const server = await startServer()
    await serve(new JokeService(), server)
    await serve(
      new Scripted(async (_user, _config, args) => {
        if (args.kind === 'plain') throw new Error('boom')
        if (args.kind === 'typed-object') throw { type: 'quota', message: 'Out of jokes today' }
        if (args.kind === 'string') throw 'just a string'
        if (args.kind === 'sync') return undefined as unknown as string
        return (async function* () {
          yield 'first part'
          throw new ToolServiceError('upstream', 'The joke API went away')
        })()
      }),
      server,
      { requestQueue: 'test.scripted.request', responseQueue: 'test.scripted.response' },
    )
    const jokes = await Caller.start(server)
    expect(await jokes.call('missing', 'alice', { style: 'pun' }, { topic: 'missing' })).toEqual([
      failed('not-found', 'No joke about missing'),
    ])
    expect(await jokes.call('no-topic', 'alice', {}, {})).toEqual([
      failed('invalid-arguments', 'Give a `topic` (a non-empty string)'),
    ])
    expect(
      (await jokes.call('bad-style', 'alice', { style: 'limerick' }, { topic: 'x' }))[0]?.error?.type,
    ).toBe('invalid-config')

    const scripted = await Caller.start(server, 'test.scripted.response')
    const ask = (id: string, kind: string) => {
      scripted.send(id, 'u', {}, { kind }, 'test.scripted.request')
      return scripted.finished(id)
    }
    expect(await ask('plain', 'plain')).toEqual([failed('error', 'boom')])
    expect(await ask('typed', 'typed-object')).toEqual([failed('quota', 'Out of jokes today')])
    expect(await ask('string', 'string')).toEqual([failed('error', 'just a string')])
    expect(await ask('undefined', 'sync')).toEqual([done('')])
    expect(await ask('mid-stream', 'stream')).toEqual([
      { error: null, response: 'first part', end_of_stream: false },
      failed('upstream', 'The joke API went away'),
    ])
    expect(new ToolServiceError('a', 'b')).toMatchObject({
      name: 'ToolServiceError',
      type: 'a',
      message: 'b',
    })
  })

  it('answers garbage with bad-request when it has an id, drops it when not, and keeps serving', async () => {
    const server = await startServer()
    await serve(new JokeService(), server)
    const caller = await Caller.start(server)
    const garbage: Record<string, string> = {
      'not-json': 'this is not JSON',
      array: '[1, 2]',
      'user-number': JSON.stringify({ user: 7, config: '{}', arguments: '{}' }),
      'config-not-json': JSON.stringify({ user: 'a', config: 'nope', arguments: '{}' }),
      'config-array': JSON.stringify({ user: 'a', config: '[]', arguments: '{}' }),
      'config-object': JSON.stringify({ user: 'a', config: { style: 'pun' }, arguments: '{}' }),
      'arguments-string': JSON.stringify({ user: 'a', config: '{}', arguments: '"topic"' }),
      'arguments-null': JSON.stringify({ user: 'a', config: '{}', arguments: 'null' }),
    }
    caller.publishRaw(undefined, JSON.stringify({ user: 'a', config: '{}', arguments: '{"topic":"food"}' }))
    caller.publishRaw('', 'no id at all')
    for (const [id, body] of Object.entries(garbage)) caller.publishRaw(id, body)
    for (const id of Object.keys(garbage)) {
      const responses = await caller.finished(id)
      expect(responses).toHaveLength(1)
      expect(responses[0]).toMatchObject({
        error: { type: 'bad-request' },
        response: '',
        end_of_stream: true,
      })
    }
    expect(await caller.call('after', 'alice', { style: 'pun' }, { topic: 'food' })).toEqual([
      done(tellJoke('alice', 'pun', 'food')),
    ])
    // The requests without an id were never answered (responses arrive in order on one connection).
    expect([...caller.responses.keys()].sort()).toEqual([...Object.keys(garbage), 'after'].sort())
    // As the seed's schema defaults: absent or empty config and arguments read as {}.
    caller.publishRaw('lenient', JSON.stringify({ user: 'a', config: '', arguments: '{"topic":"food"}' }))
    expect(await caller.finished('lenient')).toEqual([done(tellJoke('a', 'pun', 'food'))])
  })

  it('stops a stream on cancel and sends nothing more for that id, on whichever instance runs it', async () => {
    const server = await startServer()
    const ids = Array.from({ length: 8 }, (_, n) => `long-${n}`)
    const stopped = new Map(ids.map((id) => [id, deferred<{ aborted: boolean }>()]))
    const produced: string[] = []
    const ticker = () =>
      new Scripted(async (_user, _config, args, { id, signal }) => {
        if (args.kind === 'ping') return 'pong'
        return (async function* () {
          try {
            produced.push(`${id}: first`)
            yield 'first'
            await new Promise((resolve) => signal.addEventListener('abort', resolve))
            produced.push(`${id}: after cancel`)
            yield 'after cancel'
            yield 'and more'
          } finally {
            stopped.get(id)?.resolve({ aborted: signal.aborted })
          }
        })()
      })
    // Two instances in one queue group: each cancel must reach the one running its call (with 8
    // calls spread over both, a cancel heard by only one instance would miss some).
    await serve(ticker(), server)
    await serve(ticker(), server)
    const caller = await Caller.start(server)

    for (const id of ids) caller.send(id, 'u', {}, { kind: 'stream' })
    await caller.until(() => ids.every((id) => caller.of(id).length === 1))
    for (const id of ids) caller.cancel(id)
    for (const id of ids) expect(await stopped.get(id)?.promise).toEqual({ aborted: true })
    // Each generator went on to yield once more; the SDK sent none of it.
    expect(produced.sort()).toEqual(ids.flatMap((id) => [`${id}: after cancel`, `${id}: first`]).sort())
    // Later calls' answers come after anything the service sent before them (one connection, in order).
    expect(await caller.call('ping', 'u', {}, { kind: 'ping' })).toEqual([done('pong')])
    await caller.call('ping-2', 'u', {}, { kind: 'ping' })
    for (const id of ids)
      expect(caller.of(id)).toEqual([{ error: null, response: 'first', end_of_stream: false }])
  })

  it('sends nothing for a cancelled call that is not streamed', async () => {
    const server = await startServer()
    const stopped = deferred<{ aborted: boolean }>()
    const running = deferred()
    await serve(
      new Scripted(async (_user, _config, args, { signal }) => {
        if (args.kind === 'ping') return 'pong'
        running.resolve()
        await new Promise((resolve) => signal.addEventListener('abort', resolve))
        stopped.resolve({ aborted: signal.aborted })
        return 'too late'
      }),
      server,
    )
    const caller = await Caller.start(server)
    caller.send('single', 'u', {}, { kind: 'slow' })
    await running.promise
    caller.cancel('single')
    expect(await stopped.promise).toEqual({ aborted: true })
    await caller.call('ping', 'u', {}, { kind: 'ping' })
    expect(caller.of('single')).toEqual([])
  })

  it('spreads requests over two instances in one queue group', async () => {
    const server = await startServer()
    const counts = [0, 0]
    const instance = (index: number) =>
      new Scripted(async (_user, _config, args) => {
        counts[index] = (counts[index] ?? 0) + 1
        return `instance ${index} got ${String(args.n)}`
      })
    await serve(instance(0), server)
    await serve(instance(1), server)
    // An instance in another group gets every request too (a group is one consumer).
    let elsewhere = 0
    await serve(
      new Scripted(async () => {
        elsewhere++
        return 'elsewhere'
      }),
      server,
      { queueGroup: 'another-group', responseQueue: 'test.elsewhere.response' },
    )
    const caller = await Caller.start(server)
    const elsewhereCaller = await Caller.start(server, 'test.elsewhere.response')
    const ids = Array.from({ length: 20 }, (_, n) => `req-${n}`)
    ids.forEach((id, n) => {
      caller.send(id, 'u', {}, { n })
    })
    for (const [n, id] of ids.entries()) {
      const [response] = await caller.finished(id)
      expect(response?.response).toMatch(new RegExp(`^instance [01] got ${n}$`))
      expect(await elsewhereCaller.finished(id)).toEqual([done('elsewhere')])
    }
    expect((counts[0] ?? 0) + (counts[1] ?? 0)).toBe(20)
    expect(counts[0]).toBeGreaterThan(0)
    expect(counts[1]).toBeGreaterThan(0)
    expect(elsewhere).toBe(20)
  })

  it('announces at start, on discover and every ttl/2', async () => {
    const server = await startServer()
    const listener = await connect({ servers: server.url })
    connections.push(listener)
    const heard: ServiceAnnouncement[] = []
    let wake: () => void = () => {}
    listener.subscribe(ANNOUNCE_SUBJECT, {
      callback: (_error, msg) => {
        heard.push(msg.json<ServiceAnnouncement>())
        wake()
      },
    })
    await listener.flush()
    const until = async (count: number) => {
      while (heard.length < count) await new Promise<void>((resolve) => (wake = resolve))
    }
    const expected: ServiceAnnouncement = { service: jokeDescriptor, tools: jokeTools, ttlSeconds: 30 }
    await serve(new JokeService(), server, {
      announce: { service: jokeDescriptor, tools: jokeTools, ttlSeconds: 30 },
    })
    await until(1)
    expect(heard).toEqual([expected])
    listener.publish(DISCOVER_SUBJECT, '')
    await until(2)
    expect(heard[1]).toEqual(expected)
    expect(
      heard.map((announcement) =>
        announcement.tools.map((tool) => [tool.name, (tool as Record<string, unknown>).style]),
      )[0],
    ).toEqual([
      ['tell-joke', 'pun'],
      ['tell-dad-joke', 'dad'],
    ])

    // A short ttl renews by itself.
    const quick = { ...jokeDescriptor, id: 'quick-jokes' }
    const quickTools = jokeTools.map((tool) => ({ ...tool, service: 'quick-jokes' }))
    await serve(new JokeService(), server, {
      announce: { service: quick, tools: quickTools, ttlSeconds: 0.2 },
    })
    const quickCount = () => heard.filter((announcement) => announcement.service.id === 'quick-jokes').length
    while (quickCount() < 3) await until(heard.length + 1)
    expect(heard.filter((announcement) => announcement.service.id === 'quick-jokes')[2]).toEqual({
      service: quick,
      tools: quickTools,
      ttlSeconds: 0.2,
    })
  })

  it('refuses to announce descriptors that do not match what it serves', async () => {
    const server = await startServer()
    const serveWith = (announce: ServeNatsOptions['announce']) =>
      new JokeService().serveNats({
        servers: server.url,
        requestQueue: REQUEST_QUEUE,
        responseQueue: RESPONSE_QUEUE,
        ...(announce ? { announce } : {}),
      })
    await expect(
      serveWith({ service: { ...jokeDescriptor, 'request-queue': 'elsewhere' }, tools: [], ttlSeconds: 30 }),
    ).rejects.toThrow(/request-queue elsewhere/)
    await expect(
      serveWith({ service: jokeDescriptor, tools: [{ ...tellJokeTool, service: 'other' }], ttlSeconds: 30 }),
    ).rejects.toThrow(/names service other/)
    await expect(
      serveWith({
        service: jokeDescriptor,
        tools: [{ ...tellJokeTool, name: 'bad name!' }],
        ttlSeconds: 30,
      }),
    ).rejects.toThrow(/not a tool descriptor/)
    await expect(serveWith({ service: jokeDescriptor, tools: jokeTools, ttlSeconds: 0 })).rejects.toThrow(
      /ttlSeconds/,
    )
  })

  it('on close, answers a call still in flight with unavailable', async () => {
    const server = await startServer()
    const running = deferred()
    const aborted = deferred<boolean>()
    const handle = await serve(
      new Scripted(async (_user, _config, _args, { signal }) => {
        running.resolve()
        await new Promise((resolve) => signal.addEventListener('abort', resolve))
        aborted.resolve(signal.aborted)
        return 'never sent'
      }),
      server,
    )
    const caller = await Caller.start(server)
    caller.send('hung', 'u', {}, {})
    await running.promise
    await handle.close({ graceMs: 0 })
    expect(await aborted.promise).toBe(true)
    expect(await caller.finished('hung')).toEqual([
      failed('unavailable', 'The tool service stopped before it finished this call'),
    ])
    expect(handle.connection.isClosed()).toBe(true)
    await handle.close()
  })

  it('serves again after the broker restarts (its subscriptions survive the reconnect)', async () => {
    const server = await startServer()
    const fast = { reconnectTimeWait: 50, reconnectJitter: 0 }
    await serve(new JokeService(), server, {
      connectionOptions: fast,
      announce: { service: jokeDescriptor, tools: jokeTools, ttlSeconds: 30 },
    })
    const caller = await Caller.start(server)
    expect(await caller.call('before', 'alice', { style: 'pun' }, { topic: 'food' })).toHaveLength(1)
    await server.stop()
    await server.start()
    // Core NATS is at-most-once: until both ends are back, a message can be lost, so ask again
    // (discover) until the service is heard announcing, then call it.
    const listener = await connect({ servers: server.url })
    connections.push(listener)
    let announced = false
    listener.subscribe(ANNOUNCE_SUBJECT, {
      callback: () => {
        announced = true
      },
    })
    await listener.flush()
    while (!announced) {
      listener.publish(DISCOVER_SUBJECT, '')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    // The bare caller reconnects by itself (2 s apart by default); its subscription survives.
    while (!(await isConnected(caller.connection))) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await caller.call('after', 'bob', { style: 'dad' }, { topic: 'food' })).toEqual([
      done(tellJoke('bob', 'dad', 'food')),
    ])
  })

  it('closes even while the broker is down', async () => {
    const server = await startServer()
    const handle = await serve(new JokeService(), server, { connectionOptions: { reconnectTimeWait: 50 } })
    await server.stop()
    await handle.close({ graceMs: 0 })
    expect(handle.connection.isClosed()).toBe(true)
  })

  it('keeps CR and LF out of header values', () => {
    expect(sanitizeHeaderValue('a\r\nb\nc\rd')).toBe('a b c d')
    expect(sanitizeHeaderValue('7f2f-uuid')).toBe('7f2f-uuid')
  })
})

/** The joke service's own process, started as its stdio descriptor says, from the repo root. */
function startStdioService() {
  const descriptor = readJson<StdioServiceDescriptor>('joke-service-stdio.json')
  const [command = 'node', ...args] = descriptor.command
  const child: ChildProcess = spawn(command, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  let wake: () => void = () => {}
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    wake()
  })
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const rawLines = () => stdout.split('\n').slice(0, -1)
  const lines = () => rawLines().map((line) => JSON.parse(line) as StdioResponseLine)
  return {
    child,
    exited,
    rawLines,
    lines,
    stderr: () => stderr,
    of: (id: string) => lines().filter((line) => line.id === id),
    write: (value: unknown) =>
      child.stdin?.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`),
    request: (id: string, user: string, config: unknown, args: unknown) =>
      child.stdin?.write(
        `${JSON.stringify({ id, user, config: JSON.stringify(config), arguments: JSON.stringify(args) })}\n`,
      ),
    async until(predicate: () => boolean) {
      while (!predicate()) {
        if (child.exitCode !== null) throw new Error(`the service exited: ${stderr}`)
        await new Promise<void>((resolve) => {
          wake = resolve
        })
      }
    },
  }
}

type StdioService = ReturnType<typeof startStdioService>
const children: StdioService[] = []
afterEach(() => {
  for (const { child } of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
})

function stdioService(): StdioService {
  const service = startStdioService()
  children.push(service)
  return service
}

const line = (id: string, response: ServiceResponse): StdioResponseLine => ({ id, ...response })

describe('serveStdio (the joke service as a child process)', () => {
  it('answers NDJSON requests by id, streams, errors, refuses garbage, and exits when stdin ends', async () => {
    const service = stdioService()
    service.request('a', 'alice', { style: 'pun' }, { topic: 'animals' })
    service.write('this is not JSON')
    service.write('{"no":"id"}')
    service.write({ id: 'bad', user: 'x', config: 'nope', arguments: '{}' })
    service.request('s', 'bob', { style: 'dad' }, { topic: 'food', stream: true })
    service.request('m', 'carol', {}, { topic: 'missing' })
    await service.until(() =>
      ['a', 'bad', 's', 'm'].every((id) => service.of(id).some((l) => l.end_of_stream)),
    )
    expect(service.of('a')).toEqual([line('a', done(tellJoke('alice', 'pun', 'animals')))])
    expect(service.of('bad')).toEqual([line('bad', failed('bad-request', '`config` is not valid JSON'))])
    expect(service.of('s')).toEqual([
      ...jokeParts('bob', 'dad', 'food').map((part) =>
        line('s', { error: null, response: part, end_of_stream: false }),
      ),
      line('s', done('')),
    ])
    expect(service.of('m')).toEqual([line('m', failed('not-found', 'No joke about missing'))])
    service.child.stdin?.end()
    expect(await service.exited).toBe(0)
    // Only response lines on stdout; the complaints about garbage went to stderr.
    expect(service.lines()).toHaveLength(7)
    expect(service.stderr()).toContain('not JSON')
    expect(service.stderr()).toContain('without a string `id`')
  })

  it('stops a streamed call on a cancel line and sends nothing more for it', async () => {
    const service = stdioService()
    service.request('slow', 'alice', { style: 'pun' }, { topic: 'space', stream: true, pauseMs: 60_000 })
    await service.until(() => service.of('slow').length === 1)
    service.write({ id: 'slow', cancel: true })
    service.request('next', 'bob', { style: 'dad' }, { topic: 'space' })
    await service.until(() => service.of('next').length === 1)
    expect(service.of('next')).toEqual([line('next', done(tellJoke('bob', 'dad', 'space')))])
    // Cancelling an id that is not in flight is harmless.
    service.write({ id: 'unknown', cancel: true })
    service.child.stdin?.end()
    // The cancelled call's 60 s pause was aborted: the process ends at once rather than after it.
    expect(await service.exited).toBe(0)
    expect(service.of('slow')).toEqual([
      line('slow', { error: null, response: jokeParts('alice', 'pun', 'space')[0], end_of_stream: false }),
    ])
  })

  it('finishes the calls in flight when stdin ends, then exits', async () => {
    const service = stdioService()
    service.request('late', 'alice', {}, { topic: 'music', stream: true, pauseMs: 50 })
    service.child.stdin?.end()
    expect(await service.exited).toBe(0)
    expect(
      service
        .of('late')
        .map((l) => l.response)
        .join(''),
    ).toBe(tellJoke('alice', 'pun', 'music'))
    expect(service.of('late').at(-1)?.end_of_stream).toBe(true)
  })
})
