import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { realpathSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { UNFINISHED_CALL } from '../../../src-main/agent/history'
import { createAtelier } from '../../../src-main/app/create-atelier'
import { OUTPUT_SAVE_INTERVAL_MS } from '../../../src-main/tools/command-journal'
import { FAKE_ENV } from '../../support/agent-harness'
import { type FakeProvider, startFakeProvider } from '../../support/fake-provider'
import { type FixtureProcess, killHard, startFixture } from '../../support/fixture-process'
import { useTempDirs } from '../../support/temp-dir'

const RUNNER = fileURLToPath(new URL('../../fixtures/turn-runner.ts', import.meta.url))

async function waitForLine(fixture: FixtureProcess, line: string): Promise<void> {
  for (let i = 0; i < 1000 && !fixture.lines().includes(line); i++) {
    if (fixture.child.exitCode !== null) throw new Error(`runner exited: ${fixture.stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  expect(fixture.lines(), fixture.stderr()).toContain(line)
}

/** The ids of the processes whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  const table = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
  return table.split('\n').flatMap((line) => (line.includes(marker) ? [Number.parseInt(line, 10)] : []))
}

/** Kills what a failed run left of the command: the marker is this test's own, so are they. */
function killLeftovers(marker: string): void {
  for (const pid of processesWith(marker)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Gone already.
    }
  }
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(condition(), what).toBe(true)
}

describe('a turn whose process is killed', () => {
  const tempDir = useTempDirs()
  const cleanups: (() => unknown)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup()
  })

  it('keeps every committed message and call, is marked interrupted at the next open, and Retry goes on', async () => {
    const fake: FakeProvider = await startFakeProvider()
    cleanups.push(() => fake.close())
    const dataDir = tempDir()
    const project = realpathSync(tempDir())
    fake.enqueue({
      text: 'Running both.',
      toolCalls: [
        { id: 'call_quick', name: 'quick', arguments: '{"pattern":"q"}' },
        { id: 'call_hang', name: 'hang', arguments: '{"pattern":"h"}' },
      ],
    })
    const runner = startFixture(RUNNER, [dataDir, fake.baseUrlFor('openai-chat'), 'crash-chat', project])
    cleanups.push(() => killHard(runner.child))
    await runner.ready
    await waitForLine(runner, 'quick done')
    await waitForLine(runner, 'hang started')
    await killHard(runner.child)

    const atelier = createAtelier({ dataDir, env: FAKE_ENV })
    cleanups.push(() => atelier.close())
    const { messages, turns } = atelier.agent.conversation({ id: 'crash-chat' })
    expect(turns).toEqual([
      expect.objectContaining({ status: 'interrupted', error: expect.stringContaining('closed') }),
    ])
    expect(messages.map((m) => [m.role, m.parts.map((p) => p.type)])).toEqual([
      ['user', ['text']],
      ['assistant', ['text', 'tool_call', 'tool_call']],
      ['tool', ['tool_result']],
    ])
    expect(messages[2]?.parts[0]).toMatchObject({ callId: 'call_quick', content: 'quick result' })
    expect(atelier.chats.get('crash-chat').title).toBe('Run quick and hang.')

    // Each call says how far it got: the one that ran to its end, the one cut off while it ran.
    const { calls } = atelier.agent.conversation({ id: 'crash-chat' })
    expect(calls.map(({ id, status, errorType }) => ({ id, status, errorType }))).toEqual([
      { id: 'call_quick', status: 'succeeded', errorType: undefined },
      { id: 'call_hang', status: 'failed', errorType: 'interrupted' },
    ])

    // Retry runs the turn on, with the unfinished call answered as every provider requires.
    fake.enqueue({ text: 'Picking up again.' })
    const { done } = atelier.agent.retry({ chatId: 'crash-chat' })
    expect((await done).status).toBe('completed')
    const sent = fake.requestsOf('openai-chat').at(-1)?.body.messages
    expect(sent.filter((m: { role: string }) => m.role === 'tool')).toEqual([
      { role: 'tool', tool_call_id: 'call_quick', content: 'quick result' },
      { role: 'tool', tool_call_id: 'call_hang', content: UNFINISHED_CALL },
    ])
  }, 30_000)

  it('leaves a turn that another live process is running alone', () => {
    const dataDir = tempDir()
    const first = createAtelier({ dataDir })
    const chat = first.chats.create({})
    first.db
      .prepare("INSERT INTO turns (id, chat_id, status, pid, started_at) VALUES ('live', ?, 'running', ?, 0)")
      .run(chat.id, process.ppid)
    first.close()
    const second = createAtelier({ dataDir })
    try {
      expect(second.agent.conversation({ id: chat.id }).turns[0]?.status).toBe('running')
    } finally {
      second.close()
    }
  })

  describe.each([
    ['in the sandbox', []],
    ['outside the sandbox', ['sandbox-off']],
  ])('with a shell command running %s', (_, runnerArgs) => {
    it('takes the command and everything it started down with it, and Retry tells the model what is known of it', async () => {
      const fake: FakeProvider = await startFakeProvider()
      cleanups.push(() => fake.close())
      const dataDir = tempDir()
      const project = realpathSync(tempDir())
      const marker = `atelier-orphan-${randomUUID()}`
      cleanups.push(() => killLeftovers(marker))
      const heartbeat = join(project, 'heartbeat')
      // A loop in the background and one in the foreground, both beating; only a kill ends them.
      const command = `: ${marker}; (while :; do echo . >> heartbeat; sleep 0.05; done) & while :; do echo beat; echo . >> heartbeat; sleep 0.05; done`
      fake.enqueue({
        text: 'Running it.',
        toolCalls: [{ id: 'call_bash', name: 'bash', arguments: JSON.stringify({ command }) }],
      })
      const runner = startFixture(RUNNER, [
        dataDir,
        fake.baseUrlFor('openai-chat'),
        'shell-chat',
        project,
        ...runnerArgs,
      ])
      cleanups.push(() => killHard(runner.child))
      await runner.ready
      await waitForLine(runner, 'output')
      expect(processesWith(marker).length).toBeGreaterThan(0)
      // Long enough for its output so far to be saved.
      await new Promise((resolve) => setTimeout(resolve, OUTPUT_SAVE_INTERVAL_MS * 1.5))
      await killHard(runner.child)

      await waitFor(() => processesWith(marker).length === 0, 'no process of the command is left')
      const size = statSync(heartbeat).size
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(statSync(heartbeat).size, 'the heartbeat has stopped').toBe(size)

      const atelier = createAtelier({ dataDir, env: FAKE_ENV })
      cleanups.push(() => atelier.close())
      fake.enqueue({ text: 'Picking up again.' })
      const { done } = atelier.agent.retry({ chatId: 'shell-chat' })
      expect((await done).status).toBe('completed')
      const sent: { role: string; tool_call_id?: string; content: string }[] = fake
        .requestsOf('openai-chat')
        .at(-1)?.body.messages
      const answer = sent.find((m) => m.role === 'tool' && m.tool_call_id === 'call_bash')?.content
      expect(answer).toContain('This call was interrupted')
      expect(answer).toContain('It is not running now')
      expect(answer).toMatch(/stdout \(its end\):\n(beat\n)+/)
      expect(answer).not.toContain(UNFINISHED_CALL)
    }, 30_000)
  })
})
