/**
 * The two tool-service transports against the real thing: NatsBroker with a real nats-server and
 * fake services written here on the bare NATS client; StdioService with a fake service process
 * (test/fixtures/services/fake-stdio-service.ts) speaking the NDJSON lines.
 */
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { connect, headers, type Msg, type NatsConnection } from '@nats-io/transport-node'
import { afterEach, describe, expect, it } from 'vitest'
import { NatsBroker } from '../../../src-main/tools/services/nats-broker'
import { StdioService } from '../../../src-main/tools/services/stdio-service'
import type { ServiceCall, ServiceTransport } from '../../../src-main/tools/services/transport'
import {
  ANNOUNCE_SUBJECT,
  cancelSubject,
  DEFAULT_QUEUE_GROUP,
  DISCOVER_SUBJECT,
  type NatsServiceDescriptor,
  type ServiceAnnouncement,
  type ServiceResponse,
} from '../../../src-shared/tool-services'
import { useNatsServers } from '../../support/nats-server'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const FAKE_STDIO = fileURLToPath(new URL('../../fixtures/services/fake-stdio-service.ts', import.meta.url))

const JOKES: NatsServiceDescriptor = {
  id: 'jokes',
  'request-queue': 'jokes.requests',
  'response-queue': 'jokes.responses',
  'config-params': [{ name: 'style', required: true }],
}

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {})
})

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A call with the seed's joke-service shape; `mode` tells the fake service what to do. */
function makeCall(args: Record<string, unknown>, overrides: Partial<ServiceCall> = {}) {
  const partials: string[] = []
  const call: ServiceCall = {
    id: randomUUID(),
    request: { user: 'ada', config: JSON.stringify({ style: 'pun' }), arguments: JSON.stringify(args) },
    signal: new AbortController().signal,
    inactivityMs: 10_000,
    onPartial: (text) => partials.push(text),
    ...overrides,
  }
  return { call, partials }
}

async function rawConnection(
  url: string,
  auth: { user?: string; pass?: string } = {},
): Promise<NatsConnection> {
  const nc = await connect({
    servers: url,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 50,
    reconnectJitter: 0,
    ...auth,
  })
  cleanups.push(() => nc.close())
  return nc
}

interface Received {
  id: string | undefined
  body: Record<string, unknown>
  /** The request's reply subject, when it had one. */
  reply?: string
}

/**
 * A service on the bare client: answers by the `mode` in the arguments, on the request's reply
 * subject when it has one and on the response queue when not, and records what it received
 * (requests with their id header, cancels, discovers).
 */
