import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useAgentFixture } from '../../support/agent-harness'
import { messageText } from '../../support/turn-events'

/** Fork from here (issue 32, item 2; issue 39, item 1). */
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

    it('at the 2nd of 3 prompts: the fork has 2 turns, its next request carries only those, the chat is as it was', async () => {
      const { atelier, fake, chat, run } = await fixture()
      fake.enqueue({ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' })
      await run('first')
      const second = await run('second')
      await run('third')
      const prompt = second.messages.find(
        (message) => message.role === 'user' && messageText(message) === 'second',
      )

      const fork = atelier.chats.fork({ id: chat.id, messageId: prompt?.id ?? '' })
      expect(fork.title).toBe('first (fork)')
      expect(fork.forkedFrom).toEqual({ chatId: chat.id, messageId: prompt?.id })
      expect(atelier.chats.forksOf(chat.id).map((each) => each.id)).toEqual([fork.id])
      expect(atelier.agent.view({ id: fork.id }).turns).toHaveLength(2)

      fake.enqueue({ text: 'Forked on.' })
      const before = fake.requests.length
      await atelier.agent.begin({ chatId: fork.id, prompt: 'fourth' }).done
      const sent = fake.requests.slice(before).map((request) => request.body.messages)
      expect(sent).toHaveLength(1)
      const said = sent[0]
        .filter((message: { role: string }) => message.role !== 'system')
        .map((message: { content: unknown }) => message.content)
      expect(said).toEqual(['first', 'One.', 'second', 'Two.', 'fourth'])
      expect(atelier.agent.view({ id: chat.id }).messages.map(messageText)).toEqual([
        'first',
        'One.',
        'second',
        'Two.',
        'third',
        'Three.',
      ])
    })

    it('at an answer copies through the end of its turn, and refuses a message the chat does not have', async () => {
      const { atelier, fake, chat, run } = await fixture()
      fake.enqueue({ text: 'One.' }, { text: 'Two.' })
      const first = await run('first')
      await run('second')
      const answer = first.messages.find((message) => messageText(message) === 'One.')
      const fork = atelier.chats.fork({ id: chat.id, messageId: answer?.id ?? '' })
      expect(atelier.agent.view({ id: fork.id }).messages.map(messageText)).toEqual(['first', 'One.'])
      expect(() => atelier.chats.fork({ id: chat.id, messageId: 'no-such-message' })).toThrow(
        expect.objectContaining({ code: 'not_found' }),
      )
    })

    it('with its files: the folder is set back to how it was when the forked turn ended', async () => {
      const { atelier, fake, chat, run, project } = await fixture()
      const write = (id: string, path: string, content: string) => ({
        toolCalls: [{ id, name: 'write_file', arguments: JSON.stringify({ path, content }) }],
      })
      fake.enqueue(write('w1', 'a.txt', 'one\n'), { text: 'Wrote a.' })
      fake.enqueue(write('w2', 'a.txt', 'two\n'), { text: 'Changed a.' })
      fake.enqueue(write('w3', 'b.txt', 'new\n'), { text: 'Wrote b.' })
      const first = await run('write a')
      await run('change a')
      await run('write b')

      const { chat: fork, restore } = await atelier.checkpoints.fork({
        id: chat.id,
        turnId: first.turn.id,
        restoreFiles: true,
      })
      expect(restore?.restored.sort()).toEqual(['a.txt', 'b.txt'])
      expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('one\n')
      expect(existsSync(join(project, 'b.txt'))).toBe(false)
      expect(atelier.agent.view({ id: fork.id }).turns).toHaveLength(1)
      // The chat forked from keeps its conversation; the restore is its own, undone from there.
      expect(atelier.agent.view({ id: chat.id }).turns).toHaveLength(3)
      await atelier.checkpoints.undo({ id: restore?.checkpointId ?? '' })
      expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('two\n')
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
