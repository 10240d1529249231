import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { Atelier } from '../../../../src-main/app/create-atelier'
import type { Capabilities } from '../../../../src-shared/contract'
import { MASKED_VALUE } from '../../../../src-shared/secrets'
import { useAgentFixture } from '../../../support/agent-harness'
import { isAlive } from '../../../support/fixture-process'
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, PROBE_SERVER } from '../../../support/mcp-servers'
import { toolResults } from '../../../support/turn-events'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))

const probe = (...extra: string[]) => ({
  name: 'probe',
  transport: 'stdio' as const,
  command: process.execPath,
  args: ['--import', 'tsx', PROBE_SERVER, ...extra],
  cwd: ROOT,
})

/** Processes whose command line carries this marker (Node's --title shows in the process list). */
function running(marker: string): number {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker)).length
}

/** Polls until `check` holds (a server writes, a process ends) or a few seconds have gone. */
async function eventually(check: () => boolean): Promise<boolean> {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
  return check()
}

/** Connects the enabled servers the way the capabilities inspector does. */
async function inspect(atelier: Atelier, chatId: string): Promise<Capabilities> {
  const answer = await atelier.dispatch('chats.capabilities', { id: chatId })
  if (!answer.ok) throw new Error(answer.error.message)
  return answer.value as Capabilities
}

/** The helper process the probe started, as it named it on stderr. */
async function helperOf(atelier: Atelier): Promise<number> {
  await eventually(() => /helper \d+/.test(atelier.mcp.stderr('probe')))
  return Number(/helper (\d+)/.exec(atelier.mcp.stderr('probe'))?.[1])
}

