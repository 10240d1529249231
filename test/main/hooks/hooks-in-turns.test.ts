import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { nobodyToAsk } from '../../../src-main/approvals/askers'
import type { HookTable } from '../../../src-shared/hooks'
import { useAgentFixture } from '../../support/agent-harness'
import { useTempDirs } from '../../support/temp-dir'
import { turnSandboxOff } from '../../support/tool-harness'
import { toolResult } from '../../support/turn-events'

/** A hooks file under `base/.atelier/`, as a person writes it. */
function writeHooks(base: string, hooks: HookTable): void {
  mkdirSync(join(base, '.atelier'), { recursive: true })
  writeFileSync(join(base, '.atelier', 'hooks.json'), JSON.stringify({ hooks }, null, 2))
}

/** A node script in the scratch folder; its command line runs it. */
function script(folder: string, name: string, source: string): string {
  const path = join(folder, name)
  writeFileSync(path, `const input = JSON.parse(require('fs').readFileSync(0, 'utf8'))\n${source}\n`)
  return `node ${path}`
}

const command = (hook: string, timeout?: number) => ({
  type: 'command' as const,
  command: hook,
  ...(timeout && { timeout }),
})

const bash = (id: string, line: string) => ({
  id,
  name: 'bash',
  arguments: JSON.stringify({ command: line }),
})

function toolMessages(body: { messages: { role: string; content: string; tool_call_id?: string }[] }) {
  return body.messages.filter((message) => message.role === 'tool')
}

