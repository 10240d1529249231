import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import { searchPool } from '../../../../src-main/tools/search/worker-pool'
import { useToolHarness } from '../../../support/tool-harness'

/** 40 a's then a b: (a+)+$ backtracks through every split of the a's before it fails. */
const CATASTROPHIC_LINE = `${'a'.repeat(40)}b\n`

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(10)
  }
}

/** The pool's busy thread, once a call has reached a worker. */
async function busyThread(): Promise<number> {
  await until(() => searchPool().stats().busy.length > 0, 'a busy search worker')
  return searchPool().stats().busy[0] as number
}

/** The worker running `thread` has ended, none is busy, and one stands in its place. */
async function expectReplaced(thread: number, exitsBefore: number) {
  await until(() => searchPool().stats().exits > exitsBefore, 'the worker to exit')
  const { threads, busy } = searchPool().stats()
  expect(threads).not.toContain(thread)
  expect(busy).toEqual([])
  expect(threads.length).toBeGreaterThan(0)
  expect(threads.length).toBeLessThanOrEqual(searchPool().size)
}

describe('the search worker pool', () => {
  const harness = useToolHarness()

  function setup() {
    const tools = harness()
    writeFileSync(join(tools.project, 'a.txt'), CATASTROPHIC_LINE)
    const grepSettings = (parameters: Record<string, unknown>) =>
      tools.atelier.tools.settings.update(LOCAL_USER, 'grep', { parameters })
    return { ...tools, grepSettings }
  }

  it('runs glob and grep in worker threads, no more than one per core', async () => {
    const { ok } = setup()
    const [globbed, grepped] = await Promise.all([
      ok<{ matches: string[] }>('glob', { pattern: '*.txt' }),
      ok<{ matches: unknown[] }>('grep', { pattern: 'b$', path: '.' }),
    ])
    expect(globbed.matches).toEqual(['a.txt'])
    expect(grepped.matches).toEqual([{ file: 'a.txt', line: 1, text: CATASTROPHIC_LINE.trim() }])
    const { threads, busy } = searchPool().stats()
    expect(threads.length).toBeGreaterThan(0)
    expect(threads.length).toBeLessThanOrEqual(searchPool().size)
    expect(busy).toEqual([])
  })

  it('queues calls beyond the pool size, and a call stopped while queued never starts', async () => {
    const { run, ok } = setup()
    const size = searchPool().size
    const controllers = Array.from({ length: size }, () => new AbortController())
    // Every worker busy with a pattern that runs until it is stopped.
    const blockers = controllers.map((controller) =>
      run('grep', { pattern: '(a+)+$', path: 'a.txt', caseInsensitive: true }, { signal: controller.signal }),
    )
    await until(() => searchPool().stats().busy.length === size, 'every worker busy')
    const queuedStop = new AbortController()
    const stoppedWhileQueued = run('glob', { pattern: '*' }, { signal: queuedStop.signal })
    const queued = ok<{ matches: string[] }>('glob', { pattern: '*.txt' })
    queuedStop.abort()
    expect(await stoppedWhileQueued).toMatchObject({ isError: true, errorType: 'aborted' })
    for (const controller of controllers) controller.abort()
    for (const blocker of blockers) expect(await blocker).toMatchObject({ errorType: 'aborted' })
    expect((await queued).matches).toEqual(['a.txt'])
    expect(searchPool().stats().threads.length).toBeLessThanOrEqual(size)
  })

  it('terminates the worker running a stopped call, and replaces it', async () => {
    const { run, ok } = setup()
    const controller = new AbortController()
    const exits = searchPool().stats().exits
    const call = run(
      'grep',
      { pattern: '(a+)+$', path: 'a.txt', caseInsensitive: true },
      { signal: controller.signal },
    )
    const thread = await busyThread()
    const stoppedAt = Date.now()
    controller.abort()
    expect(await call).toMatchObject({ isError: true, errorType: 'aborted' })
    expect(Date.now() - stoppedAt).toBeLessThan(1000)
    await expectReplaced(thread, exits)
    // The pool still serves calls.
    expect((await ok<{ matches: unknown[] }>('grep', { pattern: 'b$', path: 'a.txt' })).matches).toHaveLength(
      1,
    )
  })

  it('terminates the worker of a call that times out, and replaces it', async () => {
    const { run, grepSettings } = setup()
    grepSettings({ timeoutSeconds: 5 })
    const exits = searchPool().stats().exits
    const started = Date.now()
    const call = run('grep', { pattern: '(a+)+$', path: '.', caseInsensitive: true })
    const thread = await busyThread()
    expect(await call).toMatchObject({ isError: true, errorType: 'timeout' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(5000)
    expect(Date.now() - started).toBeLessThan(7000)
    await expectReplaced(thread, exits)
  })

  it.each([true, false])(
    'keeps the main thread answering while a catastrophic pattern runs (caseInsensitive %s), ending by its timeout',
    async (caseInsensitive) => {
      const { run, ok, grepSettings } = setup()
      grepSettings({ timeoutSeconds: 5 })
      const started = Date.now()
      let finished = false
      const call = run('grep', { pattern: '(a+)+$', path: 'a.txt', caseInsensitive }).finally(() => {
        finished = true
      })
      const latencies: number[] = []
      while (!finished) {
        const asked = performance.now()
        await ok('get_current_datetime', { timezone: 'UTC' })
        latencies.push(performance.now() - asked)
        await sleep(100)
      }
      const result = await call
      const took = Date.now() - started
      expect(took).toBeLessThan(7000)
      if (caseInsensitive) {
        // V8's linear-time fallback does not take the i flag: this one runs until it is stopped.
        expect(result).toMatchObject({ isError: true, errorType: 'timeout' })
        expect(took).toBeGreaterThanOrEqual(5000)
        expect(latencies.length).toBeGreaterThan(10)
      } else {
        expect(result).toMatchObject({ isError: false })
      }
      expect(latencies.length).toBeGreaterThan(0)
      expect(Math.max(...latencies)).toBeLessThan(500)
    },
    20_000,
  )
})