describe('MCP server lifecycle', () => {
  const setup = useAgentFixture()

  it('a stop sends notifications/cancelled, and the server ends the call', async () => {
    const { atelier, fake, chat } = await setup('openai-chat')
    atelier.mcp.add(probe(), { approve: true })
    fake.enqueue({ toolCalls: [{ id: 'c1', name: 'probe__wait', arguments: '{}' }] }, { text: 'Never.' })
    const { done } = atelier.agent.begin({ chatId: chat.id, prompt: 'wait', onEvent: () => {} })
    expect(await eventually(() => atelier.mcp.stderr('probe').includes('waiting'))).toBe(true)

    expect(atelier.agent.stop({ chatId: chat.id })).toEqual({ stopped: true })
    expect((await done).status).toBe('stopped')
    expect(await eventually(() => atelier.mcp.stderr('probe').includes('cancelled:'))).toBe(true)
    expect(fake.requestsOf('openai-chat')).toHaveLength(1)
  })

  it('announces mcp.changed when a server starts for the inspector and when it dies', async () => {
    const { atelier, chat } = await setup()
    const announced: boolean[] = []
    atelier.events.subscribe((event, payload) => {
      if (event === 'mcp.changed')
        announced.push((payload as { servers: { running: boolean }[] }).servers[0]?.running ?? false)
    })
    atelier.mcp.add(probe(), { approve: true })
    expect(announced).toEqual([false])
    await inspect(atelier, chat.id)
    expect(announced.at(-1)).toBe(true)
    await eventually(() => /pid \d+/.test(atelier.mcp.stderr('probe')))
    process.kill(Number(/pid (\d+)/.exec(atelier.mcp.stderr('probe'))?.[1]), 'SIGKILL')
    expect(await eventually(() => announced.at(-1) === false)).toBe(true)
    expect(atelier.mcp.list()[0]).toMatchObject({ running: false })
  })

  it('tools/list_changed refreshes the cached listing for the next turn', async () => {
    const { atelier, fake, run } = await setup('openai-responses')
    atelier.mcp.add(probe(), { approve: true })
    fake.enqueue(
      { toolCalls: [{ id: 'g', name: 'probe__grow', arguments: '{}' }] },
      { text: 'Grown.' },
      { text: 'Hi.' },
    )
    await run('grow')
    await run('hello')
    const offered = fake
      .requestsOf('openai-responses')
      .map((request) =>
        request.body.tools
          .map((tool: { name: string }) => tool.name)
          .filter((name: string) => name.startsWith('probe__')),
      )
    expect(offered[0]).toEqual(['probe__grow', 'probe__wait'])
    expect(offered.at(-1)).toEqual(['probe__grow', 'probe__grown', 'probe__wait'])
  })

  it('turning a server off ends it and every process it started, before the answer', async () => {
    const { atelier, chat } = await setup()
    atelier.mcp.add(probe('--helper'), { approve: true })
    await inspect(atelier, chat.id)
    const helper = await helperOf(atelier)
    expect(isAlive(helper)).toBe(true)
    expect(atelier.mcp.list()[0]).toMatchObject({ running: true, tools: ['probe__wait', 'probe__grow'] })

    const info = await atelier.mcp.setEnabled('probe', false, { approve: false })
    expect(info).toMatchObject({ enabled: false, running: false })
    expect(await eventually(() => !isAlive(helper))).toBe(true)
    // What it wrote stays readable in settings after it is gone.
    expect(atelier.mcp.stderr('probe')).toContain(`helper ${helper}`)
  })

  it('turning off a server that hangs while connecting ends it without waiting for it', async () => {
    const { atelier, chat } = await setup()
    const marker = `atelier-hang-${randomUUID()}`
    // Never answers `initialize`.
    const hangs = [`--title=${marker}`, '-e', 'setInterval(() => {}, 1000)']
    atelier.mcp.add(
      { name: 'hangs', transport: 'stdio', command: process.execPath, args: hangs },
      { approve: true },
    )
    const inspecting = inspect(atelier, chat.id)
    expect(await eventually(() => running(marker) === 1)).toBe(true)

    await atelier.mcp.setEnabled('hangs', false, { approve: false })
    expect(running(marker)).toBe(0)
    expect((await inspecting).servers).toEqual([
      expect.objectContaining({
        name: 'hangs',
        connected: false,
        error: expect.stringContaining('closed while it connected'),
      }),
    ])
  })

  it('closing Atelier (quitting) ends every server and what it started', async () => {
    const { atelier, chat } = await setup()
    atelier.mcp.add(probe('--helper'), { approve: true })
    await inspect(atelier, chat.id)
    const helper = await helperOf(atelier)
    await atelier.close()
    expect(await eventually(() => !isAlive(helper))).toBe(true)
  })

  it('an edit closes the session; a changed command line, environment or folder waits for approval', async () => {
    const { atelier, chat, fake, run } = await setup()
    const everything = {
      name: 'everything',
      transport: 'stdio' as const,
      command: process.execPath,
      args: [EVERYTHING_SERVER, 'stdio'],
    }
    atelier.mcp.add(everything, { approve: true })
    await inspect(atelier, chat.id)
    expect(atelier.mcp.list()[0]).toMatchObject({ running: true, needsApproval: false })

    const edited = await atelier.mcp.update('everything', { ...everything, env: { MODE: 'other' } })
    expect(edited).toMatchObject({ running: false, needsApproval: true, enabled: true })
    // Stored encrypted, as every value not marked otherwise.
    expect(edited.definition).toEqual({ ...everything, env: { MODE: MASKED_VALUE }, cwd: null })
    const capabilities = await inspect(atelier, chat.id)
    expect(capabilities.tools.some((tool) => tool.name.startsWith('everything__'))).toBe(false)

    atelier.mcp.approve('everything')
    // A new name renames its tools; the same launch needs no new approval.
    const renamed = await atelier.mcp.update('everything', {
      ...everything,
      name: 'every',
      env: { MODE: 'other' },
    })
    expect(renamed).toMatchObject({ name: 'every', needsApproval: false })
    const names = (await inspect(atelier, chat.id)).tools.map((tool) => tool.name)
    expect(names).toContain('every__echo')
    expect(names).not.toContain('everything__echo')

    // A server that cannot start is named in the inspector with the reason, the others unharmed.
    await atelier.mcp.update('every', { ...everything, name: 'every', command: '/no/such/command' })
    atelier.mcp.approve('every')
    const broken = await inspect(atelier, chat.id)
    expect(broken.servers).toEqual([
      expect.objectContaining({ name: 'every', connected: false, error: expect.stringMatching(/ENOENT/) }),
    ])
    expect(broken.tools.map((tool) => tool.name)).toContain('read_file')
    expect(atelier.mcp.list()[0]).toMatchObject({ running: false, error: expect.stringMatching(/ENOENT/) })
    // A turn runs on without its tools, and says why.
    fake.enqueue({ text: 'Fine without it.' })
    const { turn, events } = await run('hello')
    expect(turn.status).toBe('completed')
    expect(events).toContainEqual({
      type: 'servers_unavailable',
      servers: [{ name: 'every', error: expect.stringMatching(/ENOENT/) }],
    })

    await expect(atelier.mcp.update('every', { ...everything, name: 'has space' })).rejects.toMatchObject({
      code: 'invalid_name',
    })
    // Remote servers have nothing to approve.
    expect(
      await atelier.mcp.update('every', { name: 'every', transport: 'http', url: 'http://127.0.0.1:9/mcp' }),
    ).toMatchObject({ transport: 'http', needsApproval: false, target: 'http://127.0.0.1:9/mcp' })
  })

  it('the reference filesystem server works through a turn, inside its folder only, arguments literal', async () => {
    const { atelier, fake, project, run } = await setup('gemini')
    writeFileSync(join(project, 'notes.txt'), 'remember the milk\n')
    atelier.mcp.add(
      { name: 'fs', transport: 'stdio', command: process.execPath, args: [FILESYSTEM_SERVER, project] },
      { approve: true },
    )
    const marker = join(project, 'pwned')
    fake.enqueue(
      {
        toolCalls: [
          {
            id: 'inside',
            name: 'fs__read_text_file',
            arguments: JSON.stringify({ path: join(project, 'notes.txt') }),
          },
          { id: 'outside', name: 'fs__read_text_file', arguments: JSON.stringify({ path: '/etc/hostname' }) },
          {
            id: 'literal',
            name: 'fs__create_directory',
            arguments: JSON.stringify({ path: join(project, `"; touch ${marker}; echo "`) }),
          },
        ],
      },
      { text: 'Read it.' },
    )
    const { turn, events } = await run('read my notes')
    expect(turn.status).toBe('completed')
    const results = Object.fromEntries(toolResults(events).map((ended) => [ended.id, ended]))
    expect(results.inside).toMatchObject({ isError: false, content: 'remember the milk\n' })
    expect(results.outside).toMatchObject({
      isError: true,
      content: expect.stringMatching(/denied|outside/i),
    })
    expect(results.literal).toMatchObject({ isError: false })
    expect(existsSync(join(project, `"; touch ${marker}; echo "`))).toBe(true)
    expect(existsSync(marker)).toBe(false)
  })
})
