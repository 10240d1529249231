/**
 * Slash commands through the contract, as the composer lists and sends them: a project's command
 * files only in a trusted folder, `$ARGUMENTS` and `$1…$9` filled from what follows `/name`, the
 * front matter's agent and model used for the turn, and `/init`'s AGENTS.md a write that asks.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { expandBody, parseCommandText } from '../../../src-main/commands/command-files'
import type { TurnEvent } from '../../../src-shared/agent'
import type { SlashCommand } from '../../../src-shared/commands'
import { useAgentFixture } from '../../support/agent-harness'
import { turnThroughContract } from '../../support/contract-turn'
import { toolResult } from '../../support/turn-events'

const FIX = `---
description: Fix an issue by its number
model: other-model
---
Fix issue #$ARGUMENTS. Start with the test named after issue $1.
`

function writeCommand(folder: string, name: string, text: string): void {
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, `${name}.md`), text)
}

/** The text of the last user message the fake received. */
function lastPrompt(body: { messages: { role: string; content: unknown }[] }): unknown {
  return body.messages.filter((message) => message.role === 'user').at(-1)?.content
}

describe('SlashCommandService', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()

  async function listed(atelier: Awaited<ReturnType<typeof fixture>>['atelier'], chatId: string) {
    const answer = await atelier.dispatch('commands.list', { chatId })
    if (!answer.ok) throw new Error(answer.error.message)
    return answer.value as SlashCommand[]
  }

  describe('list', () => {
    it('leaves a project’s commands out until the folder is trusted, and lists the person’s own', async () => {
      const { atelier, chat, project, home } = await fixture()
      writeCommand(join(project, '.atelier', 'commands'), 'fix', FIX)
      writeCommand(join(project, '.claude', 'commands'), 'review', 'Review the last change.')
      writeCommand(join(home, '.atelier', 'commands'), 'standup', 'Write my stand-up.')

      const untrusted = await listed(atelier, chat.id)
      expect(untrusted.map(({ name }) => name)).toEqual([
        'init',
        'compact',
        'undo',
        'clear',
        'plan',
        'standup',
      ])

      atelier.customTools.trust(project)
      const trusted = await listed(atelier, chat.id)
      expect(trusted.filter(({ source }) => source !== 'built-in')).toEqual([
        {
          name: 'fix',
          description: 'Fix an issue by its number',
          source: 'project',
          runs: 'prompt',
          takesArguments: true,
          file: join(project, '.atelier', 'commands', 'fix.md'),
        },
        expect.objectContaining({
          name: 'review',
          description: 'Review the last change.',
          source: 'project',
        }),
        expect.objectContaining({ name: 'standup', source: 'user', takesArguments: false }),
      ])
    })

    it('lets a project’s file win over the person’s of the same name, and no file shadow a built-in', async () => {
      const { atelier, chat, project, home } = await fixture()
      writeCommand(join(home, '.atelier', 'commands'), 'review', 'Mine.')
      writeCommand(join(home, '.atelier', 'commands'), 'clear', 'Not the built-in.')
      writeCommand(join(project, '.atelier', 'commands'), 'review', 'The project’s.')
      atelier.customTools.trust(project)

      const commands = await listed(atelier, chat.id)
      expect(commands.filter(({ name }) => name === 'review')).toEqual([
        expect.objectContaining({ description: 'The project’s.', source: 'project' }),
      ])
      expect(commands.filter(({ name }) => name === 'clear')).toEqual([
        expect.objectContaining({ source: 'built-in', runs: 'clear' }),
      ])
    })
  })

  describe('expand (through turns.start)', () => {
    it('sends a trusted project’s `/fix 42` with $ARGUMENTS and $1 filled, on the model its file names', async () => {
      const { atelier, fake, chat, project } = await fixture()
      writeCommand(join(project, '.atelier', 'commands'), 'fix', FIX)
      atelier.customTools.trust(project)
      fake.enqueue({ text: 'On it.' })

      const { turn } = await turnThroughContract(atelier, { chatId: chat.id, prompt: '/fix 42' })

      expect(turn?.status).toBe('completed')
      const [request] = fake.requestsOf('openai-chat')
      expect(lastPrompt(request?.body)).toBe('Fix issue #42. Start with the test named after issue 42.')
      expect(request?.body.model).toBe('other-model')
      // The chat keeps its own model: the file's is for that turn.
      expect(atelier.chats.get(chat.id).model).toBeNull()
    })

    it('runs the turn with the agent profile its file names, the chat keeping its own', async () => {
      const { atelier, fake, chat, home } = await fixture()
      atelier.profiles.create({ name: 'Reviewer', systemPrompt: 'You review changes and never edit.' })
      writeCommand(join(home, '.atelier', 'commands'), 'review', '---\nagent: Reviewer\n---\nReview $1.\n')
      fake.enqueue({ text: 'Looks fine.' })

      await turnThroughContract(atelier, { chatId: chat.id, prompt: '/review src/app.ts' })

      const [request] = fake.requestsOf('openai-chat')
      expect(request?.body.messages[0]).toMatchObject({
        role: 'system',
        content: expect.stringContaining('You review changes and never edit.'),
      })
      expect(lastPrompt(request?.body)).toBe('Review src/app.ts.')
      expect(atelier.chats.get(chat.id).agent).toBeNull()
    })

    it('keeps the chat’s approval mode when the command’s profile would run unasked', async () => {
      const { atelier, chat, fake, project, run } = await fixture()
      // The chat follows its profile's mode (Default: ask), as a new chat does.
      atelier.chats.configure({ id: chat.id, approvalMode: null })
      atelier.profiles.create({ name: 'Yolo', systemPrompt: 'Do it.', approvalMode: 'full-auto' })
      writeCommand(join(project, '.atelier', 'commands'), 'go', '---\nagent: Yolo\n---\nWrite it.\n')
      atelier.customTools.trust(project)
      const write = { name: 'write_file', arguments: JSON.stringify({ path: 'x.txt', content: 'x' }) }
      fake.enqueue({ toolCalls: [{ id: 'w', ...write }] }, { text: 'Done.' })
      const asked: string[] = []

      const { events } = await run('/go', {
        asker: {
          ask: async (question) => {
            asked.push(question.tool)
            return { decision: 'deny' }
          },
        },
      })

      expect(fake.requestsOf('openai-chat')[0]?.body.messages[0]?.content).toContain('Approvals (ask mode)')
      expect(asked).toEqual(['write_file'])
      expect(toolResult(events, 'w')).toMatchObject({ isError: true })
      expect(existsSync(join(project, 'x.txt'))).toBe(false)
    })

    it('expands a command typed into an edited prompt', async () => {
      const { atelier, fake, chat, project } = await fixture()
      writeCommand(join(project, '.atelier', 'commands'), 'fix', FIX)
      atelier.customTools.trust(project)
      fake.enqueue({ text: 'First.' }, { text: 'Second.' })
      const { turn } = await turnThroughContract(atelier, { chatId: chat.id, prompt: 'hello' })

      const { done } = atelier.agent.resend({
        chatId: chat.id,
        turnId: turn?.id ?? '',
        prompt: '/fix 43',
        kept: 'earlier version',
      })
      await done

      expect(lastPrompt(fake.requestsOf('openai-chat')[1]?.body)).toBe(
        'Fix issue #43. Start with the test named after issue 43.',
      )
    })

    it('sends `/fix 42` as typed in a folder that is not trusted', async () => {
      const { atelier, fake, chat, project } = await fixture()
      writeCommand(join(project, '.atelier', 'commands'), 'fix', FIX)
      fake.enqueue({ text: 'Which fix?' })

      await turnThroughContract(atelier, { chatId: chat.id, prompt: '/fix 42' })

      expect(lastPrompt(fake.requestsOf('openai-chat')[0]?.body)).toBe('/fix 42')
    })

    it('refuses a built-in the app does itself, with nothing written', async () => {
      const { atelier, fake, chat } = await fixture()
      const started = await atelier.dispatch('turns.start', { chatId: chat.id, prompt: '/compact' })

      expect(started).toMatchObject({ ok: false, error: { code: 'unsupported' } })
      expect(fake.requestsOf('openai-chat')).toHaveLength(0)
      expect(atelier.agent.conversation({ id: chat.id }).turns).toEqual([])
    })

    it('makes `/init` a turn whose AGENTS.md write waits for approval in ask mode', async () => {
      const { atelier, fake, chat, project } = await fixture()
      atelier.chats.configure({ id: chat.id, approvalMode: 'ask' })
      fake.enqueue(
        {
          toolCalls: [
            {
              id: 'call_agents',
              name: 'write_file',
              arguments: JSON.stringify({ path: 'AGENTS.md', content: '# Agents\n' }),
            },
          ],
        },
        { text: 'Written.' },
      )
      const events: TurnEvent[] = []
      const waiting = new Promise<void>((resolve) => {
        const { done } = atelier.agent.begin({
          chatId: chat.id,
          prompt: '/init',
          onEvent: (event) => {
            events.push(event)
            if (event.type === 'tool_call' && event.call.status === 'awaiting_approval') resolve()
          },
        })
        void done
      })
      await waiting

      const prompt = String(lastPrompt(fake.requestsOf('openai-chat')[0]?.body))
      expect(prompt).toContain('Write an AGENTS.md for this project')
      expect(prompt).toContain('write_file')
      const [call] = atelier.agent.view({ id: chat.id }).calls
      expect(call).toMatchObject({ name: 'write_file', status: 'awaiting_approval' })
      expect(call?.question).toMatchObject({ kind: 'approval', tool: 'write_file' })
      expect(existsSync(join(project, 'AGENTS.md'))).toBe(false)
      atelier.agent.stop({ chatId: chat.id })
    })
  })
})

describe('parseCommandText', () => {
  it('reads the three keys of the front matter, quoted or not, and leaves the rest to the body', () => {
    expect(
      parseCommandText(
        '---\ndescription: "Review: carefully"\nagent: Reviewer\nargument-hint: x\n---\nBody $1\n',
      ),
    ).toEqual({ description: 'Review: carefully', agent: 'Reviewer', body: 'Body $1' })
  })

  it('takes a file without front matter as all body', () => {
    expect(parseCommandText('Just do it.\n')).toEqual({ body: 'Just do it.' })
  })
})

describe('expandBody', () => {
  it('leaves a missing word empty, and adds arguments after a body that uses none', () => {
    expect(expandBody('Compare $1 with $2.', 'a')).toBe('Compare a with .')
    expect(expandBody('Review the change.', 'carefully')).toBe('Review the change.\n\ncarefully')
    expect(expandBody('Review the change.', '')).toBe('Review the change.')
  })
})
