import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { renderTheme } from '../../../../src-main/tools/custom/render-theme'
import { useAgentFixture } from '../../../support/agent-harness'
import { ROOT, waitFor, writeFile } from '../../../support/custom-tools'
import { useTempDirs } from '../../../support/temp-dir'
import { progressReports, toolResult } from '../../../support/turn-events'

/** A module that records its session events in `record` and shows what its hooks and ctx are given. */
function probeModule(record: string): string {
  return `
import { appendFileSync } from 'node:fs'
export default (api) => [
  {
    name: 'probe', label: 'Probe', description: 'Shows what it is given',
    parameters: api.typebox.Type.Object({ x: api.typebox.Type.String() }),
    renderCall: (args, theme) => 'call ' + args.x + ' ' + theme.name,
    renderResult: (result, options, theme, args) =>
      (options.isPartial ? 'partial ' + options.spinnerFrame : 'final') + ' ' + theme.colors.accent + ' ' + args.x,
    async execute(id, params, onUpdate, ctx) {
      onUpdate({ content: [{ type: 'text', text: 'one' }] })
      onUpdate({ content: [{ type: 'text', text: 'two' }] })
      const messages = await ctx.sessionManager.getMessages()
      return { content: [{ type: 'text', text: JSON.stringify({ model: ctx.model, roles: messages.map((m) => m.role), first: messages[0].parts[0].text }) }] }
    },
    onSession(event, ctx) {
      appendFileSync(${JSON.stringify(record)}, event.reason + (event.chatId ? ' ' + event.chatId : '') + (event.fromChatId ? ' from ' + event.fromChatId : '') + (event.message ? ' ' + event.message.role : '') + '\\n')
    },
  },
  {
    name: 'doomed', label: 'Doomed', description: 'Fails for good',
    parameters: api.typebox.Type.Object({}),
    async execute() {
      throw new api.atelier.FatalToolError('the database is down', { cause: new Error('ECONNREFUSED 10.0.0.7:5432 password=hunter2') })
    },
  },
]
`
}

