import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { Capabilities } from '../../../../src-shared/contract'
import { useAgentFixture } from '../../../support/agent-harness'
import { EVERYTHING_SERVER } from '../../../support/mcp-servers'
import { toolResults } from '../../../support/turn-events'

/** Processes whose command line carries this marker (Node's --title shows in the process list). */
function running(marker: string): number {
  const lines = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n')
  return lines.filter((line) => line.includes(marker)).length
}

const everything = (name: string, marker: string) => ({
  name,
  transport: 'stdio' as const,
  command: process.execPath,
  args: [`--title=${marker}`, EVERYTHING_SERVER, 'stdio'],
})

describe('MCP servers in turns and the inspector', () => {
  const setup = useAgentFixture()

  it('starts an enabled server only when a turn needs it, and a turn calls its tools', async () => {
    const { atelier, fake, run } = await setup('openai-chat')
    const marker = `atelier-mcp-${randomUUID()}`
    atelier.mcp.add(everything('everything', marker), { approve: true })
    expect(running(marker)).toBe(0)

    fake.enqueue(
      { toolCalls: [{ id: 'c1', name: 'everything__echo', arguments: '{"message":"from the model"}' }] },
      { text: 'Done.' },
    )
    const { turn, events } = await run('echo something')
    expect(turn.status).toBe('completed')
    expect(toolResults(events)[0]).toMatchObject({ content: 'Echo: from the model' })
    expect(running(marker)).toBe(1)
    const sent = fake
      .requestsOf('openai-chat')[0]
      ?.body.tools.map((t: { function: { name: string } }) => t.function.name)
    expect(sent).toContain('everything__echo')
  })

  it('never starts a disabled server, nor an imported one before its command is approved', async () => {
    const { atelier, fake, chat, run } = await setup('openai-chat')
    const disabled = `atelier-mcp-${randomUUID()}`
    const imported = `atelier-mcp-${randomUUID()}`
    atelier.mcp.add(everything('off', disabled), { approve: true })
    await atelier.mcp.setEnabled('off', false, { approve: false })
    const file = {
      mcpServers: {
        fresh: { command: process.execPath, args: [`--title=${imported}`, EVERYTHING_SERVER, 'stdio'] },
      },
    }
    expect(atelier.mcp.import(JSON.stringify(file))).toEqual({ added: ['fresh'], skipped: [] })
    expect(atelier.mcp.list().find((s) => s.name === 'fresh')).toMatchObject({
      enabled: true,
      needsApproval: true,
    })

    fake.enqueue({ text: 'Hi.' })
    const { events } = await run('hello')
    const shown = await atelier.dispatch('chats.capabilities', { id: chat.id })
    // The one waiting for approval is named, with why, in the turn and the view; the disabled one is not.
    const waiting = [{ name: 'fresh', error: expect.stringContaining('approval') }]
    expect(events).toContainEqual({ type: 'servers_unavailable', servers: waiting })
    expect(shown.ok && (shown.value as Capabilities).servers).toEqual([expect.objectContaining(waiting[0])])
    expect(running(disabled)).toBe(0)
    expect(running(imported)).toBe(0)
    expect(
      fake
        .requestsOf('openai-chat')[0]
        ?.body.tools.some((t: { function: { name: string } }) => t.function.name.startsWith('fresh__')),
    ).toBe(false)

    await atelier.mcp.setEnabled('fresh', true, { approve: true })
    await atelier.dispatch('chats.capabilities', { id: chat.id })
    expect(running(imported)).toBe(1)
  })

  it('the inspector starts the server and shows byte for byte the tools the next turn sends', async () => {
    const { atelier, fake, chat, run } = await setup('anthropic')
    const marker = `atelier-mcp-${randomUUID()}`
    atelier.mcp.add(everything('everything', marker), { approve: true })
    const answer = await atelier.dispatch('chats.capabilities', { id: chat.id })
    if (!answer.ok) throw new Error(answer.error.message)
    expect(running(marker)).toBe(1)
    const capabilities = answer.value as Capabilities
    const shown = capabilities.tools.map((tool) => tool.wire)
    expect(capabilities.tools.find((tool) => tool.name === 'everything__echo')?.server).toBe('everything')
    expect(capabilities.tools.find((tool) => tool.name === 'read_file')?.server).toBeUndefined()
    expect(capabilities.servers).toEqual([
      expect.objectContaining({
        name: 'everything',
        connected: true,
        tools: expect.arrayContaining(['everything__echo']),
      }),
    ])

    fake.enqueue({ text: 'Hi.' })
    await run('hello')
    expect(JSON.stringify(fake.requestsOf('anthropic')[0]?.body.tools)).toBe(JSON.stringify(shown))
    // The connection was shared: the turn did not start a second server.
    expect(running(marker)).toBe(1)

    // Each MCP tool is switchable like a built-in, in the view and the turn alike.
    expect(
      await atelier.dispatch('tools.update', { name: 'everything__echo', enabled: false }),
    ).toMatchObject({
      ok: true,
    })
    const after = await atelier.dispatch('chats.capabilities', { id: chat.id })
    const names = (after.ok ? (after.value as Capabilities).tools : []).map((tool) => tool.name)
    expect(names).not.toContain('everything__echo')
    expect(names).toContain('everything__get-sum')
    fake.enqueue({ text: 'Hi again.' })
    await run('hello again')
    const offered = fake.requestsOf('anthropic')[1]?.body.tools.map((tool: { name: string }) => tool.name)
    expect(offered).toEqual(names)
  })

  it('refuses a bad name, a duplicate and a file that is not an mcpServers file, clearly', async () => {
    const { atelier } = await setup()
    expect(() => atelier.mcp.add(everything('has space', 'x'), { approve: true })).toThrow(
      expect.objectContaining({ code: 'invalid_name' }),
    )
    atelier.mcp.add(everything('one', 'x'), { approve: true })
    expect(() => atelier.mcp.add(everything('one', 'x'), { approve: true })).toThrow(
      expect.objectContaining({ code: 'name_taken' }),
    )
    expect(() => atelier.mcp.import('{"servers": {}}')).toThrow(
      expect.objectContaining({ code: 'invalid_import' }),
    )
    expect(atelier.mcp.list().map((s) => [s.name, s.target])).toEqual([
      ['one', `${process.execPath} --title=x ${EVERYTHING_SERVER} stdio`],
    ])
  })

  it('is managed over the contract: added servers wait for approval, and stderr is kept', async () => {
    const { atelier, chat } = await setup()
    const marker = `atelier-mcp-${randomUUID()}`
    expect(
      await atelier.dispatch('mcp.add', { name: 'bad name', transport: 'stdio', command: 'x' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'validation_failed' },
    })
    const added = await atelier.dispatch('mcp.add', everything('everything', marker))
    expect(added).toMatchObject({ ok: true, value: { enabled: true, needsApproval: true } })
    await atelier.dispatch('chats.capabilities', { id: chat.id })
    expect(running(marker)).toBe(0)

    expect(await atelier.dispatch('mcp.approve', { name: 'everything' })).toMatchObject({
      ok: true,
      value: { needsApproval: false, target: expect.stringContaining(marker) },
    })
    await atelier.dispatch('chats.capabilities', { id: chat.id })
    expect(running(marker)).toBe(1)
    const stderr = await atelier.dispatch('mcp.stderr', { name: 'everything' })
    expect(stderr).toMatchObject({ ok: true, value: { text: expect.any(String) } })

    await atelier.dispatch('mcp.setEnabled', { name: 'everything', enabled: false })
    expect(running(marker)).toBe(0)
    expect(await atelier.dispatch('mcp.remove', { name: 'everything' })).toEqual({
      ok: true,
      value: { name: 'everything' },
    })
    expect(await atelier.dispatch('mcp.list', {})).toEqual({ ok: true, value: [] })
  })
})
