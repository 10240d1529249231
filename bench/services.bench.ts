/**
 * Tool services (issue 15, "scale-out, measured"), against a real nats-server on loopback and
 * service processes of bench/fixtures/work-service.ts (the SDK's serveNats / serveStdio):
 * - a call round trip through the executor against a bare NATS client speaking the wire protocol
 *   by hand (envelope + `id` header on the request subject, the response with that id on the
 *   response subject, one subscription made once);
 * - a burst of concurrent 20 ms calls through Atelier, served by 3 instances in the default queue
 *   group against 1 instance (the speed-up is in the note);
 * - the stdio transport's round trip through the executor against NDJSON written and read by hand
 *   on a child of the same kind; the note has the same by hand to a child in a session of its own,
 *   as Atelier starts a service, and the NATS round trip through Atelier.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { connect, headers } from '@nats-io/transport-node'
import { LOCAL_USER } from '../src-main/app/create-atelier'
import type { ToolCallScope } from '../src-main/tools/executor'
import type { ServiceRequest, StdioResponseLine } from '../src-shared/tool-services'
import { parseServiceResponse } from '../src-shared/tool-services'
import { type FixtureProcess, killHard, startFixture } from '../test/support/fixture-process'
import { startNatsServer } from '../test/support/nats-server'
import { type Benchmark, median, paired, sized, withBenchAtelier } from './measure'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const WORK_SERVICE = fileURLToPath(new URL('./fixtures/work-service.ts', import.meta.url))

const CALLS = sized(500, 5)
const ROUNDS = 5
/** The burst of row 2: this many calls at once, each 20 ms of work. */
const BURST = sized(60, 6)
const WORK_MS = 20
const BURST_ROUNDS = sized(5, 1)

/** One burst: the time per call, and how many calls the busiest instance took, of how many instances. */
interface Burst {
  msPerCall: number
  busiest: number
  instances: number
}

const scope: ToolCallScope = { user: LOCAL_USER, workingDirectory: null, mode: 'chat', restrict: false }
const msArgument = [{ name: 'ms', type: 'integer', description: 'How long to work, in ms.' }]
const natsService = (id: string) => ({
  id,
  'request-queue': `bench.${id}.request`,
  'response-queue': `bench.${id}.response`,
})
const tool = (name: string, service: string) => ({
  type: 'tool-service',
  name,
  description: `Works for ms milliseconds (${service}).`,
  service,
  arguments: msArgument,
})

/** The envelope Atelier sends for `{ms}` to a tool without config values. */
const envelope = (ms: number): ServiceRequest => ({
  user: LOCAL_USER,
  config: '{}',
  arguments: JSON.stringify({ ms }),
})

/**
 * Calls before measuring, for each side: a service process (and the client side's code) runs its
 * first couple of thousand calls about 3× slower, until V8 has optimised it.
 */
const WARM_UP = sized(3_000, 0)

/** Ours and the reference, each warmed up by WARM_UP calls, then `paired` (CALLS a round, ROUNDS rounds). */
async function warmedPaired(ours: () => Promise<unknown>, reference: () => Promise<unknown>) {
  for (let i = 0; i < WARM_UP; i++) await ours()
  for (let i = 0; i < WARM_UP; i++) await reference()
  return paired(CALLS, ROUNDS, ours, reference)
}