async function fakeService(url: string, auth: { user?: string; pass?: string } = {}, descriptor = JOKES) {
  const nc = await rawConnection(url, auth)
  const requests: Received[] = []
  const cancels: Record<string, unknown>[] = []
  let discovers = 0
  let reconnects = 0
  void (async () => {
    for await (const status of nc.status()) if (status.type === 'reconnect') reconnects++
  })()
  const replies = new Map<string, string>()
  const respond = (id: string, response: ServiceResponse | string, withId = true) => {
    const header = headers()
    if (withId) header.set('id', id)
    nc.publish(
      replies.get(id) ?? descriptor['response-queue'],
      typeof response === 'string' ? response : JSON.stringify(response),
      {
        headers: header,
      },
    )
  }
  const ok = (id: string, response: string, end_of_stream = true) =>
    respond(id, { error: null, response, end_of_stream })
  const handle = async (message: Msg) => {
    const id = message.headers?.get('id')
    const body = message.json<Record<string, unknown>>()
    requests.push({ id, body, ...(message.reply && { reply: message.reply }) })
    if (!id) return
    if (message.reply) replies.set(id, message.reply)
    const args = JSON.parse(String(body.arguments)) as { mode: string; delayMs?: number; text?: string }
    switch (args.mode) {
      case 'echo':
        await sleep(args.delayMs ?? 0)
        ok(id, JSON.stringify({ ...body, text: args.text }))
        break
      case 'stream':
        for (const part of ['one ', 'two ', 'three ']) ok(id, part, false)
        ok(id, 'four')
        break
      case 'slow-stream':
        for (const part of ['one ', 'two ', 'three ']) {
          ok(id, part, false)
          await sleep(args.delayMs ?? 0)
        }
        ok(id, 'four')
        break
      case 'error':
        respond(id, {
          error: { type: 'not-found', message: 'No joke about that.' },
          response: '',
          end_of_stream: true,
        })
        break
      case 'garbage':
        respond(id, { error: null, response: 'no header', end_of_stream: true }, false)
        respond(randomUUID(), { error: null, response: 'unknown id', end_of_stream: true })
        ok(id, 'the real answer')
        break
      case 'unusable':
        respond(id, String(args.text))
        break
      case 'seed-shapes':
        // As a service not built on the SDK may answer: no `error` key, then a `response` that is an object.
        respond(id, JSON.stringify({ response: 'first, ', end_of_stream: false }))
        respond(id, JSON.stringify({ error: null, response: { jokes: 2 }, end_of_stream: true }))
        break
      case 'hang':
        break
    }
  }
  nc.subscribe(descriptor['request-queue'], {
    queue: DEFAULT_QUEUE_GROUP,
    callback: (_error, message) => void handle(message),
  })
  nc.subscribe(cancelSubject(descriptor['request-queue']), {
    callback: (_error, message) => {
      cancels.push(message.json<Record<string, unknown>>())
    },
  })
  nc.subscribe(DISCOVER_SUBJECT, {
    callback: () => {
      discovers++
    },
  })
  await nc.flush()
  return {
    nc,
    requests,
    cancels,
    get discovers() {
      return discovers
    },
    get reconnects() {
      return reconnects
    },
  }
}

async function connectedBroker(
  url: string,
  extra: Partial<ConstructorParameters<typeof NatsBroker>[0]> = {},
) {
  const logs: string[] = []
  const statuses: string[] = []
  const announcements: ServiceAnnouncement[] = []
  const broker = new NatsBroker({
    servers: url,
    log: (message) => logs.push(message),
    onStatus: (status) => statuses.push(status),
    onAnnouncement: (announcement) => announcements.push(announcement),
    ...extra,
  })
  cleanups.push(() => broker.close())
  await broker.connect()
  return { broker, logs, statuses, announcements }
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  if (typeof address !== 'object' || address === null) throw new Error('no port')
  return address.port
}

