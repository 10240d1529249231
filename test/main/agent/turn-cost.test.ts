/**
 * What a turn cost, against the fake provider on real SQLite: each response's usage carries its
 * cost at the price stated for its model, subagents' costs add up into their task's result and the
 * chat's, a model without a price shows its tokens only, and a copied response (a fork's, a
 * rewound chat's, an imported chat's) is shown but counted once.
 */
import { describe, expect, it } from 'vitest'
import type { TurnEvent } from '../../../src-shared/agent'
import type { Usage } from '../../../src-shared/usage'
import { useAgentFixture } from '../../support/agent-harness'
import { toolResult } from '../../support/turn-events'

const PRICE = { input: 2, cachedInput: 0.5, output: 8 }
/** At PRICE: 600 × $2 + 400 × $0.50 + 100 × $8 per million = $0.0022. */
const PRICED_USAGE = { inputTokens: 1000, cachedTokens: 400, outputTokens: 100 }
const PRICED_COST = 0.0022

function usageEvents(events: readonly TurnEvent[]): Usage[] {
  return events.flatMap((event) => (event.type === 'usage' ? [event.usage] : []))
}

describe('the cost of a turn', { timeout: 30_000 }, () => {
  const fixture = useAgentFixture()

  it('carries the exact cost of a response at its model’s price, in the usage event, the message and the chat', async () => {
    const agent = await fixture()
    const provider = agent.atelier.chats.get(agent.chat.id).provider ?? ''
    agent.atelier.prices.set({ providerId: provider, model: 'fake-model', price: PRICE })
    agent.fake.enqueue({ text: 'Hello.', usage: PRICED_USAGE })

    const { turn, events, messages } = await agent.run('Say hello')

    expect(turn.status).toBe('completed')
    const [usage] = usageEvents(events)
    expect(usage?.costUsd).toBeCloseTo(PRICED_COST, 12)
    expect(messages.at(-1)?.usage?.costUsd).toBeCloseTo(PRICED_COST, 12)
    const chat = agent.atelier.usage.chat(agent.chat.id)
    expect(chat).toMatchObject({ inputTokens: 1000, outputTokens: 100, cachedTokens: 400 })
    expect(chat.costUsd).toBeCloseTo(PRICED_COST, 12)
    expect(chat.unpricedResponses).toBeUndefined()
  })

  it('adds a subagent’s cost into its task’s result and into the chat’s total', async () => {
    const agent = await fixture()
    const provider = agent.atelier.chats.get(agent.chat.id).provider ?? ''
    agent.atelier.prices.set({ providerId: provider, model: 'fake-model', price: PRICE })
    const task = { description: 'look', prompt: 'CHILD: look around', agent: 'explore' }
    agent.fake.enqueue(
      {
        whenRequestHas: 'PARENT',
        toolCalls: [{ id: 'call_task', name: 'task', arguments: JSON.stringify(task) }],
        usage: PRICED_USAGE,
      },
      { whenRequestHas: 'CHILD', text: 'Nothing here.', usage: PRICED_USAGE },
      { whenRequestHas: 'PARENT', text: 'Done.', usage: PRICED_USAGE },
    )

    const { turn, events } = await agent.run('PARENT: delegate')

    expect(turn.status).toBe('completed')
    const display = toolResult(events, 'call_task')?.display
    expect(display?.kind === 'subagent' && display.usage.costUsd).toBeCloseTo(PRICED_COST, 12)
    const chat = agent.atelier.usage.chat(agent.chat.id)
    expect(chat).toMatchObject({ inputTokens: 3000, outputTokens: 300 })
    expect(chat.costUsd).toBeCloseTo(3 * PRICED_COST, 12)
    const report = agent.atelier.usage.report(1)
    expect(report.total.costUsd).toBeCloseTo(3 * PRICED_COST, 12)
    expect(report.chats).toMatchObject([{ chatId: agent.chat.id, inputTokens: 3000 }])
    expect(report.days).toHaveLength(1)
  })

  it('shows tokens only for a model without a price: no cost is made up', async () => {
    const agent = await fixture()
    agent.fake.enqueue({ text: 'Hello.', usage: PRICED_USAGE })

    const { events, messages } = await agent.run('Say hello')

    const [usage] = usageEvents(events)
    expect(usage).toEqual({ inputTokens: 1000, outputTokens: 100, cachedTokens: 400 })
    expect(messages.at(-1)?.usage).not.toHaveProperty('costUsd')
    expect(agent.atelier.usage.chat(agent.chat.id)).toEqual({
      inputTokens: 1000,
      outputTokens: 100,
      cachedTokens: 400,
      unpricedResponses: 1,
    })
  })

  it('counts a response once in Settings → Usage, however often its chat is forked, regenerated or imported', async () => {
    const agent = await fixture()
    const { atelier, chat } = agent
    const provider = atelier.chats.get(chat.id).provider ?? ''
    atelier.prices.set({ providerId: provider, model: 'fake-model', price: PRICE })
    agent.fake.enqueue(
      { text: 'One.', usage: PRICED_USAGE },
      { text: 'Two.', usage: PRICED_USAGE },
      { text: 'Two, again.', usage: PRICED_USAGE },
    )
    const first = await agent.run('first')
    const second = await agent.run('second')

    const fork = atelier.chats.fork({ id: chat.id, turnId: first.turn.id })
    const regenerated = atelier.agent.resend({
      chatId: chat.id,
      turnId: second.turn.id,
      kept: 'earlier answer',
    })
    expect((await regenerated.done).status).toBe('completed')
    const imported = await atelier.chatFiles.import({
      text: JSON.stringify(await atelier.chatFiles.exportJson(chat.id)),
    })

    // The provider reported three responses: the report counts those three, once.
    const report = atelier.usage.report(1)
    expect(report.total).toMatchObject({ inputTokens: 3000, outputTokens: 300, cachedTokens: 1200 })
    expect(report.total.costUsd).toBeCloseTo(3 * PRICED_COST, 12)
    expect(report.days).toMatchObject([{ inputTokens: 3000, outputTokens: 300 }])
    expect(report.chats.map(({ chatId, inputTokens }) => [chatId, inputTokens])).toEqual([
      [chat.id, 2000],
      [regenerated.fork.id, 1000],
    ])
    // A chat's own figure is its conversation as shown, copied history included.
    expect(atelier.usage.chat(fork.id)).toMatchObject({ inputTokens: 1000, outputTokens: 100 })
    expect(atelier.usage.chat(regenerated.fork.id)).toMatchObject({ inputTokens: 2000 })
    expect(atelier.usage.chat(imported.id)).toMatchObject({ inputTokens: 2000 })
    // An export is the conversation, not this app's bookkeeping: no copy's mark in it.
    const exported = await atelier.chatFiles.exportJson(imported.id)
    expect(JSON.stringify(exported)).not.toContain('copied')
  })
})
