import { describe, expect, it } from 'vitest'
import { useAgentFixture } from '../../support/agent-harness'

type Sent = { role: string; content?: unknown; tool_calls?: unknown[] }[]

/** Retry (issue 19, item 2): a failed turn runs again from its stored prompt, which is never written twice. */
describe('retrying a failed turn', () => {
  const fixture = useAgentFixture()

  it('runs the same turn again: the prompt is stored and sent once', async () => {
    const { atelier, fake, chat, run } = await fixture()
    fake.enqueue({ status: 401 })
    const failed = await run('Summarise the README')
    expect(failed.turn.status).toBe('failed')

    fake.enqueue({ text: 'It explains how to start.' })
    const { turnId, done } = atelier.agent.retry({ chatId: chat.id })
    expect(turnId).toBe(failed.turn.id)
    const turn = await done
    expect(turn).toMatchObject({ id: failed.turn.id, status: 'completed', error: null })

    const { messages, turns } = atelier.agent.conversation({ id: chat.id })
    expect(turns).toHaveLength(1)
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant'])
    const sent = fake.requestsOf('openai-chat').at(-1)?.body.messages as Sent
    expect(sent.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
      'Summarise the README',
    ])
  })

  it('goes on from what the failed turn got done: its tool calls are not run again', async () => {
    const { atelier, fake, chat, run } = await fixture()
    fake.enqueue(
      { toolCalls: [{ id: 'call_list', name: 'list_directory', arguments: '{"path":"."}' }] },
      { status: 401 },
    )
    expect((await run('What is here?')).turn.status).toBe('failed')

    fake.enqueue({ text: 'An empty folder.' })
    expect((await atelier.agent.retry({ chatId: chat.id }).done).status).toBe('completed')
    const { messages } = atelier.agent.conversation({ id: chat.id })
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    const sent = fake.requestsOf('openai-chat').at(-1)?.body.messages as Sent
    expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool'])
  })

  it('is refused when the latest turn did not fail, and while a turn runs', async () => {
    const { atelier, fake, chat, run } = await fixture()
    expect(() => atelier.agent.retry({ chatId: chat.id })).toThrow(
      expect.objectContaining({ code: 'nothing_to_retry' }),
    )
    fake.enqueue({ text: 'Fine.' })
    await run('Hello')
    expect(() => atelier.agent.retry({ chatId: chat.id })).toThrow(
      expect.objectContaining({ code: 'nothing_to_retry' }),
    )

    fake.enqueue({ status: 401 })
    await run('Again')
    fake.enqueue({ text: 'Slowly.', chunkSize: 1, delayMs: 20 })
    const { done } = atelier.agent.retry({ chatId: chat.id })
    expect(() => atelier.agent.retry({ chatId: chat.id })).toThrow(
      expect.objectContaining({ code: 'turn_running' }),
    )
    await done
  })
})
