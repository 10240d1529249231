/**
 * The agent loop against the bare SDK: the same scripted responses from the same local fake, once
 * through a whole turn (projection, streaming, executor, SQLite commits, events) and once as plain
 * `openai` SDK streaming calls. Also N parallel 100 ms tools in one response against one 100 ms wait.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { Type } from '@sinclair/typebox'
import OpenAI from 'openai'
import type { Atelier } from '../src-main/app/create-atelier'
import { ToolRegistry } from '../src-main/tools/registry'
import type { RegisteredTool } from '../src-main/tools/types'
import type { TurnEvent } from '../src-shared/agent'
import { FAKE_ENV } from '../test/support/agent-harness'
import { type ScriptedResponse, startFakeProvider } from '../test/support/fake-provider'
import { type Benchmark, benchTool, measure, sized, withBenchAtelier, within } from './measure'

const ROUND_TRIPS = sized(10, 2)
const TURNS = 15
const PARALLEL_TURNS = 5
const PARALLEL = 8
const NAP_MS = 100
/** Long past any turn here: one still running is stuck (waiting for a person, say), and the bench throws. */
const TURN_BOUND_MS = 60_000

/**
 * The benchmark's tools only read (an echo, a nap), so they say so: reads run without asking in the
 * default approval mode, and a scheduler that runs reads in parallel but one edit or command at a
 * time must see them as reads for the parallel row to measure parallelism at all.
 */
function tool(name: string, execute: (args: { text: string }) => Promise<unknown>): RegisteredTool {
  return benchTool({
    name,
    description: `${name} for the benchmark.`,
    parameters: Type.Object({ text: Type.String() }, { additionalProperties: false }),
    kind: 'read',
    execute,
  })
}

const call = (name: string, i: number) => ({ name, arguments: JSON.stringify({ text: `call ${i}` }) })

/**
 * Runs turns, each in a fresh chat made beforehand: the timing holds the turn only. A turn that
 * outlives TURN_BOUND_MS throws, naming its last event; closing Atelier then stops it.
 */
function turnRunner(atelier: Atelier, provider: string, turns: number) {
  const chats = Array.from({ length: turns }, () =>
    atelier.chats.configure({ id: atelier.chats.create({}).id, provider }),
  )
  return async (prompt: string) => {
    const chat = chats.pop()
    if (!chat) throw new Error('out of chats')
    let last: TurnEvent | undefined
    const { done } = atelier.agent.begin({ chatId: chat.id, prompt, onEvent: (event) => (last = event) })
    const turn = await within(
      TURN_BOUND_MS,
      done,
      () => `The turn "${prompt}" (its last event: ${JSON.stringify(last)?.slice(0, 300) ?? 'none'})`,
    )
    if (turn.status !== 'completed') throw new Error(`turn ${turn.status}: ${turn.error}`)
  }
}

const benchmark: Benchmark = async () => {
  const fake = await startFakeProvider()
  const registry = new ToolRegistry()
  registry.register(tool('echo', async (args) => args.text))
  registry.register(tool('nap', () => sleep(NAP_MS, 'rested')))
  const baseURL = fake.baseUrlFor('openai-chat')
  const sdk = new OpenAI({ apiKey: 'test-key', baseURL, maxRetries: 0 })
  const bareCall = async () => {
    const stream = await sdk.chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: 'go' }],
      stream: true,
    })
    for await (const _chunk of stream) {
    }
  }
  const roundTrips: ScriptedResponse[] = [
    ...Array.from({ length: ROUND_TRIPS }, (_, i) => ({ toolCalls: [call('echo', i)] })),
    { text: 'Done.' },
  ]
  try {
    return await withBenchAtelier(
      async (atelier) => {
        const provider = atelier.providers.create({
          kind: 'openai-chat',
          name: 'Fake',
          baseUrl: baseURL,
          defaultModel: 'fake-model',
        }).id
        // Each measure runs one more turn than its rounds: the warm-up.
        const runTurn = turnRunner(atelier, provider, TURNS + 1 + PARALLEL_TURNS + 1)
        const loop = await measure(1, TURNS, async () => {
          fake.enqueue(...roundTrips)
          await runTurn('echo ten times')
        })
        const bare = await measure(1, TURNS, async () => {
          fake.enqueue(...roundTrips)
          for (let i = 0; i < roundTrips.length; i++) await bareCall()
        })
        const parallel = await measure(1, PARALLEL_TURNS, async () => {
          fake.enqueue(
            { toolCalls: Array.from({ length: PARALLEL }, (_, i) => call('nap', i)) },
            { text: 'Rested.' },
          )
          await runTurn('nap')
        })
        const oneNap = await measure(1, PARALLEL_TURNS, async () => {
          fake.enqueue({ toolCalls: [call('nap', 0)] }, { text: 'Rested.' })
          await bareCall()
          await sleep(NAP_MS)
          await bareCall()
        })
        return [
          {
            name: 'tool round trip',
            ours: { label: 'agent loop (per response)', msPerOp: loop / roundTrips.length },
            reference: { label: 'bare openai SDK stream', msPerOp: bare / roundTrips.length },
            target: 'target ≤ 3000',
          },
          {
            name: `${PARALLEL} parallel ${NAP_MS} ms tools`,
            ours: { label: 'agent loop (whole turn)', msPerOp: parallel },
            reference: { label: 'one nap + 2 SDK calls', msPerOp: oneNap },
            note: `one after another would take ≥ ${PARALLEL * NAP_MS} ms`,
          },
        ]
      },
      { registry, env: FAKE_ENV },
    )
  } finally {
    await fake.close()
  }
}

export default benchmark