describe('hooks in turns', { timeout: 60_000 }, () => {
  const agentFixture = useAgentFixture()
  /** A turn's fixture whose bash runs (it is off by default), outside the sandbox: the hooks are on trial. */
  const fixture = async () => {
    const setup = await agentFixture()
    setup.atelier.tools.settings.update('local', 'bash', { enabled: true })
    turnSandboxOff(setup.atelier)
    return setup
  }
  const tempDir = useTempDirs()

  /** A gate on bash: exit 2 for `rm -rf`, an explicit allow for anything else. */
  function rmGate(scratch: string): string {
    return script(
      scratch,
      'rm-gate.js',
      `if (input.tool_input.command.includes('rm -rf')) {
  process.stderr.write('No rm -rf in this project: delete files one by one.')
  process.exit(2)
}
process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'the gate knows this one' } }))`,
    )
  }

  it('blocks a bash call with rm -rf through exit 2: the model reads the stderr, the card names the hook', async () => {
    const setup = await fixture()
    const scratch = tempDir()
    writeHooks(setup.home, { PreToolUse: [{ matcher: 'bash', hooks: [command(rmGate(scratch))] }] })
    writeFileSync(join(setup.project, 'keep.txt'), 'kept\n')
    setup.fake.enqueue({ toolCalls: [bash('call_rm', 'rm -rf keep.txt')] }, { text: 'Understood.' })
    const { events } = await setup.run('clean up')

    expect(existsSync(join(setup.project, 'keep.txt'))).toBe(true)
    const result = toolResult(events, 'call_rm')
    expect(result).toMatchObject({ isError: true, errorType: 'blocked' })
    expect(result?.content).toContain('No rm -rf in this project: delete files one by one.')
    expect(result?.content).toContain('rm-gate.js')
    expect(result?.call.hooks).toEqual([
      expect.objectContaining({ event: 'PreToolUse', decision: 'block', exitCode: 2 }),
    ])
    const [, second] = setup.fake.requestsOf('openai-chat')
    expect(toolMessages(second?.body)[0]?.content).toContain('No rm -rf in this project')
  })

  it("lets a hook's allow spare the mode's question, never a deny rule's refusal or a protected path's", async () => {
    const setup = await fixture()
    const scratch = tempDir()
    writeHooks(setup.home, { PreToolUse: [{ hooks: [command(rmGate(scratch))] }] })
    setup.atelier.chats.configure({ id: setup.chat.id, approvalMode: 'ask' })
    setup.atelier.approvals.add({ rule: 'bash(git push*)', action: 'deny', scope: 'global' })
    setup.fake.enqueue(
      {
        toolCalls: [
          bash('call_echo', 'echo allowed-by-hook'),
          bash('call_push', 'git push origin main'),
          {
            id: 'call_hooks',
            name: 'write_file',
            arguments: JSON.stringify({ path: '.atelier/hooks.json', content: '{}' }),
          },
        ],
      },
      { text: 'Done.' },
    )
    // Nobody answers: a call that asks is refused.
    const { events } = await setup.run('go', { asker: nobodyToAsk })

    const echo = toolResult(events, 'call_echo')
    expect(echo).toMatchObject({ isError: false })
    expect(echo?.content).toContain('allowed-by-hook')
    expect(echo?.call.decisions).toEqual([expect.objectContaining({ outcome: 'allowed', by: 'hook' })])
    expect(toolResult(events, 'call_push')).toMatchObject({ isError: true, errorType: 'denied' })
    expect(toolResult(events, 'call_push')?.content).toContain('bash(git push*)')
    expect(toolResult(events, 'call_hooks')).toMatchObject({ isError: true, errorType: 'denied' })
    expect(existsSync(join(setup.project, '.atelier', 'hooks.json'))).toBe(false)
  })

  it('lets a PostToolUse formatter rewrite the edited file: the next edit is accepted, the read sees it', async () => {
    const setup = await fixture()
    const scratch = tempDir()
    // A formatter: every line trimmed at its end, as prettier or gofmt would leave it. It reads the
    // path as Claude Code's hooks do.
    const formatter = script(
      scratch,
      'format.js',
      `const fs = require('fs')
const file = input.tool_input.file_path
fs.writeFileSync(file, fs.readFileSync(file, 'utf8').split('\\n').map((line) => line.trimEnd()).join('\\n'))`,
    )
    writeHooks(setup.home, {
      PostToolUse: [{ matcher: 'write_file|edit_file', hooks: [command(formatter)] }],
    })
    const file = join(setup.project, 'notes.txt')
    setup.fake.enqueue(
      {
        toolCalls: [
          {
            id: 'call_w',
            name: 'write_file',
            arguments: JSON.stringify({ path: 'notes.txt', content: 'one   \ntwo\t\n' }),
          },
        ],
      },
      {
        toolCalls: [
          {
            id: 'call_e',
            name: 'edit_file',
            arguments: JSON.stringify({
              path: 'notes.txt',
              old_string: 'one\ntwo',
              new_string: 'uno    \ndos',
            }),
          },
        ],
      },
      { toolCalls: [{ id: 'call_r', name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }] },
      { text: 'Done.' },
    )
    const { events } = await setup.run('write notes')

    expect(toolResult(events, 'call_w')?.call.hooks).toEqual([
      expect.objectContaining({ event: 'PostToolUse', decision: 'none', exitCode: 0 }),
    ])
    expect(toolResult(events, 'call_w')?.content).toContain('A hook changed')
    expect(toolResult(events, 'call_e')).toMatchObject({ isError: false })
    expect(readFileSync(file, 'utf8')).toBe('uno\ndos\n')
    const read = JSON.parse(toolResult(events, 'call_r')?.content ?? '{}')
    expect(read.content).toBe('     1\tuno\n     2\tdos')
  })

  it('runs PostToolUse on a call that failed too, and the model reads its additionalContext', async () => {
    const setup = await fixture()
    const scratch = tempDir()
    const hook = script(
      scratch,
      'advise.js',
      `if (input.tool_response.isError) process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'Hint from a hook: list the folder first.' } }))`,
    )
    writeHooks(setup.home, { PostToolUse: [{ matcher: 'read_file', hooks: [command(hook)] }] })
    setup.fake.enqueue(
      {
        toolCalls: [{ id: 'call_r', name: 'read_file', arguments: JSON.stringify({ path: 'missing.txt' }) }],
      },
      { text: 'Done.' },
    )
    const { events } = await setup.run('read it')

    const result = toolResult(events, 'call_r')
    expect(result).toMatchObject({ isError: true })
    expect(result?.content).toContain('Hint from a hook: list the folder first.')
    expect(result?.call.hooks).toEqual([
      expect.objectContaining({ event: 'PostToolUse', context: expect.any(String) }),
    ])
  })

  it("puts UserPromptSubmit's additionalContext in the model's request", async () => {
    const setup = await fixture()
    const scratch = tempDir()
    const hook = script(
      scratch,
      'context.js',
      `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'The release branch is frozen (' + input.prompt.length + ' chars).' } }))`,
    )
    writeHooks(setup.home, { UserPromptSubmit: [{ hooks: [command(hook)] }] })
    setup.fake.enqueue({ text: 'Noted.' })
    const { turn } = await setup.run('hello')

    expect(turn.status).toBe('completed')
    const [request] = setup.fake.requestsOf('openai-chat')
    expect(JSON.stringify(request?.body.messages)).toContain('The release branch is frozen (5 chars).')
  })

  it('ends the turn before any request when UserPromptSubmit answers continue: false, with its reason', async () => {
    const setup = await fixture()
    const scratch = tempDir()
    const hook = script(
      scratch,
      'stop.js',
      `process.stdout.write(JSON.stringify({ continue: false, stopReason: 'Prompts that mention secrets stay here.' }))`,
    )
    writeHooks(setup.home, { UserPromptSubmit: [{ hooks: [command(hook)] }] })
    const { turn, events } = await setup.run('print the secrets')

    expect(turn.status).toBe('stopped')
    expect(setup.fake.requestsOf('openai-chat')).toHaveLength(0)
    expect(events.at(-1)).toMatchObject({
      type: 'turn_error',
      code: 'stopped_by_hook',
      message: expect.stringContaining('Prompts that mention secrets stay here.'),
    })
  })

  it('kills a hook that hangs at its timeout, and one that prints broken JSON is an error: the calls run on', async () => {
    const setup = await fixture()
    const scratch = tempDir()
    const pidFile = join(scratch, 'hang.pid')
    const hang = script(
      scratch,
      'hang.js',
      `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid))\nsetInterval(() => {}, 1000)`,
    )
    const broken = script(scratch, 'broken.js', `process.stdout.write('{"decision": "block", oops')`)
    writeHooks(setup.home, { PreToolUse: [{ matcher: 'bash', hooks: [command(hang, 1), command(broken)] }] })
    setup.fake.enqueue({ toolCalls: [bash('call_1', 'echo still-ran')] }, { text: 'Done.' })
    const { events } = await setup.run('go')

    const result = toolResult(events, 'call_1')
    expect(result).toMatchObject({ isError: false })
    expect(result?.content).toContain('still-ran')
    const runs = result?.call.hooks ?? []
    expect(runs.find((run) => run.command === hang)).toMatchObject({
      decision: 'error',
      reason: expect.stringContaining('killed at its timeout of 1 s'),
    })
    expect(runs.find((run) => run.command === broken)).toMatchObject({
      decision: 'error',
      reason: expect.stringContaining('not valid JSON'),
    })
    const pid = Number(readFileSync(pidFile, 'utf8'))
    expect(() => process.kill(pid, 0)).toThrow()
  })

  it("lists an untrusted project's hooks and never runs them; trusted, they run", async () => {
    const setup = await fixture()
    const scratch = tempDir()
    const marker = join(scratch, 'ran.txt')
    const hook = script(
      scratch,
      'mark.js',
      `require('fs').appendFileSync(${JSON.stringify(marker)}, input.tool_name + '\\n')`,
    )
    writeHooks(setup.project, { PreToolUse: [{ hooks: [command(hook)] }] })
    const list = () => setup.atelier.hooks.service.list({ folder: setup.project })
    expect(list()).toEqual([
      expect.objectContaining({ scope: 'project', event: 'PreToolUse', command: hook, runs: false }),
    ])

    const glob = (id: string) => ({ id, name: 'glob', arguments: JSON.stringify({ pattern: '*' }) })
    setup.fake.enqueue({ toolCalls: [glob('call_1')] }, { text: 'Done.' })
    await setup.run('look')
    expect(existsSync(marker)).toBe(false)

    setup.atelier.customTools.trust(setup.project)
    expect(list()[0]?.runs).toBe(true)
    setup.fake.enqueue({ toolCalls: [glob('call_2')] }, { text: 'Done.' })
    await setup.run('look again')
    expect(readFileSync(marker, 'utf8')).toBe('glob\n')

    // Changed behind Atelier's back (a git pull): listed with why, not run until trusted again.
    writeHooks(setup.project, { PreToolUse: [{ hooks: [command(`${hook} --changed`)] }] })
    expect(list()[0]).toMatchObject({ runs: false, problem: expect.stringContaining('changed since') })
    setup.fake.enqueue({ toolCalls: [glob('call_3')] }, { text: 'Done.' })
    await setup.run('and again')
    expect(readFileSync(marker, 'utf8')).toBe('glob\n')

    // Trusted again, then changed by the person in Settings: it stays trusted.
    setup.atelier.customTools.trust(setup.project)
    const [entry] = list()
    setup.atelier.hooks.service.update({
      scope: 'project',
      folder: setup.project,
      id: entry?.id ?? '',
      timeout: 30,
    })
    expect(list()[0]).toMatchObject({ runs: true, timeoutSeconds: 30 })
  })

  it('runs SessionStart once per chat, Stop at each end, Notification when a question waits, PreCompact and SubagentStop', async () => {
    const setup = await fixture()
    const scratch = tempDir()
    const log = join(scratch, 'events.log')
    const logger = script(
      scratch,
      'log.js',
      `require('fs').appendFileSync(${JSON.stringify(log)}, [input.hook_event_name, input.source ?? input.notification_type ?? input.trigger ?? input.agent_name ?? input.status ?? ''].join(' ') + '\\n')`,
    )
    const all = [{ hooks: [command(logger)] }]
    writeHooks(setup.home, {
      SessionStart: all,
      Stop: all,
      Notification: all,
      PreCompact: all,
      SubagentStop: [{ matcher: 'explore', hooks: [command(logger)] }],
    })
    // The first turn hands a task to `explore`: SubagentStop, and no Stop or SessionStart of its own.
    const task = { description: 'Look around', prompt: 'What is here?', agent: 'explore' }
    setup.fake.enqueue(
      { toolCalls: [{ id: 'call_task', name: 'task', arguments: JSON.stringify(task) }] },
      { text: 'Nothing much.' },
      { text: 'One.' },
    )
    await setup.run('first')
    setup.atelier.chats.configure({ id: setup.chat.id, approvalMode: 'ask' })
    setup.fake.enqueue({ toolCalls: [bash('call_ask', 'echo hi')] }, { text: 'Two.' })
    await setup.run('second', { asker: { ask: async () => ({ decision: 'deny' }) } })
    setup.fake.enqueue({ text: 'A summary of the chat so far.' })
    await setup.atelier.agent.compact({ id: setup.chat.id })
    const { turns } = setup.atelier.hooks
    await turns.subagentEnded({
      chat: { id: setup.chat.id, folder: setup.project },
      agent: 'writer',
      status: 'completed',
    })

    // A Notification hook does not hold the question back, so its line may land after a later one.
    expect(readFileSync(log, 'utf8').trim().split('\n').sort()).toEqual(
      [
        'SessionStart startup',
        'Stop completed',
        'Notification approval',
        'Stop completed',
        'PreCompact manual',
        'SubagentStop explore',
      ].sort(),
    )
  })
})
