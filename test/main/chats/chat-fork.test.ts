import { describe, expect, it } from 'vitest'
import { useAgentFixture } from '../../support/agent-harness'
import { messageText } from '../../support/turn-events'

/** Fork from here (issue 32, item 2; the CLI's `atelier chats fork` comes with the chats issue). */
describe('ChatService', () => {
  const fixture = useAgentFixture()

  describe('fork', () => {
    it('makes a chat with copies of the turns through the one named, leaving the chat as it was', async () => {
      const { atelier, fake, chat, run } = await fixture()
      fake.enqueue(
        { toolCalls: [{ id: 'call_list', name: 'list_directory', arguments: '{"path":"."}' }] },
        { text: 'An empty folder.' },
        { text: 'Two.' },
      )
      const first = await run('What is here?')
      await run('second')

      const fork = atelier.chats.fork({ id: chat.id, turnId: first.turn.id })
      expect(fork).toMatchObject({
        title: `${atelier.chats.get(chat.id).title} (fork)`,
        workingDir: chat.workingDir,
        mode: 'agent',
        provider: chat.provider,
        approvalMode: 'full-auto',
      })
      const copied = atelier.agent.view({ id: fork.id })
      expect(copied.messages.map(messageText)).toEqual(['What is here?', '', 'An empty folder.'])
      expect(copied.calls.map((call) => [call.name, call.status])).toEqual([['list_directory', 'succeeded']])
      expect(atelier.agent.view({ id: chat.id }).messages.map(messageText)).toEqual([
        'What is here?',
        '',
        'An empty folder.',
        'second',
        'Two.',
      ])

      // The fork is a chat of its own: it goes on without touching the original.
      fake.enqueue({ text: 'Forked on.' })
      await atelier.agent.begin({ chatId: fork.id, prompt: 'and now?' }).done
      expect(atelier.agent.view({ id: fork.id }).turns).toHaveLength(2)
      expect(atelier.agent.view({ id: chat.id }).turns).toHaveLength(2)
    })

    it('copies the whole conversation when no turn is named', async () => {
      const { atelier, fake, chat, run } = await fixture()
      fake.enqueue({ text: 'One.' }, { text: 'Two.' })
      await run('first')
      await run('second')
      const fork = atelier.chats.fork({ id: chat.id })
      expect(atelier.agent.view({ id: fork.id }).messages.map(messageText)).toEqual([
        'first',
        'One.',
        'second',
        'Two.',
      ])
    })

    it('is refused with not_found for a turn of another chat, and turn_running for a running turn', async () => {
      const { atelier, fake, chat } = await fixture()
      const other = atelier.chats.create({})
      fake.enqueue({ text: 'Slowly.', chunkSize: 1, delayMs: 20 })
      const { turnId, done } = atelier.agent.begin({ chatId: chat.id, prompt: 'first' })
      expect(() => atelier.chats.fork({ id: other.id, turnId })).toThrow(
        expect.objectContaining({ code: 'not_found' }),
      )
      expect(() => atelier.chats.fork({ id: chat.id, turnId })).toThrow(
        expect.objectContaining({ code: 'turn_running' }),
      )
      await done
      expect(atelier.chats.list()).toHaveLength(2)
    })
  })
})
