import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ToolProgress } from '../../../../src-shared/tools'
import { useAgentFixture } from '../../../support/agent-harness'
import { fileOf, toolSource, useCustomToolApps, waitFor, writeFile } from '../../../support/custom-tools'
import { toolResults } from '../../../support/turn-events'

/**
 * A module that says its version, records its host's lifecycle in `sessions.log` of the home (the cwd of
 * `onSession`), and, given `gate`, holds its call until that file exists.
 */
function versioned(version: string): string {
  return `import { appendFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'

let home = ''
const record = (what) => appendFileSync(join(home, 'sessions.log'), '${version} ' + what + '\\n')

export default (api) => {
  home = api.cwd
  return {
    name: 'versioned',
    label: 'Versioned',
    description: 'Says its version',
    parameters: api.typebox.Type.Object({ gate: api.typebox.Type.Optional(api.typebox.Type.String()) }),
    async execute(_id, { gate }, onUpdate) {
      if (gate) {
        onUpdate?.({ content: [{ type: 'text', text: 'waiting' }] })
        while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 20))
        record('call ended')
      }
      return { content: [{ type: 'text', text: '${version}' }] }
    },
    onSession(event, ctx) {
      // The host's own lifecycle; a turn's events (turn_start, message…) come too, and are not this test's.
      if (event.reason === 'start' || event.reason === 'shutdown') {
        record(event.reason + ' in ' + (ctx.cwd === home ? 'home' : ctx.cwd))
      }
    },
  }
}
`
}

const sessions = (home: string) =>
  existsSync(join(home, 'sessions.log'))
    ? readFileSync(join(home, 'sessions.log'), 'utf8').trim().split('\n')
    : []

/** `onSession(start)` runs once the host said what it loaded, so a call may come before its line. */
async function expectSessions(home: string, expected: string[]): Promise<void> {
  await waitFor(() => sessions(home).length >= expected.length, `${expected.length} lifecycle events`)
  expect(sessions(home)).toEqual(expected)
}

describe('hot reload', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()
  const freshApp = useCustomToolApps()

  it('the next turn after an edit runs the new code; onSession saw shutdown, then start', async () => {
    const { fake, home, run } = await fixture()
    const module = writeFile(join(home, '.atelier', 'tools', 'versioned.ts'), versioned('v1'))
    const call = { toolCalls: [{ id: 'v', name: 'versioned', arguments: '{}' }] }

    fake.enqueue(call, { text: 'One.' })
    const first = await run('Which version?')
    expect(toolResults(first.events)).toContainEqual(expect.objectContaining({ content: 'v1' }))
    await expectSessions(home, ['v1 start in home'])

    // Saved, and the next message sent at once.
    writeFile(module, versioned('v2'))
    fake.enqueue(call, { text: 'Two.' })
    const second = await run('And now?')
    expect(toolResults(second.events)).toContainEqual(expect.objectContaining({ content: 'v2' }))
    await expectSessions(home, ['v1 start in home', 'v1 shutdown in home', 'v2 start in home'])
  })

  it('never reloads in the middle of a call: the call finishes on the old code, the next one gets the new', async () => {
    const app = freshApp()
    const module = writeFile(join(app.userTools, 'versioned.ts'), versioned('v1'))
    const gate = join(app.home, 'gate')
    const updates: ToolProgress[] = []
    const held = app.call('versioned', { gate }, { updates })
    await waitFor(() => updates.length > 0, 'the call to start')

    writeFile(module, versioned('v2'))
    // Another turn prepares meanwhile.
    await app.atelier.customTools.prepare(app.project)
    await expectSessions(app.home, ['v1 start in home'])

    writeFile(gate, '')
    expect((await held).content).toBe('v1')
    expect((await app.call('versioned', {})).content).toBe('v2')
    await expectSessions(app.home, [
      'v1 start in home',
      'v1 call ended',
      'v1 shutdown in home',
      'v2 start in home',
    ])
  })

  it('a file added or removed changes the tools at the next turn; Reload restarts the host', async () => {
    const app = freshApp()
    writeFile(join(app.userTools, 'versioned.ts'), versioned('v1'))
    expect((await app.call('versioned', {})).content).toBe('v1')

    const added = writeFile(join(app.userTools, 'added.ts'), toolSource('added'))
    expect((await app.call('added', {})).content).toBe('added ran')
    expect(fileOf(await app.list(), added).status).toBe('loaded')

    rmSync(added)
    const gone = await app.call('added', {})
    expect(gone).toMatchObject({ isError: true })
    expect(app.atelier.tools.registry.get('added')).toBeUndefined()

    const reloaded = await app.atelier.customTools.reload(app.project)
    expect(reloaded.folders[0]?.files.map((file) => file.status)).toEqual(['loaded'])
    // Started, then reloaded for the file added, the file removed and the Reload.
    await expectSessions(app.home, [
      'v1 start in home',
      ...Array(3).fill(['v1 shutdown in home', 'v1 start in home']).flat(),
    ])
  })

  it('an edit of a file the module imports reloads the folder once the watcher saw it', async () => {
    const app = freshApp()
    const helper = writeFile(join(app.userTools, 'greeter', 'words.ts'), "export const words = 'hello'\n")
    writeFile(
      join(app.userTools, 'greeter', 'index.ts'),
      toolSource('greet', { prelude: "import { words } from './words'", text: 'unused' }).replace(
        '"unused"',
        'words',
      ),
    )
    expect((await app.call('greet', {})).content).toBe('hello')

    let changed = false
    const unsubscribe = app.atelier.events.subscribe((event) => {
      if (event === 'customTools.changed') changed = true
    })
    writeFile(helper, "export const words = 'goodbye'\n")
    await waitFor(() => changed, 'the watcher to see the edit')
    unsubscribe()
    expect((await app.call('greet', {})).content).toBe('goodbye')
  })
})
