import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Asker } from '../../../../src-main/approvals/askers'
import type { Question } from '../../../../src-shared/questions'
import type { ToolProgress } from '../../../../src-shared/tools'
import { useAgentFixture } from '../../../support/agent-harness'
import {
  CUSTOM_TOOL_FIXTURES,
  type CustomToolApp,
  copyTool,
  customToolApp,
  fileOf,
  toolSource,
  waitFor,
  writeFile,
} from '../../../support/custom-tools'
import { progressReports, toolResult } from '../../../support/turn-events'

const CONTRACT = join(CUSTOM_TOOL_FIXTURES, 'contract.ts')
const MISBEHAVING = join(CUSTOM_TOOL_FIXTURES, 'misbehaving.ts')

const resultOf = toolResult

/** The module contract as a tool sees it, in an app without UI (as `atelier run` and `atelier tool`). */
describe('the module contract', { timeout: 60_000 }, () => {
  let app: CustomToolApp
  let contract: string
  let sturdy: string

  beforeAll(async () => {
    app = customToolApp()
    contract = copyTool(CONTRACT, app.userTools)
    copyTool(MISBEHAVING, app.userTools)
    sturdy = writeFile(
      join(app.userTools, 'sturdy.ts'),
      toolSource('sturdy', { extra: "  onSession: () => { throw new Error('session hook broke') }," }),
    )
    await app.list()
  })
  afterAll(() => app?.close())

  it("a throw or a rejected promise in execute is an error result with the error's text", async () => {
    expect(await app.call('misbehave', { mode: 'throw' })).toMatchObject({
      isError: true,
      errorType: 'execution_failed',
      content: 'misbehave failed: the tool broke on purpose',
    })
    expect(await app.call('misbehave', { mode: 'reject' })).toMatchObject({
      isError: true,
      errorType: 'execution_failed',
      content: 'misbehave failed: rejected on purpose',
    })
    // A result the tool marks as an error is one too, its text as written.
    expect(await app.call('error_result', {})).toMatchObject({
      isError: true,
      content: 'the input was wrong',
    })
    // The host lived through them.
    expect((await app.call('misbehave', { mode: 'ok' })).isError).toBe(false)
  })

  it('arguments are validated against the TypeBox schema before execute', async () => {
    const wrong = await app.call('misbehave', { mode: 'explode' })
    expect(wrong).toMatchObject({ isError: true, errorType: 'validation_failed' })
    expect(wrong.content).toMatch(/^Invalid arguments for misbehave/)
  })

  it('render hooks make the card; when they throw, the card falls back to the default and the log says why', async () => {
    expect((await app.call('good_render', {})).display).toEqual({
      kind: 'rendered',
      call: '**call**',
      collapsed: 'closed 3',
      expanded: 'open 3',
    })
    const bad = await app.call('bad_render', {})
    expect(bad).toMatchObject({ isError: false, content: 'rendered by default' })
    expect(bad.display).toBeUndefined()
    const log = app.atelier.customTools.log(contract).text
    expect(log).toContain('renderCall failed; the card shows the default:')
    expect(log).toContain('renderResult broke')
  })

  it("the logger and the module's console write to its log file, shown in the listing and by customTools.log", async () => {
    expect((await app.call('log_probe', { message: 'hello' })).content).toBe('logged')
    const { logFile } = fileOf(await app.list(), contract)
    const log = app.atelier.customTools.log(contract)
    expect(log.path).toBe(logFile)
    expect(existsSync(log.path)).toBe(true)
    expect(log.text).toMatch(/INFO logger says hello \{ detail: 42 \}\n/)
    expect(log.text).toMatch(/ERROR logger error hello\n/)
    expect(log.text).toMatch(/INFO console says hello\n/)
  })

  it('api.exec runs a program without a shell in the call folder and returns { stdout, stderr, code, killed }', async () => {
    const exec = async (command: string, args: string[], timeoutMs?: number) =>
      JSON.parse((await app.call('exec_probe', { command, args, ...(timeoutMs && { timeoutMs }) })).content)

    expect(await exec('sh', ['-c', 'echo out; echo err >&2; exit 3'])).toEqual({
      stdout: 'out\n',
      stderr: 'err\n',
      code: 3,
      killed: false,
    })
    expect(await exec('pwd', [])).toMatchObject({ stdout: `${app.project}\n`, code: 0 })
    // No shell: nothing is expanded.
    expect(await exec('echo', ['$HOME', '*'])).toMatchObject({ stdout: '$HOME *\n' })
    expect(await exec('sleep', ['30'], 300)).toMatchObject({ code: null, killed: true })
    const missing = await exec('no-such-program-here', [])
    expect(missing).toMatchObject({ code: null, killed: false })
    expect(missing.stderr).toContain('ENOENT')
  })

  it('hasUI is false without a UI, ui.notify is a no-op, and pushPendingAction refuses with a clear message', async () => {
    const updates: ToolProgress[] = []
    expect(JSON.parse((await app.call('ui_probe', {}, { updates })).content)).toEqual({
      hasUI: false,
      ctxHasUI: false,
      cwd: app.project,
      ctxCwd: app.project,
      pushed: {
        refused:
          'Nobody can confirm a pending action here: atelier run and atelier tool have no UI. Run the tool in the Atelier app.',
      },
    })
    expect(updates).toEqual([])
  })

  it('a throwing onSession is logged and changes nothing else', async () => {
    const info = await app.list()
    expect(fileOf(info, sturdy)).toMatchObject({ status: 'loaded', tools: [{ name: 'sturdy' }] })
    expect(fileOf(info, sturdy).error).toBeUndefined()
    expect((await app.call('sturdy', {})).content).toBe('sturdy ran')
    // onSession(start) runs once the host said what it loaded.
    await waitFor(() => app.atelier.customTools.log(sturdy).text.includes('onSession'), 'the warning')
    const log = app.atelier.customTools.log(sturdy).text
    expect(log).toContain('WARN onSession(start) of sturdy failed: Error: session hook broke')
    // The other modules of its folder never noticed.
    expect(fileOf(info, contract).status).toBe('loaded')
    expect(app.atelier.customTools.log(contract).text).not.toContain('session hook broke')
  })
})