describe('NatsBroker', () => {
  const startServer = useNatsServers()

  it('sends the request with the id header and the seed body, and resolves with the answer', async () => {
    const server = await startServer()
    const service = await fakeService(server.url)
    const { broker, statuses } = await connectedBroker(server.url)
    expect(broker.status).toBe('connected')
    expect(statuses).toEqual(['connecting', 'connected'])

    const { call } = makeCall({ mode: 'echo', text: 'a pun' })
    const answer = await broker.transportFor(JOKES).call(call)

    expect(JSON.parse(answer)).toEqual({
      user: 'ada',
      config: '{"style":"pun"}',
      arguments: '{"mode":"echo","text":"a pun"}',
      text: 'a pun',
    })
    expect(service.requests).toEqual([
      {
        id: call.id,
        body: { user: 'ada', config: '{"style":"pun"}', arguments: '{"mode":"echo","text":"a pun"}' },
      },
    ])
  })

  it('streams the responses before the last as partials and resolves with their concatenation', async () => {
    const server = await startServer()
    await fakeService(server.url)
    const { broker } = await connectedBroker(server.url)

    const { call, partials } = makeCall({ mode: 'stream' })
    await expect(broker.transportFor(JOKES).call(call)).resolves.toBe('one two three four')
    expect(partials).toEqual(['one ', 'two ', 'three '])
  })

  it('restarts the inactivity timer with every response', async () => {
    const server = await startServer()
    await fakeService(server.url)
    const { broker } = await connectedBroker(server.url)

    // Three gaps of 600 ms: longer in all than the 1.5 s of inactivity allowed, each one shorter.
    const { call, partials } = makeCall({ mode: 'slow-stream', delayMs: 600 }, { inactivityMs: 1500 })
    await expect(broker.transportFor(JOKES).call(call)).resolves.toBe('one two three four')
    expect(partials).toHaveLength(3)
  })

  it('turns an error response into execution_failed with its type and message', async () => {
    const server = await startServer()
    await fakeService(server.url)
    const { broker } = await connectedBroker(server.url)

    const { call } = makeCall({ mode: 'error' })
    await expect(broker.transportFor(JOKES).call(call)).rejects.toMatchObject({
      name: 'ToolError',
      code: 'execution_failed',
      message: 'The service jokes reported an error (not-found): No joke about that.',
    })
  })

  it('times out a silent service as `timeout` and publishes the cancel', async () => {
    const server = await startServer()
    const service = await fakeService(server.url)
    const { broker } = await connectedBroker(server.url)

    const { call } = makeCall({ mode: 'hang' }, { inactivityMs: 300 })
    await expect(broker.transportFor(JOKES).call(call)).rejects.toMatchObject({
      name: 'ToolError',
      code: 'timeout',
      message: expect.stringContaining('The service jokes sent nothing for 0.3 s'),
    })
    await waitFor(() => service.cancels.length > 0, 'the cancel')
    expect(service.cancels).toEqual([{ id: call.id }])
  })

  it('publishes the cancel and rejects with the reason when the signal aborts', async () => {
    const server = await startServer()
    const service = await fakeService(server.url)
    const { broker } = await connectedBroker(server.url)

    const controller = new AbortController()
    const { call } = makeCall({ mode: 'hang' }, { signal: controller.signal })
    const result = broker.transportFor(JOKES).call(call)
    await waitFor(() => service.requests.length === 1, 'the request')
    const reason = new Error('The person stopped the turn.')
    controller.abort(reason)

    await expect(result).rejects.toBe(reason)
    await waitFor(() => service.cancels.length > 0, 'the cancel')
    expect(service.cancels).toEqual([{ id: call.id }])
  })

  it('does not send a call whose signal has already aborted', async () => {
    const server = await startServer()
    const service = await fakeService(server.url)
    const { broker } = await connectedBroker(server.url)
    const transport = broker.transportFor(JOKES)

    const reason = new Error('stopped before it began')
    const { call } = makeCall({ mode: 'echo' }, { signal: AbortSignal.abort(reason) })
    await expect(transport.call(call)).rejects.toBe(reason)

    // A call after it is the first request the service sees.
    const { call: next } = makeCall({ mode: 'echo' })
    await transport.call(next)
    expect(service.requests.map(({ id }) => id)).toEqual([next.id])
    expect(service.cancels).toEqual([])
  })

  it('ignores and logs what belongs to no call on the response subject, and the real answer still lands', async () => {
    const server = await startServer()
    await fakeService(server.url)
    const { broker, logs } = await connectedBroker(server.url)

    const { call, partials } = makeCall({ mode: 'garbage' })
    await expect(broker.transportFor(JOKES).call(call)).resolves.toBe('the real answer')
    expect(partials).toEqual([])
    expect(logs.filter((line) => line.startsWith('Ignored a message on jokes.responses'))).toHaveLength(2)
    expect(logs.join('\n')).toContain('without an id header')
    expect(logs.join('\n')).toContain('for no call in flight')
  })

  it('takes a response without an `error` key as no error, and an object `response` as its JSON', async () => {
    const server = await startServer()
    await fakeService(server.url)
    const { broker, logs } = await connectedBroker(server.url)

    const { call, partials } = makeCall({ mode: 'seed-shapes' })
    await expect(broker.transportFor(JOKES).call(call)).resolves.toBe('first, {"jokes":2}')
    expect(partials).toEqual(['first, '])
    expect(logs).toEqual([])
  })

  it.each([
    ['this is not json', 'it is not JSON'],
    ['[1, 2, 3]', 'it is not a JSON object'],
    [JSON.stringify({ response: 'no end' }), '"end_of_stream" is not true or false'],
    [JSON.stringify({ error: 'wrong', response: 'x', end_of_stream: true }), '"error" is neither null'],
  ])(
    'ends the call at once, naming the problem, when its response is unusable: %s',
    async (text, problem) => {
      const server = await startServer()
      const service = await fakeService(server.url)
      const { broker, logs } = await connectedBroker(server.url)

      const started = Date.now()
      const { call } = makeCall({ mode: 'unusable', text }, { inactivityMs: 20_000 })
      const failure = await broker
        .transportFor(JOKES)
        .call(call)
        .catch((error: unknown) => error)
      expect(Date.now() - started).toBeLessThan(5000)
      expect(failure).toMatchObject({ code: 'execution_failed' })
      expect((failure as Error).message).toContain('The service jokes sent a response that cannot be used: ')
      expect((failure as Error).message).toContain(problem)
      expect(logs.join('\n')).toContain('is not a service response')
      await waitFor(() => service.cancels.length === 1, 'the cancel')
    },
  )

  it('hands each response to its own call when calls share a response subject', async () => {
    const server = await startServer()
    await fakeService(server.url)
    const { broker } = await connectedBroker(server.url)
    // Two tools (two transports) on one service: one subscription, answers matched by id.
    const first = broker.transportFor(JOKES)
    const second = broker.transportFor({ ...JOKES })

    const slow = makeCall({ mode: 'echo', text: 'slow', delayMs: 200 })
    const fast = makeCall({ mode: 'echo', text: 'fast' })
    const [slowAnswer, fastAnswer] = await Promise.all([first.call(slow.call), second.call(fast.call)])
    expect(JSON.parse(slowAnswer).text).toBe('slow')
    expect(JSON.parse(fastAnswer).text).toBe('fast')
  })

  it('gives each call to a reply-to inbox service an inbox of its own, and hears its answers there only', async () => {
    const server = await startServer()
    const privately: NatsServiceDescriptor = { ...JOKES, 'reply-to': 'inbox' }
    const service = await fakeService(server.url, {}, privately)
    const sniffer = await rawConnection(server.url)
    const overheard: string[] = []
    sniffer.subscribe(JOKES['response-queue'], {
      callback: (_error, message) => {
        overheard.push(message.string())
      },
    })
    await sniffer.flush()
    const { broker, logs } = await connectedBroker(server.url)
    const transport = broker.transportFor(privately)

    const streamed = makeCall({ mode: 'stream' })
    const echoed = makeCall({ mode: 'echo', text: 'in private' })
    const [stream, echo] = await Promise.all([transport.call(streamed.call), transport.call(echoed.call)])
    await sniffer.flush()

    expect(stream).toBe('one two three four')
    expect(streamed.partials).toEqual(['one ', 'two ', 'three '])
    expect(JSON.parse(echo).text).toBe('in private')
    const inboxes = service.requests.map((request) => request.reply)
    expect(inboxes).toEqual([expect.stringMatching(/^_INBOX\./), expect.stringMatching(/^_INBOX\./)])
    expect(new Set(inboxes).size).toBe(2)
    expect(overheard).toEqual([])
    expect(logs).toEqual([])
  })

  it('subscribes to announcements, sends a discover at connect, and passes on only well-formed ones', async () => {
    const server = await startServer()
    const announcer = await rawConnection(server.url)
    const announcement: ServiceAnnouncement = {
      service: JOKES,
      tools: [{ type: 'tool-service', name: 'joke', description: 'Tells a joke.', service: 'jokes' }],
      ttlSeconds: 30,
    }
    let discovers = 0
    announcer.subscribe(DISCOVER_SUBJECT, {
      callback: () => {
        discovers++
        announcer.publish(ANNOUNCE_SUBJECT, 'not json')
        announcer.publish(ANNOUNCE_SUBJECT, JSON.stringify({ service: 'jokes', tools: [], ttlSeconds: 30 }))
        announcer.publish(ANNOUNCE_SUBJECT, JSON.stringify({ service: JOKES, tools: [], ttlSeconds: '30' }))
        announcer.publish(
          ANNOUNCE_SUBJECT,
          JSON.stringify({ service: { ...JOKES, command: ['sh'] }, tools: [], ttlSeconds: 30 }),
        )
        announcer.publish(ANNOUNCE_SUBJECT, JSON.stringify(announcement))
      },
    })
    await announcer.flush()

    const { announcements, logs } = await connectedBroker(server.url)
    await waitFor(() => announcements.length > 0, 'the announcement')
    expect(discovers).toBe(1)
    expect(announcements).toEqual([announcement])
    await waitFor(
      () => logs.filter((line) => line.startsWith('Ignored an announcement')).length === 4,
      'the logs',
    )
    expect(logs).toContainEqual(expect.stringContaining('at /service/command: Unexpected property'))
  })

  it('fails calls in flight when the broker goes, refuses calls meanwhile, and works again after it is back', async () => {
    const server = await startServer()
    const service = await fakeService(server.url)
    const { broker, statuses } = await connectedBroker(server.url)
    const transport = broker.transportFor(JOKES)
    await transport.call(makeCall({ mode: 'echo' }).call)

    const inFlight = transport.call(makeCall({ mode: 'hang' }).call).catch((error: unknown) => error)
    await waitFor(() => service.requests.length === 2, 'the second request')
    await server.stop()

    expect(await inFlight).toMatchObject({
      name: 'ToolError',
      code: 'execution_failed',
      message: expect.stringContaining('The broker connection was lost during the call to the service jokes'),
    })
    expect(broker.status).toBe('reconnecting')
    await expect(transport.call(makeCall({ mode: 'echo' }).call)).rejects.toMatchObject({
      code: 'execution_failed',
      message: expect.stringContaining('not connected to the broker'),
    })

    await server.start()
    await waitFor(() => broker.status === 'connected' && service.reconnects === 1, 'both to reconnect')
    await service.nc.flush()

    const { call } = makeCall({ mode: 'echo', text: 'after the restart' })
    await expect(transport.call(call).then((answer) => JSON.parse(answer).text)).resolves.toBe(
      'after the restart',
    )
    expect(statuses).toEqual(['connecting', 'connected', 'reconnecting', 'connected'])
    // The discover went out again on the reconnect, so live services announce at once.
    await waitFor(() => service.discovers === 2, 'the discover after the reconnect')
  })

  it('rejects a first connect to a dead port readably, at once', async () => {
    const port = await freePort()
    const statuses: [string, string | undefined][] = []
    const broker = new NatsBroker({
      servers: `nats://127.0.0.1:${port}`,
      onStatus: (status, error) => statuses.push([status, error]),
    })
    cleanups.push(() => broker.close())

    await expect(broker.connect()).rejects.toThrow(
      `Could not connect to the NATS broker at nats://127.0.0.1:${port}:`,
    )
    expect(broker.status).toBe('failed')
    expect(statuses[0]).toEqual(['connecting', undefined])
    expect(statuses[1]?.[0]).toBe('failed')
    expect(statuses[1]?.[1]).toContain(`nats://127.0.0.1:${port}`)
  })

  it('authenticates with a token, and says why when the token is wrong', async () => {
    const server = await startServer(['--auth', 's3cret'])
    const { broker } = await connectedBroker(server.url, { token: 's3cret' })
    expect(broker.status).toBe('connected')

    const wrong = new NatsBroker({ servers: server.url, token: 'wrong' })
    cleanups.push(() => wrong.close())
    await expect(wrong.connect()).rejects.toThrow(
      /Could not connect to the NATS broker at .*: .*[Aa]uthorization/,
    )
  })

  it('authenticates with a user and password', async () => {
    const server = await startServer(['--user', 'ada', '--pass', 'lovelace'])
    await fakeService(server.url, { user: 'ada', pass: 'lovelace' })
    const { broker } = await connectedBroker(server.url, { user: 'ada', pass: 'lovelace' })
    const { call } = makeCall({ mode: 'stream' })
    await expect(broker.transportFor(JOKES).call(call)).resolves.toBe('one two three four')
  })

  it('fails calls in flight on close() and refuses calls after it', async () => {
    const server = await startServer()
    const service = await fakeService(server.url)
    const { broker } = await connectedBroker(server.url)
    const transport: ServiceTransport = broker.transportFor(JOKES)

    const inFlight = transport.call(makeCall({ mode: 'hang' }).call).catch((error: unknown) => error)
    await waitFor(() => service.requests.length === 1, 'the request')
    await broker.close()

    expect(await inFlight).toMatchObject({
      code: 'execution_failed',
      message: 'The broker connection was closed during the call to the service jokes.',
    })
    expect(broker.status).toBe('off')
    await expect(transport.call(makeCall({ mode: 'echo' }).call)).rejects.toMatchObject({
      code: 'execution_failed',
      message: expect.stringContaining('not connected to the broker'),
    })
  })
})

