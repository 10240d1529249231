import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import type { ToolProgress } from '../../../../src-shared/tools'
import { useAgentFixture } from '../../../support/agent-harness'
import {
  CUSTOM_TOOL_FIXTURES,
  copyTool,
  descendantProcesses,
  ROOT,
  useCustomToolApps,
  waitFor,
  writeFile,
} from '../../../support/custom-tools'
import { isAlive, killHard } from '../../../support/fixture-process'
import { toolResult } from '../../../support/turn-events'

const MISBEHAVING = join(CUSTOM_TOOL_FIXTURES, 'misbehaving.ts')
const APP_THAT_DIES = join(CUSTOM_TOOL_FIXTURES, 'app-that-dies.ts')
/** The shortest timeout Settings → Tools accepts. */
const TIMEOUT_SECONDS = 5

const pidOf = (content: string) => Number(/^pid (\d+)$/.exec(content)?.[1])

describe('a custom tool runs in a host process of its own', { timeout: 90_000 }, () => {
  const fixture = useAgentFixture()
  const freshApp = useCustomToolApps()

  async function misbehavingApp() {
    const app = freshApp()
    const module = copyTool(MISBEHAVING, app.userTools)
    await app.list()
    return { app, module }
  }

  it('an endless loop fails its call at the timeout, the app keeps serving other calls meanwhile, and the next call gets a new host', async () => {
    const { app, module } = await misbehavingApp()
    app.atelier.tools.settings.update(LOCAL_USER, 'misbehave', {
      parameters: { timeoutSeconds: TIMEOUT_SECONDS },
    })
    const first = pidOf((await app.call('misbehave', { mode: 'ok' })).content)
    expect(first).toBeGreaterThan(0)

    const updates: ToolProgress[] = []
    let spinSettled = false
    const spinStarted = Date.now()
    const spinning = app.call('misbehave', { mode: 'loop' }, { updates }).finally(() => {
      spinSettled = true
    })
    await waitFor(() => updates.some((update) => update.kind === 'partial'), 'the loop to start')

    const asked = Date.now()
    const now = await app.call('get_current_datetime', {})
    expect(now.isError).toBe(false)
    // It answered while the loop still held its host, and promptly (a generous bound for a busy machine).
    expect(spinSettled).toBe(false)
    expect(Date.now() - asked).toBeLessThan(3000)

    const spun = await spinning
    expect(spun).toMatchObject({
      isError: true,
      errorType: 'timeout',
      content: `misbehave timed out after ${TIMEOUT_SECONDS}s and was stopped.`,
    })
    expect(Date.now() - spinStarted).toBeLessThan((TIMEOUT_SECONDS + 10) * 1000)

    // The next call's budget covers starting a new host, slow on a busy machine: give it the default.
    app.atelier.tools.settings.update(LOCAL_USER, 'misbehave', { parameters: { timeoutSeconds: 30 } })
    const next = await app.call('misbehave', { mode: 'ok' })
    expect(next).toMatchObject({ isError: false })
    expect(pidOf(next.content)).not.toBe(first)
    expect(app.atelier.customTools.log(module).text).toContain(
      'The tool host did not answer after a call was stopped; it was ended.',
    )
  })

  it('a crash fails its call with "the tool host stopped", and the next call works', async () => {
    const { app, module } = await misbehavingApp()
    const first = pidOf((await app.call('misbehave', { mode: 'ok' })).content)

    const crashed = await app.call('misbehave', { mode: 'crash' })
    expect(crashed).toMatchObject({ isError: true, errorType: 'execution_failed' })
    expect(crashed.content).toMatch(/the tool host stopped/i)

    const next = await app.call('misbehave', { mode: 'ok' })
    expect(next).toMatchObject({ isError: false })
    expect(pidOf(next.content)).not.toBe(first)
    expect(app.atelier.customTools.log(module).text).toContain('The tool host stopped (exit code 1).')
  })

  it('the stop button during api.exec("sleep", ["60"], { signal }) ends the sleep and the turn', async () => {
    const { atelier, fake, chat, home, run } = await fixture()
    copyTool(MISBEHAVING, join(home, '.atelier', 'tools'))
    fake.enqueue({ toolCalls: [{ id: 'nap', name: 'misbehave', arguments: '{"mode":"sleep"}' }] })
    const sleeps = () => descendantProcesses((args) => args === 'sleep 60')

    let stopped = false
    const turn = run('Take a nap', {
      onEvent: (event) => {
        const reported = event.type === 'tool_output' || (event.type === 'tool_call' && event.call.progress)
        if (!reported || stopped) return
        stopped = true
        // Once the program runs, the person presses stop.
        void waitFor(() => sleeps().length > 0, 'the sleep to start').then(() =>
          atelier.agent.stop({ chatId: chat.id }),
        )
      },
    })
    const { turn: ended, events } = await turn
    expect(ended.status).toBe('stopped')
    expect(toolResult(events, 'nap')).toMatchObject({ isError: true, errorType: 'aborted' })
    await waitFor(() => sleeps().length === 0, 'the sleep to end', 10_000)
  })

  it('a stopped call that ignores its stop streams nothing more to the card and holds no reload back', async () => {
    const { app, module } = await misbehavingApp()
    const updates: ToolProgress[] = []
    const stop = new AbortController()
    const hanging = app.call('misbehave', { mode: 'hang' }, { updates, signal: stop.signal })
    await waitFor(() => updates.length > 0, 'the first update')
    stop.abort(new Error('Stopped by the user.'))
    expect(await hanging).toMatchObject({ isError: true, errorType: 'aborted' })
    const seen = updates.length
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(updates).toHaveLength(seen)

    // Its call still runs in the host, yet the edit is picked up by the next call.
    writeFileSync(module, readFileSync(module, 'utf8').replaceAll('`pid ${', '`reloaded pid ${'))
    expect((await app.call('misbehave', { mode: 'ok' })).content).toMatch(/^reloaded pid \d+$/)
  })

  it('a stopped call that starts another program without its signal has it refused at once', async () => {
    const { app, module } = await misbehavingApp()
    const sleeps = () => descendantProcesses((args) => args === 'sleep 60')
    const stop = new AbortController()
    const stubborn = app.call('misbehave', { mode: 'stubborn' }, { signal: stop.signal })
    await waitFor(() => sleeps().length > 0, 'the first sleep to start')
    stop.abort(new Error('Stopped by the user.'))
    expect(await stubborn).toMatchObject({ isError: true, errorType: 'aborted' })

    // Not after the call's 30 s timeout: the second program is refused as killed.
    await waitFor(
      () => app.atelier.customTools.log(module).text.includes('second exec returned'),
      'the second exec to return',
      10_000,
    )
    expect(app.atelier.customTools.log(module).text).toContain(
      'second exec returned {"stdout":"","stderr":"","code":null,"killed":true}',
    )
    expect(sleeps()).toEqual([])
  })

  it('a host does not outlive an app that died without closing (a crash, Ctrl-C in atelier tool)', async () => {
    const app = freshApp()
    copyTool(MISBEHAVING, app.userTools)
    const dataDir = join(app.home, 'data')
    const dying = spawn(
      process.execPath,
      ['--import', 'tsx', APP_THAT_DIES, dataDir, app.home, 'misbehave', '{"mode":"linger"}'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    )
    let printed = ''
    dying.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      printed += chunk
    })
    await waitFor(() => /pid \d+/.test(printed), 'the call to start')
    const host = pidOf(/pid \d+/.exec(printed)?.[0] ?? '')
    expect(isAlive(host)).toBe(true)

    await killHard(dying)
    try {
      await waitFor(() => !isAlive(host), 'the orphaned host to end', 10_000)
    } finally {
      if (isAlive(host)) process.kill(host, 'SIGKILL')
    }
  })

  it('a call stopped while its host starts again never runs', async () => {
    const app = freshApp()
    const loads = join(app.home, 'loads')
    const marked = join(app.home, 'marked')
    writeFile(
      join(app.userTools, 'slow-start.ts'),
      `import { appendFileSync, writeFileSync } from 'node:fs'
export default async (api) => {
  appendFileSync(${JSON.stringify(loads)}, 'loading\\n')
  await new Promise((resolve) => setTimeout(resolve, 1000))
  return {
    name: 'slow_start', label: 'Slow start', description: 'Takes a second to load',
    parameters: api.typebox.Type.Object({ mode: api.typebox.Type.String() }),
    execute(_id, { mode }) {
      if (mode === 'crash') process.exit(1)
      if (mode === 'mark') writeFileSync(${JSON.stringify(marked)}, 'it ran')
      return { content: [{ type: 'text', text: mode }] }
    },
  }
}
`,
    )
    const loadCount = () => readFileSync(loads, 'utf8').split('\n').filter(Boolean).length
    expect((await app.call('slow_start', { mode: 'crash' })).content).toMatch(/the tool host stopped/i)

    const stop = new AbortController()
    const stopped = app.call('slow_start', { mode: 'mark' }, { signal: stop.signal })
    await waitFor(() => loadCount() === 2, 'the host to start loading again')
    stop.abort(new Error('Stopped by the user.'))
    expect(await stopped).toMatchObject({ isError: true, errorType: 'aborted' })
    // The next call is served after the stopped one would have been.
    expect((await app.call('slow_start', { mode: 'ok' })).content).toBe('ok')
    expect(existsSync(marked)).toBe(false)
  })
})
