import { describe, expect, it } from 'vitest'
import { useAgentFixture } from '../../support/agent-harness'
import { messageText } from '../../support/turn-events'

type Sent = { role: string; content?: unknown }[]

/** Edit and resend, regenerate (issue 32, item 2): the chat branches, the replaced turns kept as a chat. */
describe('TurnService', () => {
  const fixture = useAgentFixture()

  describe('edit', () => {
    it('goes on from before the edited prompt with its new text, and keeps the old branch in a new chat', async () => {
      const { atelier, fake, chat, run } = await fixture()
      fake.enqueue({ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' })
      await run('first')
      const second = await run('second')
      await run('third')

      fake.enqueue({ text: 'Two, edited.' })
      const { turnId, fork, done } = atelier.agent.resend({
        chatId: chat.id,
        turnId: second.turn.id,
        prompt: 'second, better',
        kept: 'earlier version',
      })
      expect((await done).status).toBe('completed')

      const now = atelier.agent.view({ id: chat.id })
      expect(now.messages.map(messageText)).toEqual(['first', 'One.', 'second, better', 'Two, edited.'])
      expect(now.turns.at(-1)?.id).toBe(turnId)
      // The model saw the conversation from before the edited prompt, and the new text once.
      const sent = fake.requestsOf('openai-chat').at(-1)?.body.messages as Sent
      expect(sent.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
        'first',
        'second, better',
      ])

      const kept = atelier.chats.get(fork.id)
      expect(kept.title).toBe(`${atelier.chats.get(chat.id).title} (earlier version)`)
      expect(kept).toMatchObject({ workingDir: chat.workingDir, mode: 'agent', provider: chat.provider })
      expect(atelier.agent.view({ id: fork.id }).messages.map(messageText)).toEqual([
        'first',
        'One.',
        'second',
        'Two.',
        'third',
        'Three.',
      ])
    })

    it('sends again what the edited prompt attached', async () => {
      const { atelier, fake, chat } = await fixture()
      fake.enqueue({ text: 'Seen.' })
      const attached = {
        type: 'attachment' as const,
        attachment: { kind: 'file' as const, path: 'notes/a.md', name: 'a.md', text: 'Remember the note.' },
      }
      const first = await atelier.agent.begin({ chatId: chat.id, prompt: 'look', attached: [attached] }).done

      fake.enqueue({ text: 'Seen again.' })
      await atelier.agent.edit({ chatId: chat.id, turnId: first.id, prompt: 'look closer' })
      const [prompt] = atelier.agent.view({ id: chat.id }).messages
      expect(prompt?.parts).toEqual([attached, { type: 'text', text: 'look closer' }])
      await waitForIdle(atelier, chat.id)
    })

    it('does not tell the model again what Atelier noted with the edited prompt', async () => {
      const { atelier, fake, chat } = await fixture()
      fake.enqueue({ text: 'Noted.' })
      const notice = {
        type: 'attachment' as const,
        attachment: { kind: 'notice' as const, name: '1 files restored', text: 'a.txt was restored.' },
      }
      const first = await atelier.agent.begin({ chatId: chat.id, prompt: 'go on', attached: [notice] }).done
      fake.enqueue({ text: 'Again.' })
      await atelier.agent.edit({ chatId: chat.id, turnId: first.id, prompt: 'go on, differently' })
      const [prompt] = atelier.agent.view({ id: chat.id }).messages
      expect(prompt?.parts).toEqual([{ type: 'text', text: 'go on, differently' }])
      await waitForIdle(atelier, chat.id)
    })

    it('is refused with not_found for a prompt the chat does not have, and turn_running while a turn runs', async () => {
      const { atelier, fake, chat, run } = await fixture()
      fake.enqueue({ text: 'One.' })
      const first = await run('first')
      expect(() => atelier.agent.edit({ chatId: chat.id, turnId: 'nope', prompt: 'x' })).toThrow(
        expect.objectContaining({ code: 'not_found' }),
      )

      fake.enqueue({ text: 'Slowly.', chunkSize: 1, delayMs: 20 })
      const { done } = atelier.agent.begin({ chatId: chat.id, prompt: 'second' })
      expect(() => atelier.agent.edit({ chatId: chat.id, turnId: first.turn.id, prompt: 'x' })).toThrow(
        expect.objectContaining({ code: 'turn_running' }),
      )
      await done
      // Nothing was moved by the refusals.
      expect(atelier.agent.view({ id: chat.id }).turns).toHaveLength(2)
      expect(atelier.chats.list()).toHaveLength(1)
    })
  })

  describe('regenerate', () => {
    it('runs the last prompt again as it was, and keeps the earlier answer in a new chat', async () => {
      const { atelier, fake, chat, run } = await fixture()
      fake.enqueue({ text: 'One.' }, { text: 'A first answer.' })
      await run('first')
      const last = await run('second')

      fake.enqueue({ text: 'A better answer.' })
      const { fork } = atelier.agent.regenerate({ chatId: chat.id, turnId: last.turn.id })
      await waitForIdle(atelier, chat.id)

      expect(atelier.agent.view({ id: chat.id }).messages.map(messageText)).toEqual([
        'first',
        'One.',
        'second',
        'A better answer.',
      ])
      expect(fork.title).toBe(`${atelier.chats.get(chat.id).title} (earlier answer)`)
      expect(atelier.agent.view({ id: fork.id }).messages.map(messageText)).toEqual([
        'first',
        'One.',
        'second',
        'A first answer.',
      ])
    })
  })
})

/** Waits until the chat's latest turn has ended (a turn started through the contract's methods). */
async function waitForIdle(
  atelier: Awaited<ReturnType<ReturnType<typeof useAgentFixture>>>['atelier'],
  chatId: string,
) {
  await expect
    .poll(() => atelier.agent.view({ id: chatId }).turns.at(-1)?.status, { timeout: 10_000 })
    .not.toBe('running')
}
