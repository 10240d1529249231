import { readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import type { Asker } from '../../../../src-main/approvals/askers'
import type { RegisteredTool } from '../../../../src-main/tools/types'
import type { TurnEvent } from '../../../../src-shared/agent'
import type { ToolCallStatus } from '../../../../src-shared/tool-calls'
import { useAgentFixture } from '../../../support/agent-harness'
import { startFakeProvider } from '../../../support/fake-provider'
import { useTempDirs } from '../../../support/temp-dir'
import { plainTool } from '../../../support/test-tools'
import { statesOf, toolResult } from '../../../support/turn-events'
import { atelier as cli, fakeRunArgs } from '../../cli/built-cli'

/** A call's statuses as its events told them, each once in a row. */
function statuses(events: readonly TurnEvent[], id: string): ToolCallStatus[] {
  const seen: ToolCallStatus[] = []
  for (const { status } of statesOf(events, id)) if (seen.at(-1) !== status) seen.push(status)
  return seen
}

const Text = Type.Object({ text: Type.String() }, { additionalProperties: false })

/** A tool that takes `ms` to answer, ignoring its stop: only the executor's budget ends it early. */
function slowTool(name: string, ms: number, overrides: Partial<RegisteredTool> = {}): RegisteredTool {
  return {
    ...plainTool({
      name,
      description: `Answers after ${ms} ms.`,
      parameters: Text,
      kind: 'read',
      execute: async () => {
        await sleep(ms)
        return 'slept'
      },
    }),
    ...overrides,
  }
}

/** A person who answers after `ms` with `answer`, or never when `answer` is absent. */
function personWho(answer: 'allow-once' | 'deny' | undefined, ms = 0): Asker {
  return {
    ask: async () => {
      await sleep(ms)
      if (answer) return { decision: answer }
      // Never answers: the call's stop ends the wait.
      return new Promise(() => {})
    },
  }
}

const write = (id: string, path: string, content: string) => ({
  id,
  name: 'write_file',
  arguments: JSON.stringify({ path, content }),
})

describe('the tool call scheduler', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()
  const tempDir = useTempDirs()

  async function inMode(mode: 'ask' | 'full-auto', tools: RegisteredTool[] = []) {
    const setup = await fixture('openai-chat', tools)
    setup.atelier.chats.configure({ id: setup.chat.id, approvalMode: mode })
    return setup
  }

  describe('the states of a call, as its events tell them', () => {
    it('succeeded: validated, scheduled, run', async () => {
      const { fake, project, run } = await inMode('ask')
      writeFileSync(join(project, 'a.txt'), 'hello\n')
      fake.enqueue(
        { toolCalls: [{ id: 'r', name: 'read_file', arguments: '{"path":"a.txt"}' }] },
        { text: 'ok' },
      )
      const { events } = await run('read')
      expect(statuses(events, 'r')).toEqual(['validating', 'scheduled', 'executing', 'succeeded'])
      const [last] = statesOf(events, 'r').slice(-1)
      expect(last).toMatchObject({
        title: 'Read files',
        description: { kind: 'read', summary: 'a.txt', locations: [join(project, 'a.txt')] },
        decisions: [{ kind: 'approval', outcome: 'allowed', by: 'mode' }],
        result: { isError: false },
      })
      expect(last?.startedAt).toBeGreaterThanOrEqual(last?.createdAt ?? Number.POSITIVE_INFINITY)
    })

    it('failed by validation: never scheduled, never asked', async () => {
      const { fake, run } = await inMode('ask')
      fake.enqueue(
        { toolCalls: [{ id: 'w', name: 'write_file', arguments: '{"path":"a.txt"}' }] },
        { text: 'ok' },
      )
      const { events } = await run('write')
      expect(statuses(events, 'w')).toEqual(['validating', 'failed'])
      expect(toolResult(events, 'w')?.call).toMatchObject({ errorType: 'validation_failed', decisions: [] })
    })

    it('denied: asked, then failed as denied', async () => {
      const { fake, run } = await inMode('ask')
      fake.enqueue({ toolCalls: [write('w', 'a.txt', 'x')] }, { text: 'ok' })
      const { events } = await run('write', { asker: personWho('deny') })
      expect(statuses(events, 'w')).toEqual([
        'validating',
        'scheduled',
        'awaiting_approval',
        'scheduled',
        'failed',
      ])
      expect(toolResult(events, 'w')?.call).toMatchObject({ errorType: 'denied' })
    })

    it('waited for a person, then allowed: the wait is not the call’s duration', async () => {
      const { fake, project, run } = await inMode('ask')
      fake.enqueue({ toolCalls: [write('w', 'a.txt', 'x')] }, { text: 'ok' })
      const { events } = await run('write', { asker: personWho('allow-once', 400) })
      expect(statuses(events, 'w')).toEqual([
        'validating',
        'scheduled',
        'awaiting_approval',
        'scheduled',
        'executing',
        'succeeded',
      ])
      const ended = toolResult(events, 'w')
      expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('x')
      expect(ended?.call.waitedMs).toBeGreaterThanOrEqual(390)
      expect(ended?.durationMs).toBeLessThan(ended?.call.waitedMs ?? 0)
      expect(ended?.call.decisions).toEqual([
        expect.objectContaining({
          outcome: 'allowed',
          by: 'person',
          scope: 'once',
          waitedMs: expect.any(Number),
        }),
      ])
    })

    it('cancelled while waiting for the person', async () => {
      const { atelier, chat, fake } = await inMode('ask')
      fake.enqueue({ toolCalls: [write('w', 'a.txt', 'x')] }, { text: 'never' })
      const events: TurnEvent[] = []
      const { done } = atelier.agent.begin({
        chatId: chat.id,
        prompt: 'write',
        asker: personWho(undefined),
        onEvent: (event) => {
          events.push(event)
          if (event.type === 'tool_call' && event.call.status === 'awaiting_approval')
            atelier.agent.stop({ chatId: chat.id })
        },
      })
      expect((await done).status).toBe('stopped')
      expect(statuses(events, 'w')).toEqual([
        'validating',
        'scheduled',
        'awaiting_approval',
        'scheduled',
        'cancelled',
      ])
      expect(toolResult(events, 'w')?.call.decisions).toEqual([
        expect.objectContaining({ kind: 'approval', outcome: 'cancelled' }),
      ])
    })

    it('cancelled while executing', async () => {
      const { atelier, chat, fake } = await inMode('ask', [
        plainTool({
          name: 'wait_for_stop',
          description: 'Runs until stopped.',
          parameters: Text,
          kind: 'read',
          execute: (_args, context) =>
            new Promise((_, reject) =>
              context.signal.addEventListener('abort', () => reject(context.signal.reason)),
            ),
        }),
      ])
      fake.enqueue(
        { toolCalls: [{ id: 's', name: 'wait_for_stop', arguments: '{"text":"x"}' }] },
        { text: 'never' },
      )
      const events: TurnEvent[] = []
      const { done } = atelier.agent.begin({
        chatId: chat.id,
        prompt: 'wait',
        onEvent: (event) => {
          events.push(event)
          if (event.type === 'tool_call' && event.call.status === 'executing')
            atelier.agent.stop({ chatId: chat.id })
        },
      })
      expect((await done).status).toBe('stopped')
      expect(statuses(events, 's')).toEqual(['validating', 'scheduled', 'executing', 'cancelled'])
      expect(toolResult(events, 's')).toMatchObject({
        errorType: 'aborted',
        content: 'wait_for_stop was cancelled by the user.',
      })
    })

    it('timed out', async () => {
      const { fake, run } = await inMode('ask', [
        slowTool('too_slow', 3000, { maxRuntimeSeconds: () => 0.2 }),
      ])
      fake.enqueue({ toolCalls: [{ id: 't', name: 'too_slow', arguments: '{"text":"x"}' }] }, { text: 'ok' })
      const { events } = await run('slow')
      expect(statuses(events, 't')).toEqual(['validating', 'scheduled', 'executing', 'failed'])
      expect(toolResult(events, 't')?.call).toMatchObject({ errorType: 'timeout' })
    })

    it('stops its clock while it asks the person: a slow answer is not a timeout', async () => {
      const asking = plainTool({
        name: 'asks_first',
        description: 'Asks the person, then answers.',
        parameters: Text,
        execute: async (_args, context) => {
          const answer = await context.ask?.(
            { kind: 'confirmation', action: { label: 'Go on?' } },
            context.signal,
          )
          return `answered ${answer && 'decision' in answer ? answer.decision : 'nothing'}`
        },
      })
      const { fake, run } = await inMode('full-auto', [{ ...asking, maxRuntimeSeconds: () => 0.3 }])
      fake.enqueue(
        { toolCalls: [{ id: 'a', name: 'asks_first', arguments: '{"text":"x"}' }] },
        { text: 'ok' },
      )
      const { events } = await run('ask first', { asker: personWho('allow-once', 1000) })
      expect(toolResult(events, 'a')).toMatchObject({ isError: false, content: 'answered allow-once' })
    })

    it('prints the same states in `atelier run --json`', async () => {
      const fake = await startFakeProvider()
      try {
        const project = realpathSync(tempDir())
        writeFileSync(join(project, 'a.txt'), 'hello\n')
        fake.enqueue(
          {
            toolCalls: [
              { id: 'r', name: 'read_file', arguments: '{"path":"a.txt"}' },
              { id: 'w', name: 'write_file', arguments: '{"path":"b.txt"}' },
            ],
          },
          { text: 'ok' },
        )
        const { stdout } = await cli(tempDir(), ...fakeRunArgs(fake, project, 'go', '--json'))
        const events = stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as TurnEvent)
        expect(statuses(events, 'r')).toEqual(['validating', 'scheduled', 'executing', 'succeeded'])
        expect(statuses(events, 'w')).toEqual(['validating', 'failed'])
        // The result comes once, with the call's end: no event repeats it.
        const content = JSON.stringify(toolResult(events, 'r')?.content).slice(1, -1)
        expect(events.filter((event) => JSON.stringify(event).includes(content))).toHaveLength(1)
      } finally {
        await fake.close()
      }
    })
  })

  describe('order', () => {
    it('runs two edits of one file and a command that reads it in call order, as if one after another', async () => {
      const { atelier, fake, project, run } = await inMode('full-auto')
      atelier.tools.settings.update('local', 'bash', { enabled: true })
      writeFileSync(join(project, 'notes.txt'), 'one\n')
      const edit = (id: string, from: string, to: string) => ({
        id,
        name: 'edit_file',
        arguments: JSON.stringify({ path: 'notes.txt', old_string: from, new_string: to }),
      })
      fake.enqueue(
        { toolCalls: [{ id: 'read', name: 'read_file', arguments: '{"path":"notes.txt"}' }] },
        {
          toolCalls: [
            edit('first', 'one', 'two'),
            edit('second', 'two', 'three'),
            { id: 'cat', name: 'bash', arguments: JSON.stringify({ command: 'cat notes.txt' }) },
          ],
        },
        { text: 'Done.' },
      )
      const { events } = await run('edit twice and show it')
      expect(toolResult(events, 'first')?.isError).toBe(false)
      expect(toolResult(events, 'second')?.isError).toBe(false)
      expect(toolResult(events, 'cat')?.content).toContain('three')
      expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('three\n')
      // Each began only once the one before it had ended.
      const [first, second, cat] = ['first', 'second', 'cat'].map((id) => toolResult(events, id)?.call)
      expect(second?.startedAt).toBeGreaterThanOrEqual(first?.endedAt ?? Number.POSITIVE_INFINITY)
      expect(cat?.startedAt).toBeGreaterThanOrEqual(second?.endedAt ?? Number.POSITIVE_INFINITY)
    })

    it('runs five reads side by side: each has begun before any has ended', async () => {
      const { fake, run } = await inMode('ask', [slowTool('nap', 300)])
      const ids = ['a', 'b', 'c', 'd', 'e']
      fake.enqueue(
        { toolCalls: ids.map((id) => ({ id, name: 'nap', arguments: JSON.stringify({ text: id }) })) },
        { text: 'ok' },
      )
      const started = performance.now()
      const { events } = await run('nap five times')
      const wall = performance.now() - started
      const calls = ids.map((id) => toolResult(events, id)?.call)
      const lastStart = Math.max(...calls.map((call) => call?.startedAt ?? Number.POSITIVE_INFINITY))
      const firstEnd = Math.min(...calls.map((call) => call?.endedAt ?? 0))
      expect(lastStart).toBeLessThan(firstEnd)
      // One after another they would take 1.5 s at least; side by side, about one call's 300 ms.
      expect(wall, `${Math.round(wall)} ms for five 300 ms reads`).toBeLessThan(1500)
    })
  })

  describe('checks before the question', () => {
    it('refuses an edit of a file this chat has not read without asking anyone', async () => {
      const { fake, project, run } = await inMode('ask')
      writeFileSync(join(project, 'notes.txt'), 'unread\n')
      const asked: string[] = []
      fake.enqueue(
        {
          toolCalls: [
            {
              id: 'e',
              name: 'edit_file',
              arguments: JSON.stringify({ path: 'notes.txt', old_string: 'unread', new_string: 'changed' }),
            },
          ],
        },
        { text: 'ok' },
      )
      const { events } = await run('edit', {
        asker: {
          ask: async (question) => {
            asked.push(question.kind)
            return { decision: 'allow-once' }
          },
        },
      })
      expect(asked).toEqual([])
      expect(statuses(events, 'e')).toEqual(['validating', 'scheduled', 'failed'])
      expect(toolResult(events, 'e')).toMatchObject({
        errorType: 'not_read',
        content: expect.stringContaining('has not been read in this chat'),
      })
      expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('unread\n')
    })

    it('asks about the calls of one response one at a time, in call order', async () => {
      const { fake, run } = await inMode('ask')
      const asked: string[] = []
      let open = 0
      fake.enqueue(
        { toolCalls: [write('one', '1.txt', '1'), write('two', '2.txt', '2'), write('three', '3.txt', '3')] },
        { text: 'ok' },
      )
      await run('write three', {
        asker: {
          ask: async (question) => {
            expect(++open).toBe(1)
            asked.push(question.callId)
            await sleep(20)
            open--
            return { decision: 'allow-once' }
          },
        },
      })
      expect(asked).toEqual(['one', 'two', 'three'])
    })
  })
})