const benchmark: Benchmark = async () => {
  const nats = await startNatsServer()
  const children: ChildProcess[] = []
  const natsInstance = async (id: string): Promise<FixtureProcess> => {
    const { 'request-queue': request, 'response-queue': response } = natsService(id)
    const instance = startFixture(WORK_SERVICE, ['--nats', nats.url, request, response])
    children.push(instance.child)
    await instance.ready
    return instance
  }
  const bare = await connect({ servers: nats.url, name: 'bench bare client' })
  try {
    // The services: one instance for the round trips and the 1-instance burst, three in one group.
    const [one] = await Promise.all([
      natsInstance('one'),
      natsInstance('three'),
      natsInstance('three'),
      natsInstance('three'),
    ])
    return await withBenchAtelier(async (atelier) => {
      await atelier.services.setBroker({ url: nats.url, auth: { kind: 'none' } })
      atelier.services.add([
        natsService('one'),
        natsService('three'),
        {
          id: 'stdio',
          command: [process.execPath, '--import', 'tsx', WORK_SERVICE, '--stdio'],
          cwd: ROOT,
        },
        tool('work_one', 'one'),
        tool('work_three', 'three'),
        tool('work_stdio', 'stdio'),
      ])
      const { unreachable } = await atelier.services.prepare()
      if (unreachable.length > 0) throw new Error(`Services unavailable: ${JSON.stringify(unreachable)}`)
      const call = async (name: string, ms: number) => {
        const result = await atelier.tools.executor.execute({ name, arguments: { ms } }, scope)
        if (result.isError) throw new Error(`${name} failed: ${result.content}`)
        return result.content
      }

      // ── 1. Round trip: the executor against a bare client doing the protocol by hand ──
      const { 'request-queue': requestSubject, 'response-queue': responseSubject } = natsService('one')
      const waiting = new Map<string, (text: string) => void>()
      bare.subscribe(responseSubject, {
        callback: (error, message) => {
          if (error) throw error
          const id = message.headers?.get('id') ?? ''
          const response = parseServiceResponse(message.string())
          if (!response) throw new Error(`Not a response: ${message.string()}`)
          if (response.error) throw new Error(`Service error: ${response.error.message}`)
          if (response.end_of_stream) waiting.get(id)?.(response.response)
        },
      })
      await bare.flush()
      const body = JSON.stringify(envelope(0))
      const bareCall = () =>
        new Promise<string>((resolve) => {
          const id = randomUUID()
          waiting.set(id, (text) => {
            waiting.delete(id)
            resolve(text)
          })
          const header = headers()
          header.set('id', id)
          bare.publish(requestSubject, body, { headers: header })
        })
      const servedBy = String(one.child.pid)
      if ((await call('work_one', 0)) !== servedBy || (await bareCall()) !== servedBy)
        throw new Error('The round-trip service did not answer its pid')
      const [natsOurs, natsBare] = await warmedPaired(() => call('work_one', 0), bareCall)

      // ── 2. A burst of 20 ms calls: 3 instances in the queue group against 1 ──
      const burst = async (name: string): Promise<Burst> => {
        const start = process.hrtime.bigint()
        const served = await Promise.all(Array.from({ length: BURST }, () => call(name, WORK_MS)))
        const ms = Number(process.hrtime.bigint() - start) / 1e6
        const spread = new Map<string, number>()
        for (const pid of served) spread.set(pid, (spread.get(pid) ?? 0) + 1)
        return { msPerCall: ms / BURST, busiest: Math.max(...spread.values()), instances: spread.size }
      }
      const bursts: { one: Burst; three: Burst }[] = []
      for (let round = sized(-1, 0); round < BURST_ROUNDS; round++) {
        const pair = { one: await burst('work_one'), three: await burst('work_three') }
        if (round >= 0) bursts.push(pair)
      }
      const oneInstance = median(bursts.map(({ one }) => one.msPerCall))
      const threeInstances = median(bursts.map(({ three }) => three.msPerCall))
      const busiest = bursts.map(({ three }) => three.busiest)
      const used = Math.min(...bursts.map(({ three }) => three.instances))

      // ── 3. stdio: the executor against NDJSON by hand on a child of the same kind ──
      const coldStart = performance.now()
      await call('work_stdio', 0)
      const stdioColdMs = performance.now() - coldStart

      /**
       * A child of the same kind driven by hand: NDJSON lines written and read. `detached` starts it
       * as Atelier starts a service, in a session (and process group) of its own.
       */
      const ndjsonChild = (detached: boolean) => {
        const child = spawn(process.execPath, ['--import', 'tsx', WORK_SERVICE, '--stdio'], {
          cwd: ROOT,
          stdio: ['pipe', 'pipe', 'inherit'],
          detached,
        })
        children.push(child)
        const lineWaiting = new Map<string, (text: string) => void>()
        let buffered = ''
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          buffered += chunk
          let end = buffered.indexOf('\n')
          while (end >= 0) {
            const line = JSON.parse(buffered.slice(0, end)) as StdioResponseLine
            buffered = buffered.slice(end + 1)
            if (line.error) throw new Error(`Service error: ${line.error.message}`)
            if (line.end_of_stream) lineWaiting.get(line.id)?.(line.response)
            end = buffered.indexOf('\n')
          }
        })
        const stdioRequest = envelope(0)
        return () =>
          new Promise<string>((resolve) => {
            const id = randomUUID()
            lineWaiting.set(id, (text) => {
              lineWaiting.delete(id)
              resolve(text)
            })
            child.stdin.write(`${JSON.stringify({ id, ...stdioRequest })}\n`)
          })
      }
      const lineCall = ndjsonChild(false)
      await lineCall()
      const [stdioOurs, stdioBare] = await warmedPaired(() => call('work_stdio', 0), lineCall)
      // The same by hand with the child in a session of its own, as Atelier keeps a service (so that
      // what it started can be ended with it): under Linux's autogroup scheduling each session is
      // scheduled as a group, and on a busy machine every line then waits for the other group's turn.
      const detachedCall = ndjsonChild(true)
      await detachedCall()
      const [stdioOursAgain, stdioDetached] = await warmedPaired(() => call('work_stdio', 0), detachedCall)

      return [
        {
          name: 'tool service call round trip (NATS)',
          ours: { label: 'executor → broker → service', msPerOp: natsOurs },
          reference: { label: 'bare NATS client, same envelope', msPerOp: natsBare },
          note: `${CALLS} sequential calls × ${ROUNDS} rounds, in turn with the reference, median; nats-server on loopback`,
        },
        {
          name: `burst of ${BURST} × ${WORK_MS} ms calls`,
          ours: { label: '3 instances, one queue group', msPerOp: threeInstances },
          reference: { label: '1 instance', msPerOp: oneInstance },
          note:
            `speed-up ${(oneInstance / threeInstances).toFixed(2)}× (ideal 3×); the group picks a member at ` +
            `random per message: the busiest of ${used} took ${busiest.join('/')} of ${BURST} per round, ` +
            `so ${(BURST / median(busiest)).toFixed(2)}× at most; each instance works one call at a time`,
        },
        {
          name: 'tool service call round trip (stdio)',
          ours: { label: 'executor → stdio child', msPerOp: stdioOurs },
          reference: { label: 'NDJSON by hand, same kind of child', msPerOp: stdioBare },
          note:
            `by hand to a child in a session of its own, as Atelier starts it: ${(stdioDetached * 1000).toFixed(1)} µs ` +
            `(ours ${(stdioOursAgain / stdioDetached).toFixed(2)}× of it, in turn with it); over NATS the executor took ${(natsOurs * 1000).toFixed(1)} µs ` +
            `(row 1); first call, spawning the service: ${stdioColdMs.toFixed(0)} ms`,
        },
      ]
    })
  } finally {
    await bare.close().catch(() => {})
    await Promise.all(children.map(killHard))
    await nats.stop()
  }
}

export default benchmark
