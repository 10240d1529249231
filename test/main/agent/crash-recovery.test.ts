import { execFileSync, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { realpathSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { UNFINISHED_CALL } from '../../../src-main/agent/history'
import { createAtelier, DATABASE_FILE } from '../../../src-main/app/create-atelier'
import { thisProcess } from '../../../src-main/core/process-owner'
import { openDatabase } from '../../../src-main/db/database'
import { OUTPUT_SAVE_INTERVAL_MS } from '../../../src-main/tools/command-journal'
import { FAKE_ENV } from '../../support/agent-harness'
import { type FakeProvider, startFakeProvider } from '../../support/fake-provider'
import { type FixtureProcess, killHard, startFixture } from '../../support/fixture-process'
import { useTempDirs } from '../../support/temp-dir'

const RUNNER = fileURLToPath(new URL('../../fixtures/turn-runner.ts', import.meta.url))
const REOPENER = fileURLToPath(new URL('../../fixtures/turn-reopener.ts', import.meta.url))
/** A container's start: PID 1 of a PID namespace of its own, which dies with the `unshare` holding it. */
const AS_PID_ONE = ['unshare', '--user', '--map-root-user', '--pid', '--kill-child', '--mount-proc']

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

  /**
   * A data folder (closed) with a chat whose turn was left running by an earlier process that had
   * `pid` and `start`, with its prompt, and a provider the fake answers for.
   */
  async function leftRunning(pid: number, start: string | null) {
    const fake = await startFakeProvider()
    cleanups.push(() => fake.close())
    const dataDir = tempDir()
    const first = createAtelier({ dataDir, env: FAKE_ENV })
    try {
      const provider = first.providers.create({
        kind: 'openai-chat',
        name: 'Fake',
        baseUrl: fake.baseUrlFor('openai-chat'),
        defaultModel: 'fake-model',
      })
      const chat = first.chats.create({})
      first.chats.configure({ id: chat.id, provider: provider.id })
      first.db
        .prepare(
          `INSERT INTO turns (id, chat_id, status, pid, owner_start, started_at)
           VALUES ('old', ?, 'running', ?, ?, 0)`,
        )
        .run(chat.id, pid, start)
      first.db
        .prepare(
          `INSERT INTO messages (id, chat_id, turn_id, seq, role, parts, created_at)
           VALUES ('prompt', ?, 'old', 1, 'user', '[{"type":"text","text":"Still there?"}]', 0)`,
        )
        .run(chat.id)
      return { dataDir, fake, chatId: chat.id }
    } finally {
      first.close()
    }
  }

  /** Opens the data folder: the turn reads interrupted, and Retry runs it to its end. */
  async function expectInterruptedAndRetried({
    dataDir,
    fake,
    chatId,
  }: Awaited<ReturnType<typeof leftRunning>>) {
    const atelier = createAtelier({ dataDir, env: FAKE_ENV })
    cleanups.push(() => atelier.close())
    expect(atelier.agent.conversation({ id: chatId }).turns).toEqual([
      expect.objectContaining({ id: 'old', status: 'interrupted', errorCode: 'interrupted' }),
    ])
    fake.enqueue({ text: 'Yes, picking up again.' })
    const { turnId, done } = atelier.agent.retry({ chatId })
    expect(turnId).toBe('old')
    expect((await done).status).toBe('completed')
    expect(fake.requestsOf('openai-chat').at(-1)?.body.messages).toContainEqual(
      expect.objectContaining({ role: 'user', content: 'Still there?' }),
    )
  }

  // A container where every start is PID 1: the process that died had our PID, and a start of its own.
  it("marks a turn stored under this process's PID but another start interrupted, and Retry runs it", async () => {
    await expectInterruptedAndRetried(await leftRunning(process.pid, `${thisProcess().start}-earlier`))
  })

  it("marks a turn stored under this process's PID before starts were kept interrupted", async () => {
    await expectInterruptedAndRetried(await leftRunning(process.pid, null))
  })

  it.runIf(process.platform === 'linux')(
    'marks a turn interrupted whose PID another live process was given since',
    async () => {
      const reuser = spawn('sleep', ['60'], { stdio: 'ignore' })
      cleanups.push(() => reuser.kill('SIGKILL'))
      // What the process that died recorded: the same boot, an earlier start than the reuser's.
      const start = thisProcess().start.replace(/:\d+$/, ':1')
      await expectInterruptedAndRetried(await leftRunning(reuser.pid ?? 0, start))
    },
  )

  it.runIf(process.platform === 'linux')(
    'is marked interrupted when PID 1 of one container died in it and PID 1 of the next opens the data, and Retry goes on',
    async () => {
      const fake = await startFakeProvider()
      cleanups.push(() => fake.close())
      const dataDir = tempDir()
      const project = realpathSync(tempDir())
      fake.enqueue({
        text: 'Hanging.',
        toolCalls: [{ id: 'call_hang', name: 'hang', arguments: '{"pattern":"h"}' }],
      })
      const runner = startFixture(
        RUNNER,
        [dataDir, fake.baseUrlFor('openai-chat'), 'pid-one', project],
        AS_PID_ONE,
      )
      cleanups.push(() => killHard(runner.child))
      await runner.ready
      await waitForLine(runner, 'hang started')
      await killHard(runner.child)
      const db = openDatabase(join(dataDir, DATABASE_FILE))
      expect(db.prepare('SELECT pid, status FROM turns').all()).toEqual([{ pid: 1, status: 'running' }])
      db.close()

      fake.enqueue({ text: 'Picking up again.' })
      const reopener = startFixture(REOPENER, [dataDir, 'pid-one'], AS_PID_ONE)
      cleanups.push(() => killHard(reopener.child))
      await reopener.ready
      await new Promise((resolve) => reopener.child.once('exit', resolve))
      expect(reopener.lines(), reopener.stderr()).toEqual(['pid 1', 'interrupted', 'completed'])
    },
    30_000,
  )

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