describe('custom tools in a turn: session events, render hooks, ctx, fatal errors', {
  timeout: 90_000,
}, () => {
  const fixture = useAgentFixture()
  const tempDir = useTempDirs()

  it('render hooks get the theme, the args and a spinner frame; ctx has the model and the chat’s messages', async () => {
    const { fake, home, run } = await fixture()
    writeFile(join(home, '.atelier', 'tools', 'probe.mjs'), probeModule(join(tempDir(), 'events.log')))
    fake.enqueue({ toolCalls: [{ id: 'p', name: 'probe', arguments: '{"x":"hi"}' }] }, { text: 'Done.' })
    const { events } = await run('Probe it')
    const result = toolResult(events, 'p')
    expect(JSON.parse(result?.content ?? '{}')).toEqual({
      model: { provider: 'Fake openai-chat', model: 'fake-model' },
      roles: ['user', 'assistant'],
      first: 'Probe it',
    })
    const light = renderTheme('light')
    expect(result?.display).toEqual({
      kind: 'rendered',
      call: 'call hi light',
      collapsed: `final ${light.colors.accent} hi`,
      expanded: `final ${light.colors.accent} hi`,
    })
    const partials = progressReports(events, 'p').map(({ progress }) => progress)
    expect(partials.map((progress) => (progress as { rendered?: string }).rendered)).toEqual([
      `partial 0 ${light.colors.accent} hi`,
      `partial 1 ${light.colors.accent} hi`,
    ])
  })

  it('the theme follows the app’s: dark when the person chose dark', async () => {
    const { atelier, fake, home, run } = await fixture()
    atelier.preferences.update({ theme: 'dark' })
    writeFile(join(home, '.atelier', 'tools', 'probe.mjs'), probeModule(join(tempDir(), 'events.log')))
    fake.enqueue({ toolCalls: [{ id: 'p', name: 'probe', arguments: '{"x":"hi"}' }] }, { text: 'Done.' })
    const { events } = await run('Probe it')
    expect(toolResult(events, 'p')?.display).toMatchObject({
      call: 'call hi dark',
      expanded: `final ${renderTheme('dark').colors.accent} hi`,
    })
  })

  it('onSession hears new, the turn’s start and end, its messages, a resume, a branch and a switch', async () => {
    const { atelier, chat, fake, home, run } = await fixture()
    const record = join(tempDir(), 'events.log')
    writeFile(join(home, '.atelier', 'tools', 'probe.mjs'), probeModule(record))
    fake.enqueue({ text: 'First.' })
    await run('One')
    const lines = () => readFileSync(record, 'utf8').trim().split('\n')
    await waitFor(() => lines().includes(`turn_end ${chat.id}`), 'the turn’s end')
    expect(lines()).toEqual([
      'start',
      `new ${chat.id}`,
      `turn_start ${chat.id}`,
      `message ${chat.id} user`,
      `message ${chat.id} assistant`,
      `turn_end ${chat.id}`,
    ])
    const forked = await atelier.dispatch('chats.fork', { id: chat.id })
    const fork = (forked as { ok: true; value: { chat: { id: string } } }).value.chat
    await atelier.dispatch('chats.messages', { id: chat.id })
    await atelier.dispatch('chats.messages', { id: fork.id })
    await waitFor(() => lines().includes(`switch ${fork.id}`), 'the switch')
    expect(lines().slice(6)).toEqual([`branch ${fork.id} from ${chat.id}`, `switch ${fork.id}`])
    // The fork's first turn in this process continues a conversation: a resume, not a new chat.
    fake.enqueue({ text: 'Second.' })
    await atelier.agent.begin({ chatId: fork.id, prompt: 'Two' }).done
    await waitFor(() => lines().includes(`turn_end ${fork.id}`), 'the fork’s turn')
    expect(lines().slice(8, 10)).toEqual([`resume ${fork.id}`, `turn_start ${fork.id}`])
  })

  it('a FatalToolError from a module ends the turn; its cause goes to the log, never to the model', async () => {
    const { atelier, fake, home, run } = await fixture()
    const module = writeFile(
      join(home, '.atelier', 'tools', 'probe.mjs'),
      probeModule(join(tempDir(), 'e.log')),
    )
    fake.enqueue({ toolCalls: [{ id: 'd', name: 'doomed', arguments: '{}' }] }, { text: 'never asked' })
    const { turn, events } = await run('Try it')
    expect(turn).toMatchObject({
      status: 'failed',
      errorCode: 'fatal_tool_error',
      error: 'doomed failed in a way the model cannot fix: the database is down',
      toolError: true,
    })
    expect(toolResult(events, 'd')).toMatchObject({ isError: true, errorType: 'fatal' })
    expect(JSON.stringify(events)).not.toContain('ECONNREFUSED')
    expect(fake.requestsOf('openai-chat')).toHaveLength(1)
    expect(atelier.customTools.log(module).text).toContain('ECONNREFUSED 10.0.0.7:5432')
  })

  it('turn_completed says whether any call of the turn ended in error, as the stored turn does', async () => {
    const { atelier, chat, fake, home, run } = await fixture()
    writeFile(join(home, '.atelier', 'tools', 'probe.mjs'), probeModule(join(tempDir(), 'e.log')))
    fake.enqueue({ toolCalls: [{ id: 'bad', name: 'probe', arguments: '{"x":1}' }] }, { text: 'Sorry.' })
    const failing = await run('Call it wrong')
    expect(failing.events.at(-1)).toMatchObject({
      type: 'turn_completed',
      status: 'completed',
      toolError: true,
    })
    fake.enqueue({ toolCalls: [{ id: 'good', name: 'probe', arguments: '{"x":"y"}' }] }, { text: 'Fine.' })
    const passing = await run('Call it right')
    expect(passing.events.at(-1)).toMatchObject({ type: 'turn_completed', toolError: false })
    expect(atelier.agent.conversation({ id: chat.id }).turns.map((turn) => turn.toolError)).toEqual([
      true,
      false,
    ])
  })
})

describe('the render theme', () => {
  it('holds the renderer’s own colours, light and dark', () => {
    const css = readFileSync(join(ROOT, 'src-renderer', 'src', 'styles.css'), 'utf8')
    const token = (name: string) => {
      const found = new RegExp(`--${name}: light-dark\\((#[0-9a-f]+), (#[0-9a-f]+)\\)`).exec(css)
      return { light: found?.[1], dark: found?.[2] }
    }
    const names = {
      bg: 'bg',
      fg: 'fg',
      muted: 'fg-muted',
      border: 'border',
      accent: 'accent',
      danger: 'danger',
    }
    for (const [key, css] of Object.entries(names)) {
      const field = key as keyof ReturnType<typeof renderTheme>['colors']
      expect({ light: renderTheme('light').colors[field], dark: renderTheme('dark').colors[field] }).toEqual(
        token(css),
      )
    }
  })
})
