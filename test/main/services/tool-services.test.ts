import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { connect, headers } from '@nats-io/transport-node'
import { afterEach, describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../src-main/app/create-atelier'
import { isStrictCompatible, toStrictSchema } from '../../../src-main/providers/tool-mapper'
import type { ToolCallScope } from '../../../src-main/tools/executor'
import type { StdioPool } from '../../../src-main/tools/services/stdio-pool'
import { useAgentFixture } from '../../support/agent-harness'
import { type FixtureProcess, isAlive, killHard, startFixture } from '../../support/fixture-process'
import { JOKE_SERVICE_MAIN, useJokeServices } from '../../support/joke-service'
import { useNatsServers } from '../../support/nats-server'
import { progressReports, toolResult, toolResults } from '../../support/turn-events'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const JOKES = JOKE_SERVICE_MAIN
const PID_SERVICE = join(ROOT, 'test', 'fixtures', 'services', 'pid-service.ts')
const FAKE_STDIO = join(ROOT, 'test', 'fixtures', 'services', 'fake-stdio-service.ts')

/** Calls made straight through the executor, as `atelier tool` makes them: no turn, no approvals. */
const scope: ToolCallScope = { user: LOCAL_USER, workingDirectory: null, mode: 'chat', restrict: false }

const JOKE_SERVICE = {
  id: 'joke-service',
  'request-queue': 'tool-services.joke.request',
  'response-queue': 'tool-services.joke.response',
  'config-params': [{ name: 'style', required: false }, { name: 'stream' }, { name: 'pauseMs' }],
}
const jokeTool = (name: string, config: Record<string, unknown>) => ({
  type: 'tool-service',
  name,
  description: `Tell a joke (${name})`,
  service: 'joke-service',
  ...config,
  arguments: [{ name: 'topic', type: 'string', description: 'The topic' }],
})

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('tool services', { timeout: 90_000 }, () => {
  const fixture = useAgentFixture()
  const nats = useNatsServers()
  const jokeService = useJokeServices()
  const children: ChildProcess[] = []
  afterEach(async () => {
    await Promise.all(children.splice(0).map(killHard))
  })

  function pidService(url: string, subject: string, ttl?: number): FixtureProcess {
    const service = startFixture(PID_SERVICE, [
      url,
      `${subject}.request`,
      `${subject}.response`,
      ...(ttl ? [String(ttl)] : []),
    ])
    children.push(service.child)
    return service
  }

  async function appWithBroker() {
    const server = await nats()
    const setup = await fixture()
    await setup.atelier.services.setBroker({ url: server.url, auth: { kind: 'none' } })
    return { server, ...setup }
  }

  it('runs the joke service through a real turn: user, config and arguments reach it, each tool with its own config', async () => {
    const { server, atelier, fake, run } = await appWithBroker()
    await jokeService(server.url)
    atelier.services.add([
      JOKE_SERVICE,
      jokeTool('tell-joke', { style: 'pun' }),
      jokeTool('tell-dad-joke', { style: 'dad' }),
    ])
    // What the service receives, seen from a second subscriber on its request subject.
    const spy = await connect({ servers: server.url })
    const seen: { id: string | undefined; body: unknown }[] = []
    spy.subscribe(JOKE_SERVICE['request-queue'], {
      callback: (_error, message) => {
        seen.push({ id: message.headers?.get('id'), body: message.json() })
      },
    })
    await spy.flush()

    fake.enqueue(
      {
        toolCalls: [
          { id: 'pun', name: 'tell-joke', arguments: '{"topic":"programming"}' },
          { id: 'dad', name: 'tell-dad-joke', arguments: '{"topic":"programming"}' },
        ],
      },
      { text: 'Two jokes.' },
    )
    const { turn, events } = await run('Tell me jokes')
    await spy.close()

    expect(turn.status).toBe('completed')
    const results = Object.fromEntries(toolResults(events).map((ended) => [ended.id, ended]))
    expect(results.pun).toMatchObject({
      isError: false,
      content: `Hey ${LOCAL_USER}! Here's a pun about programming for you:\n\nWhy do programmers prefer dark mode? Because light attracts bugs.`,
    })
    expect(results.dad?.content).toContain('Because he used up all his cache.')
    expect(seen.map(({ body }) => body)).toEqual(
      expect.arrayContaining([
        { user: LOCAL_USER, config: '{"style":"pun"}', arguments: '{"topic":"programming"}' },
        { user: LOCAL_USER, config: '{"style":"dad"}', arguments: '{"topic":"programming"}' },
      ]),
    )
    expect(seen.every(({ id }) => typeof id === 'string' && id.length > 0)).toBe(true)
    // The model read the observation, and was offered the tools with a schema made from `arguments`.
    const [first, second] = fake.requestsOf('openai-chat').map((request) => request.body)
    const offered = first.tools.find(
      (tool: { function: { name: string } }) => tool.function.name === 'tell-joke',
    )
    expect(offered.function.parameters).toMatchObject({
      type: 'object',
      properties: { topic: { type: 'string', description: 'The topic' } },
      required: ['topic'],
    })
    const observation = second.messages.find(
      (message: { tool_call_id?: string }) => message.tool_call_id === 'pun',
    )
    expect(observation.content).toContain('Because light attracts bugs.')
  })

  it('streams responses to the card as progress and gives the model their concatenation; passes the error convention on', async () => {
    const { server, atelier, fake, run } = await appWithBroker()
    await jokeService(server.url)
    atelier.services.add([
      JOKE_SERVICE,
      jokeTool('tell-joke-slowly', { style: 'pun', stream: true, pauseMs: 50 }),
      jokeTool('tell-joke', { style: 'pun' }),
    ])
    fake.enqueue(
      { toolCalls: [{ id: 'slow', name: 'tell-joke-slowly', arguments: '{"topic":"space"}' }] },
      { toolCalls: [{ id: 'missing', name: 'tell-joke', arguments: '{"topic":"missing"}' }] },
      { text: 'Done.' },
    )
    const { events } = await run('Stream one')

    const progress = progressReports(events, 'slow').flatMap(({ progress }) =>
      progress.kind === 'output' ? [progress.text] : [],
    )
    expect(progress.length).toBeGreaterThanOrEqual(2)
    const result = toolResult(events, 'slow')
    expect(result).toMatchObject({
      isError: false,
      content: `Hey ${LOCAL_USER}! Here's a pun about space for you:\n\nHow do you throw a party in space? You planet.`,
    })
    expect(progress.join('')).toBe((result as { content: string }).content.slice(0, progress.join('').length))
    const failed = toolResult(events, 'missing')
    expect(failed).toMatchObject({ isError: true, errorType: 'execution_failed' })
    expect((failed as { content: string }).content).toMatch(/\(not-found\): No joke about missing/)
  })

  it('times out a service that never answers and publishes the cancel; a stop ends a call as aborted', async () => {
    const { server, atelier } = await appWithBroker()
    atelier.services.add([
      { id: 'silent', 'request-queue': 'silent.request', 'response-queue': 'silent.response' },
      { type: 'tool-service', name: 'never', description: 'Never answers.', service: 'silent' },
    ])
    await atelier.services.prepare()
    atelier.tools.settings.update(LOCAL_USER, 'never', {
      parameters: { timeoutSeconds: 5, inactivitySeconds: 1 },
    })
    const watcher = await connect({ servers: server.url })
    const cancels: unknown[] = []
    watcher.subscribe('silent.request.cancel', {
      callback: (_error, message) => {
        cancels.push(message.json())
      },
    })
    await watcher.flush()

    const timedOut = await atelier.tools.executor.execute({ name: 'never', arguments: {} }, scope)
    expect(timedOut).toMatchObject({ isError: true, errorType: 'timeout' })
    await waitFor(() => cancels.length === 1, 'the cancel')
    expect(cancels[0]).toEqual({ id: expect.any(String) })

    const stop = new AbortController()
    const stopped = atelier.tools.executor.execute(
      { name: 'never', arguments: {} },
      { ...scope, signal: stop.signal },
    )
    setTimeout(() => stop.abort(new Error('Stopped by the user.')), 200)
    expect(await stopped).toMatchObject({ isError: true, errorType: 'aborted' })
    await waitFor(() => cancels.length === 2, 'the second cancel')
    await watcher.close()
  })

  it('ignores garbage on a response subject: the call still gets its answer, the broker keeps what it ignored', async () => {
    const { server, atelier } = await appWithBroker()
    await jokeService(server.url)
    atelier.services.add([JOKE_SERVICE, jokeTool('tell-joke', { style: 'pun', stream: true, pauseMs: 300 })])
    await atelier.services.prepare()
    const answer = atelier.tools.executor.execute({ name: 'tell-joke', arguments: { topic: 'music' } }, scope)
    const vandal = await connect({ servers: server.url })
    const subject = JOKE_SERVICE['response-queue']
    const withId = (id: string) => {
      const h = headers()
      h.set('id', id)
      return { headers: h }
    }
    vandal.publish(subject, 'not json at all')
    vandal.publish(
      subject,
      JSON.stringify({ error: null, response: 'forged', end_of_stream: true }),
      withId('no-such-call'),
    )
    vandal.publish(subject, JSON.stringify({ response: 'no error field', end_of_stream: true }), withId('x'))
    vandal.publish(subject, JSON.stringify({ error: null, response: 'no header', end_of_stream: true }))
    await vandal.flush()
    await vandal.close()

    expect(await answer).toMatchObject({ isError: false, content: expect.stringContaining('The trom-bone.') })
    await waitFor(() => atelier.services.brokerInfo().errors.length >= 3, 'the ignored messages to be kept')
  })

  it('spreads calls over a queue group; a killed instance loses only its own call, and the survivor serves the rest', async () => {
    const { server, atelier } = await appWithBroker()
    const first = pidService(server.url, 'pids')
    const second = pidService(server.url, 'pids')
    await Promise.all([first.ready, second.ready])
    atelier.services.add([
      { id: 'pids', 'request-queue': 'pids.request', 'response-queue': 'pids.response' },
      {
        type: 'tool-service',
        name: 'whoami',
        description: 'Which process served it.',
        service: 'pids',
        arguments: [{ name: 'ms', type: 'integer', description: 'Work time.' }],
      },
    ])
    await atelier.services.prepare()
    atelier.tools.settings.update(LOCAL_USER, 'whoami', { parameters: { inactivitySeconds: 3 } })
    const call = (ms: number) => atelier.tools.executor.execute({ name: 'whoami', arguments: { ms } }, scope)

    // Slow calls until each instance holds one.
    const inFlight: ReturnType<typeof call>[] = []
    const busy = () => first.lines().length > 0 && second.lines().length > 0
    for (let i = 0; i < 20 && !busy(); i++) {
      inFlight.push(call(1500))
      await waitFor(() => first.lines().length + second.lines().length > i, 'a request to arrive')
    }
    expect(busy()).toBe(true)
    const doomed = first.child.pid as number
    const survivor = second.child.pid as number
    await killHard(first.child)

    const results = await Promise.all(inFlight)
    const lost = results.filter((result) => result.isError)
    expect(lost.length).toBe(first.lines().length)
    for (const result of lost) expect(result.content).toMatch(/sent nothing for 3 s/)
    for (const result of results.filter((r) => !r.isError))
      expect(result.content).toBe(`served by ${survivor}`)
    expect(isAlive(doomed)).toBe(false)

    const later = await Promise.all([call(0), call(0), call(0)])
    expect(later.map((result) => result.content)).toEqual([1, 2, 3].map(() => `served by ${survivor}`))
  })

  it('works again after the broker restarts, without restarting Atelier', async () => {
    const { server, atelier } = await appWithBroker()
    const service = pidService(server.url, 'restart')
    await service.ready
    atelier.services.add([
      { id: 'restart', 'request-queue': 'restart.request', 'response-queue': 'restart.response' },
      {
        type: 'tool-service',
        name: 'whoami',
        description: 'Which process.',
        service: 'restart',
        arguments: [{ name: 'ms', type: 'integer', description: 'Work time.' }],
      },
    ])
    await atelier.services.prepare()
    // A request sent before the service has resubscribed is lost (NATS is at-most-once): fail it fast.
    atelier.tools.settings.update(LOCAL_USER, 'whoami', { parameters: { inactivitySeconds: 1 } })
    const call = () => atelier.tools.executor.execute({ name: 'whoami', arguments: { ms: 0 } }, scope)
    expect((await call()).content).toBe(`served by ${service.child.pid}`)

    await server.stop()
    await waitFor(() => atelier.services.brokerInfo().status !== 'connected', 'the broker to be seen gone')
    await server.start()
    await waitFor(() => atelier.services.brokerInfo().status === 'connected', 'the reconnect', 30_000)
    // The service reconnects on its own schedule: retry briefly until it is back too.
    let answer = await call()
    for (let i = 0; i < 50 && answer.isError; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      answer = await call()
    }
    expect(answer).toMatchObject({ isError: false, content: `served by ${service.child.pid}` })
  })

  it('shows a service announced after Atelier started, off until enabled, and drops it when its ttl lapses', async () => {
    const { server, atelier } = await appWithBroker()
    await atelier.services.prepare()
    expect(atelier.services.list()).toEqual([])
    const service = pidService(server.url, 'announced', 2)
    await service.ready
    const tool = 'whoami_announced_request'
    await waitFor(
      () => atelier.services.list().some((info) => info.origin === 'announced'),
      'the announcement',
    )
    expect(atelier.services.list()).toEqual([
      expect.objectContaining({
        id: 'pid-announced.request',
        origin: 'announced',
        enabled: false,
        tools: [expect.objectContaining({ name: tool })],
      }),
    ])
    expect(atelier.tools.registry.get(tool)).toBeUndefined()
    await atelier.services.setEnabled('pid-announced.request', true)
    expect(atelier.tools.settings.list(LOCAL_USER).tools.find((entry) => entry.name === tool)).toMatchObject({
      enabled: true,
      source: { kind: 'service', service: 'pid-announced.request' },
    })
    expect((await atelier.tools.executor.execute({ name: tool, arguments: { ms: 0 } }, scope)).content).toBe(
      `served by ${service.child.pid}`,
    )

    await killHard(service.child)
    await waitFor(() => atelier.services.list().length === 0, 'the ttl to lapse', 10_000)
    expect(atelier.tools.registry.get(tool)).toBeUndefined()
  })

  it('says which services a turn goes without when the broker is down', async () => {
    const { server, atelier, fake, run } = await appWithBroker()
    atelier.services.add([JOKE_SERVICE, jokeTool('tell-joke', { style: 'pun' })])
    await server.stop()
    await atelier.services.setBroker({ url: server.url, auth: { kind: 'none' } })
    fake.enqueue({ text: 'No jokes today.' })
    const { turn, events } = await run('Tell a joke')
    expect(turn.status).toBe('completed')
    expect(events.find((event) => event.type === 'servers_unavailable')).toMatchObject({
      servers: [{ name: 'joke-service', error: expect.stringContaining('not reachable') }],
    })
    const [request] = fake.requestsOf('openai-chat')
    expect(request?.body.tools.map((t: { function: { name: string } }) => t.function.name)).not.toContain(
      'tell-joke',
    )
  })

  it('serves the same joke service over stdio, restarts it when edited, and ends its process tree when disabled', async () => {
    const { atelier, fake, run } = await fixture()
    const stdioService = {
      id: 'joke-stdio',
      command: [process.execPath, '--import', 'tsx', JOKES, '--stdio'],
      cwd: ROOT,
      'config-params': [{ name: 'style' }],
    }
    atelier.services.add([
      stdioService,
      { ...jokeTool('tell-joke', { style: 'dad' }), service: 'joke-stdio' },
    ])
    const pidOf = () => (atelier.services as unknown as { stdio: StdioPool }).stdio.pid('joke-stdio')
    fake.enqueue(
      { toolCalls: [{ id: 'j', name: 'tell-joke', arguments: '{"topic":"animals"}' }] },
      { text: 'Done.' },
    )
    const { events } = await run('A joke over stdio')
    expect(toolResults(events)[0]).toMatchObject({
      isError: false,
      content: expect.stringContaining('A fsh.'),
    })
    const [info] = atelier.services.list()
    expect(info).toMatchObject({ id: 'joke-stdio', transport: 'stdio', running: true })
    const first = pidOf()
    expect(first).toEqual(expect.any(Number))

    // Edited (a new environment), it runs the new descriptor from the next call on.
    atelier.services.add({ ...stdioService, env: { JOKES_EDITED: '1' } })
    const again = await atelier.tools.executor.execute(
      { name: 'tell-joke', arguments: { topic: 'food' } },
      scope,
    )
    expect(again).toMatchObject({ isError: false, content: expect.stringContaining('felt crummy') })
    const pid = pidOf()
    expect(pid).not.toBe(first)
    await waitFor(() => !isAlive(first as number), 'the old process to end')

    await atelier.services.setEnabled('joke-stdio', false)
    expect(isAlive(pid as number)).toBe(false)
    expect(atelier.services.list()[0]).toMatchObject({ enabled: false, running: false })
    expect(atelier.tools.registry.get('tell-joke')).toBeUndefined()
  })

  it('lists per tool whether a turn offers it: the tool off while its service is on, and all off with the service', async () => {
    const { atelier } = await fixture()
    atelier.services.add([
      {
        id: 'joke-stdio',
        command: [process.execPath, '--import', 'tsx', JOKES, '--stdio'],
        cwd: ROOT,
        'config-params': [{ name: 'style' }],
      },
      { ...jokeTool('tell-joke', { style: 'pun' }), service: 'joke-stdio' },
      { ...jokeTool('tell-dad-joke', { style: 'dad' }), service: 'joke-stdio' },
    ])
    expect(atelier.services.list()[0]).toMatchObject({
      enabled: true,
      enabledTools: ['tell-joke', 'tell-dad-joke'],
    })
    atelier.tools.settings.update(LOCAL_USER, 'tell-dad-joke', { enabled: false })
    expect(atelier.services.list()[0]).toMatchObject({ enabled: true, enabledTools: ['tell-joke'] })
    await atelier.services.setEnabled('joke-stdio', false)
    expect(atelier.services.list()[0]).toMatchObject({ enabled: false, enabledTools: [] })
  })

  it('offers an optional argument (nullable under strict mode) and checks an argument against its schema', async () => {
    const { atelier } = await fixture()
    const filter = {
      type: 'object',
      properties: { lang: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['lang'],
      additionalProperties: false,
    }
    atelier.services.add([
      { id: 'echo', command: [process.execPath, '--import', 'tsx', FAKE_STDIO], cwd: ROOT },
      {
        type: 'tool-service',
        name: 'echo',
        description: 'Echoes the request.',
        service: 'echo',
        arguments: [
          { name: 'mode', type: 'string', description: 'What to do' },
          { name: 'count', type: 'integer', description: 'How many', required: false },
          { name: 'filter', type: 'object', description: 'Which ones', schema: filter },
          { name: 'extra', type: 'object', description: 'Anything', required: false },
        ],
      },
    ])
    const parameters = atelier.tools.registry.get('echo')?.tool.definition.parameters ?? {}
    expect(parameters).toMatchObject({
      required: ['mode', 'filter'],
      properties: { filter: { ...filter, description: 'Which ones' } },
    })
    // The seed's object argument without a schema takes any keys: strict mode cannot say so, and is not used.
    expect(isStrictCompatible(toStrictSchema(parameters))).toBe(false)
    const { extra: _extra, ...typed } = (parameters.properties ?? {}) as Record<string, unknown>
    const strict = toStrictSchema({ ...parameters, properties: typed, required: ['mode', 'filter'] })
    expect(isStrictCompatible(strict)).toBe(true)
    expect(strict.properties).toMatchObject({
      count: { type: ['integer', 'null'] },
      filter: { properties: { lang: { type: 'string' }, tags: { type: ['array', 'null'] } } },
    })

    const call = (args: Record<string, unknown>) =>
      atelier.tools.executor.execute({ name: 'echo', arguments: args }, scope)
    const answered = await call({ mode: 'echo', count: null, filter: { lang: 'en', tags: null } })
    expect(answered.isError).toBe(false)
    expect(JSON.parse(JSON.parse(answered.content).arguments)).toEqual({
      mode: 'echo',
      filter: { lang: 'en' },
    })
    expect(await call({ mode: 'echo', filter: { lang: 3 } })).toMatchObject({
      isError: true,
      errorType: 'validation_failed',
      content: expect.stringContaining('/filter/lang'),
    })
    expect(await call({ mode: 'echo', count: 2 })).toMatchObject({
      isError: true,
      errorType: 'validation_failed',
    })

    const add = (argument: Record<string, unknown>) => () =>
      atelier.services.add({
        type: 'tool-service',
        name: 'bad',
        description: 'Refused.',
        service: 'echo',
        arguments: [{ name: 'x', description: 'x', ...argument }],
      })
    expect(add({ type: 'string', schema: { minLength: 2 } })).toThrow(
      /only an object or array argument may have/,
    )
    expect(add({ type: 'array', schema: { type: 'object' } })).toThrow(
      /is of type "array", but its schema says "object"/,
    )
    expect(add({ type: 'object', schema: { properties: { a: { type: 'nope' } } } })).toThrow(
      /has a schema that is not valid JSON Schema/,
    )
  })

  it('takes an argument schema that names itself ($id) again and again, as a re-announced service sends it', async () => {
    const { atelier } = await fixture()
    const described = () => ({
      type: 'tool-service',
      name: 'echo',
      description: 'Echoes the request.',
      service: 'echo',
      arguments: [
        {
          name: 'filter',
          type: 'object',
          description: 'Which ones',
          schema: {
            $id: 'https://example.com/filter',
            type: 'object',
            properties: { lang: { type: 'string' } },
          },
        },
      ],
    })
    atelier.services.add([
      { id: 'echo', command: [process.execPath, '--import', 'tsx', FAKE_STDIO], cwd: ROOT },
      described(),
    ])
    atelier.services.add(described())
    const answered = await atelier.tools.executor.execute(
      { name: 'echo', arguments: { filter: { lang: 'en' } } },
      scope,
    )
    expect(answered.isError).toBe(false)
    expect(
      await atelier.tools.executor.execute({ name: 'echo', arguments: { filter: { lang: 3 } } }, scope),
    ).toMatchObject({ isError: true, errorType: 'validation_failed' })
  })

  it('ends the turn on an error of type fatal: the person reads it, the service keeps it, the model never sees it', async () => {
    const { atelier, fake, run } = await fixture()
    atelier.services.add([
      { id: 'licensed', command: [process.execPath, '--import', 'tsx', FAKE_STDIO], cwd: ROOT },
      {
        type: 'tool-service',
        name: 'licensed',
        description: 'Needs a licence.',
        service: 'licensed',
        arguments: [{ name: 'mode', type: 'string', description: 'What to do' }],
      },
    ])
    fake.enqueue(
      { toolCalls: [{ id: 'f', name: 'licensed', arguments: '{"mode":"fatal"}' }] },
      { text: 'Never asked.' },
    )
    const { events } = await run('Use the licence')

    expect(toolResult(events, 'f')).toMatchObject({ isError: true, errorType: 'fatal' })
    expect(JSON.stringify(toolResult(events, 'f'))).not.toContain('licence key')
    expect(events.find((event) => event.type === 'turn_error')).toMatchObject({
      code: 'fatal_tool_error',
      message: expect.stringContaining('The licence key expired'),
    })
    expect(JSON.stringify(fake.requestsOf('openai-chat').map((request) => request.body))).not.toContain(
      'licence key',
    )
    expect(atelier.services.list()[0]?.errors).toEqual([
      expect.stringContaining('reported a fatal error: The licence key expired'),
    ])
    // Kept in the database until the service is removed: one added again under its id starts clean.
    await atelier.services.remove('licensed')
    atelier.services.add({ id: 'licensed', command: [process.execPath, '--import', 'tsx', FAKE_STDIO] })
    expect(atelier.services.list()[0]?.errors).toEqual([])
  })

  it('refuses descriptors that do not fit, naming what is wrong', () => {
    return fixture().then(({ atelier }) => {
      const add = (json: unknown) => () => atelier.services.add(json)
      expect(add({ ...jokeTool('t', {}), service: 'nowhere' })).toThrow(
        /names the service "nowhere", which is not configured/,
      )
      atelier.services.add({ ...JOKE_SERVICE, 'config-params': [{ name: 'collection', required: true }] })
      expect(add(jokeTool('t', {}))).toThrow(
        /does not give "collection", which the service "joke-service" requires/,
      )
      expect(add(jokeTool('t', { collection: 'x', colour: 'red' }))).toThrow(
        /gives "colour", which the service "joke-service" does not take/,
      )
      expect(add({ id: 'x' })).toThrow(/Not a valid service descriptor/)
      expect(add(jokeTool('read_file', { collection: 'x' }))).toThrow(/"read_file" exists already/)
    })
  })
})