describe('the module contract in a turn', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()

  it('ctx.abort() stops the whole turn, saying why: the model is not asked again', async () => {
    const { fake, home, run } = await fixture()
    copyTool(CONTRACT, join(home, '.atelier', 'tools'))
    fake.enqueue(
      { toolCalls: [{ id: 'halt', name: 'stop_turn', arguments: '{}' }] },
      { text: 'This answer is never asked for.' },
    )
    const { turn, events } = await run('Go on until the tool says stop')
    expect(turn).toMatchObject({ status: 'stopped', error: 'The tool saw enough.' })
    // Its own result may beat the stop to the executor or not; either way the call ended and nothing followed it.
    expect(resultOf(events, 'halt')).toBeDefined()
    expect(fake.requestsOf('openai-chat')).toHaveLength(1)
  })

  it('with a UI, pushPendingAction puts the action before the person and applies it only when they allow it', async () => {
    const asked: Question[] = []
    const answers = ['allow-once', 'deny'] as const
    const asker: Asker = {
      ask: async (request) => {
        asked.push(request)
        return { decision: answers[asked.length - 1] ?? 'deny' }
      },
    }
    const { fake, home, project, run } = await fixture('openai-chat', [], { hasUI: true })
    copyTool(CONTRACT, join(home, '.atelier', 'tools'))
    fake.enqueue(
      { toolCalls: [{ id: 'ui', name: 'ui_probe', arguments: '{}' }] },
      { toolCalls: [{ id: 'again', name: 'ui_probe', arguments: '{}' }] },
      { text: 'Renamed once.' },
    )
    const { events } = await run('Rename things', { asker })

    expect(JSON.parse(resultOf(events, 'ui')?.content ?? '{}')).toEqual({
      hasUI: true,
      ctxHasUI: true,
      cwd: project,
      ctxCwd: project,
      pushed: { accepted: true, applied: true },
    })
    expect(JSON.parse(resultOf(events, 'again')?.content ?? '{}').pushed).toEqual({
      accepted: false,
      applied: false,
    })
    // Its notes are lines on the tool card.
    expect(progressReports(events, 'ui').map(({ progress }) => progress)).toEqual([
      { kind: 'output', stream: 'stdout', text: 'asking the person\n' },
      { kind: 'output', stream: 'stderr', text: 'this may rename a lot\n' },
    ])
    expect(asked).toHaveLength(2)
    expect(asked[0]).toMatchObject({
      tool: 'ui_probe',
      callId: 'ui',
      action: { label: 'Rename things', detail: 'Renames a to b.', preview: '- a\n+ b' },
    })
  })
})
