import { realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { SubagentEvent, TurnEvent } from '../../../src-shared/agent'
import { FAKE_ENV } from '../../support/agent-harness'
import type { FakeProvider } from '../../support/fake-provider'
import { useTempDirs } from '../../support/temp-dir'
import { atelierWith, fakeRunArgs, useFakeProviders } from './built-cli'

/** The parent asks `explore` to read a file; the child reads it and answers; the parent answers. */
function script(fake: FakeProvider): void {
  fake.enqueue(
    {
      whenRequestHas: 'PARENT-PROMPT',
      toolCalls: [
        {
          id: 'call_task',
          name: 'task',
          arguments: JSON.stringify({
            description: 'Read the notes',
            prompt: 'CHILD-PROMPT: what do the notes say?',
            agent: 'explore',
          }),
        },
      ],
    },
    {
      whenRequestHas: 'CHILD-PROMPT',
      toolCalls: [{ id: 'call_read', name: 'read_file', arguments: JSON.stringify({ path: 'notes.md' }) }],
    },
    { whenRequestHas: 'CHILD-PROMPT', text: 'CHILD-ANSWER: the notes say hello (notes.md:1).' },
    { whenRequestHas: 'PARENT-PROMPT', text: 'The notes say hello.' },
  )
}

describe('subagents in atelier run (built CLI)', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs()
  const startFake = useFakeProviders()

  it('prints a subagent’s activity indented on stderr, and its events with parentCallId in --json', async () => {
    const fake = await startFake()
    const project = realpathSync(tempDir())
    const dataDir = tempDir()
    writeFileSync(join(project, 'notes.md'), 'hello\n')

    script(fake)
    const person = await atelierWith(FAKE_ENV, dataDir, ...fakeRunArgs(fake, project, 'PARENT-PROMPT read'))
    expect(person.code).toBe(0)
    expect(person.stdout.trim()).toBe('The notes say hello.')
    expect(person.stderr).toContain('→ task ')
    expect(person.stderr).toContain('    → read_file {"path":"notes.md"}\n')
    expect(person.stderr).toMatch(/\n {4}✓ read_file \(\d+ ms\)\n/)
    expect(person.stderr).toMatch(/\n✓ task \(\d+ ms\)\n/)

    script(fake)
    const json = await atelierWith(
      FAKE_ENV,
      dataDir,
      ...fakeRunArgs(fake, project, 'PARENT-PROMPT read', '--json'),
    )
    expect(json.code).toBe(0)
    const events = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TurnEvent)
    const child = events.filter((event): event is SubagentEvent => event.type === 'subagent')
    expect(new Set(child.map((event) => event.parentCallId))).toEqual(new Set(['call_task']))
    const read = child.find((event) => event.event.type === 'tool_call' && event.event.call.result)
    expect(read?.event).toMatchObject({ call: { name: 'read_file', result: { isError: false } } })
    const task = events.find(
      (event) => event.type === 'tool_call' && event.call.id === 'call_task' && event.call.result,
    )
    expect(task).toMatchObject({
      call: {
        result: { content: 'CHILD-ANSWER: the notes say hello (notes.md:1).', display: { kind: 'subagent' } },
      },
    })
  })
})
