/**
 * A trivial `task` round trip against a direct turn, on the same local fake: the parent hands a
 * one-line question to the `explore` subagent, which answers at once, and the parent answers — three
 * model responses, a child chat and its turn — against one turn answering the same question itself
 * in one response. The ratio is what delegating costs beyond the model's own time.
 */
import type { Atelier } from '../src-main/app/create-atelier'
import { FAKE_ENV } from '../test/support/agent-harness'
import { type FakeProvider, startFakeProvider } from '../test/support/fake-provider'
import { type Benchmark, measure, sized, withBenchAtelier, within } from './measure'

const TURNS = sized(20, 1)
/** Long past any turn here: one still running is stuck, and the bench throws. */
const TURN_BOUND_MS = 60_000

/** Runs a turn in a fresh chat; throws unless it completed. */
async function turn(atelier: Atelier, provider: string, prompt: string): Promise<void> {
  const chat = atelier.chats.configure({ id: atelier.chats.create({}).id, provider })
  const { done } = atelier.agent.begin({ chatId: chat.id, prompt })
  const ended = await within(TURN_BOUND_MS, done, () => `The turn "${prompt}"`)
  if (ended.status !== 'completed') throw new Error(`turn ${ended.status}: ${ended.error}`)
}

function scriptTask(fake: FakeProvider): void {
  fake.enqueue(
    {
      whenRequestHas: 'PARENT',
      toolCalls: [
        {
          name: 'task',
          arguments: JSON.stringify({ description: 'Answer', prompt: 'CHILD: say yes', agent: 'explore' }),
        },
      ],
    },
    { whenRequestHas: 'CHILD', text: 'yes' },
    { whenRequestHas: 'PARENT', text: 'The subagent says yes.' },
  )
}

const benchmark: Benchmark = async () => {
  const fake = await startFakeProvider()
  try {
    return await withBenchAtelier(
      async (atelier) => {
        const provider = atelier.providers.create({
          kind: 'openai-chat',
          name: 'Fake',
          baseUrl: fake.baseUrlFor('openai-chat'),
          defaultModel: 'fake-model',
        }).id
        const delegated = await measure(1, TURNS, async () => {
          scriptTask(fake)
          await turn(atelier, provider, 'PARENT: ask a subagent')
        })
        const direct = await measure(1, TURNS, async () => {
          fake.enqueue({ text: 'yes' })
          await turn(atelier, provider, 'say yes')
        })
        return [
          {
            name: 'trivial task round trip',
            ours: { label: 'turn with one task (3 responses)', msPerOp: delegated },
            reference: { label: 'direct turn (1 response)', msPerOp: direct },
            note: 'the task adds two model responses, a child chat and its turn',
          },
        ]
      },
      { env: FAKE_ENV },
    )
  } finally {
    await fake.close()
  }
}

export default benchmark