describe('StdioService', () => {
  function stdioService(extra: { env?: Record<string, string>; cwd?: string; command?: string[] } = {}) {
    const logs: string[] = []
    const service = new StdioService(
      {
        id: 'jokes',
        command: extra.command ?? [process.execPath, '--import', 'tsx', FAKE_STDIO],
        ...(extra.cwd && { cwd: extra.cwd }),
        ...(extra.env && { env: extra.env }),
      },
      { baseDir: ROOT, log: (message) => logs.push(message) },
    )
    cleanups.push(() => service.close())
    return { service, logs }
  }

  const alive = (pid: number) => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }

  it('is started by the first call and answers it with the request line it got', async () => {
    const { service } = stdioService()
    expect(service.running).toBe(false)
    expect(service.pid).toBeNull()

    const answer = await service.call(makeCall({ mode: 'echo' }).call)

    expect(JSON.parse(answer)).toEqual({
      user: 'ada',
      config: '{"style":"pun"}',
      arguments: '{"mode":"echo"}',
    })
    expect(service.running).toBe(true)
    expect(service.pid).toBeTypeOf('number')
    expect(service.stderr).toContain(`started ${service.pid}`)
  })

  it('streams partials, concatenates them, and keeps the error convention', async () => {
    const { service } = stdioService()
    const { call, partials } = makeCall({ mode: 'stream' })
    await expect(service.call(call)).resolves.toBe('one two three four')
    expect(partials).toEqual(['one ', 'two ', 'three '])

    await expect(service.call(makeCall({ mode: 'error' }).call)).rejects.toMatchObject({
      name: 'ToolError',
      code: 'execution_failed',
      message: 'The service jokes reported an error (not-found): No joke about that.',
    })
  })

  it('writes the cancel line when the signal aborts, and rejects with its reason', async () => {
    const { service } = stdioService()
    const controller = new AbortController()
    const { call } = makeCall({ mode: 'hang' }, { signal: controller.signal })
    const result = service.call(call)
    await waitFor(() => service.stderr.includes('started'), 'the process')
    const reason = new Error('stopped')
    controller.abort(reason)

    await expect(result).rejects.toBe(reason)
    await waitFor(() => service.stderr.includes(`cancelled ${call.id}`), 'the cancel line')
  })

  it('times out a silent call and writes the cancel line', async () => {
    const { service } = stdioService()
    await service.call(makeCall({ mode: 'pid' }).call)
    const { call } = makeCall({ mode: 'hang' }, { inactivityMs: 300 })

    await expect(service.call(call)).rejects.toMatchObject({ code: 'timeout' })
    await waitFor(() => service.stderr.includes(`cancelled ${call.id}`), 'the cancel line')
  })

  it('ignores and logs stdout lines that belong to no call', async () => {
    const { service, logs } = stdioService()
    await expect(service.call(makeCall({ mode: 'garbage' }).call)).resolves.toBe('the real answer')
    expect(logs).toHaveLength(4)
    expect(logs.join('\n')).toContain('not JSON')
    expect(logs.join('\n')).toContain('without an id')
    expect(logs.join('\n')).toContain('for no call in flight')
  })

  it('ends a call at once whose response line is unusable, and one whose error is of type fatal as fatal', async () => {
    const { service, logs } = stdioService()
    await expect(service.call(makeCall({ mode: 'unusable' }).call)).rejects.toMatchObject({
      code: 'execution_failed',
      message: 'The service jokes sent a response that cannot be used: "end_of_stream" is not true or false.',
    })
    await expect(service.call(makeCall({ mode: 'fatal' }).call)).rejects.toMatchObject({
      name: 'FatalToolError',
      code: 'fatal',
      message: 'The service jokes reported a fatal error: The licence key expired (key ends 4f2a).',
    })
    expect(logs.join('\n')).toContain('not a service response')
    expect(logs.join('\n')).toContain('reported a fatal error: The licence key expired')
  })

  it('fails the call when the process exits mid-call, and the next call starts it again', async () => {
    const { service } = stdioService()
    const firstPid = Number(await service.call(makeCall({ mode: 'pid' }).call))

    const { call, partials } = makeCall({ mode: 'exit' })
    const error = await service.call(call).catch((failure: unknown) => failure)
    expect(error).toMatchObject({
      name: 'ToolError',
      code: 'execution_failed',
      message: expect.stringContaining(
        'The service jokes failed: the service process exited (code 3) during the call.',
      ),
    })
    expect((error as Error).message).toContain('about to exit')
    expect(partials).toEqual(['partial before dying'])
    expect(service.running).toBe(false)

    const secondPid = Number(await service.call(makeCall({ mode: 'pid' }).call))
    expect(secondPid).not.toBe(firstPid)
    expect(service.pid).toBe(secondPid)
  })

  it('ends its whole process tree on close() and fails the calls in flight', async () => {
    const { service } = stdioService()
    const helperPid = Number(await service.call(makeCall({ mode: 'helper' }).call))
    const pid = service.pid ?? 0
    expect(alive(pid)).toBe(true)
    expect(alive(helperPid)).toBe(true)
    const inFlight = service.call(makeCall({ mode: 'hang' }).call).catch((error: unknown) => error)

    await service.close()

    expect(await inFlight).toMatchObject({
      code: 'execution_failed',
      message: 'The service jokes was stopped during the call.',
    })
    expect(service.running).toBe(false)
    await waitFor(() => !alive(pid) && !alive(helperPid), 'the process tree to end')
  })

  it('gives the process a minimal environment with the descriptor’s env over it, in its cwd', async () => {
    process.env.ATELIER_TRANSPORT_TEST_SECRET = 'do not pass me on'
    cleanups.push(async () => {
      delete process.env.ATELIER_TRANSPORT_TEST_SECRET
    })
    const { service } = stdioService({ env: { JOKE_STYLE: 'pun' }, cwd: 'test' })

    const { env, cwd } = JSON.parse(await service.call(makeCall({ mode: 'env' }).call)) as {
      env: Record<string, string>
      cwd: string
    }
    expect(env.JOKE_STYLE).toBe('pun')
    expect(env.PATH).toBe(process.env.PATH)
    expect(env.ATELIER_TRANSPORT_TEST_SECRET).toBeUndefined()
    expect(cwd).toBe(fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, ''))
  })

  it('fails readably when the command cannot be started', async () => {
    const { service } = stdioService({ command: ['/nonexistent/atelier-service'] })
    await expect(service.call(makeCall({ mode: 'echo' }).call)).rejects.toMatchObject({
      code: 'execution_failed',
      message: expect.stringMatching(
        /The service jokes failed: the service process could not be started \(.*ENOENT/,
      ),
    })
    expect(service.running).toBe(false)
  })
})
