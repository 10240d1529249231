/** `atelier run "/name args"` expands a slash command as the app does (the built CLI). */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import { FAKE_ENV } from '../../support/agent-harness'
import type { FakeProvider } from '../../support/fake-provider'
import { useTempDirs } from '../../support/temp-dir'
import { atelierWith, fakeRunArgs, useFakeProviders } from './built-cli'

describe('atelier run with a slash command (built CLI)', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs()
  const startFake = useFakeProviders()

  async function setUp() {
    const fake = await startFake()
    const dataDir = tempDir()
    const home = realpathSync(tempDir())
    const project = realpathSync(tempDir())
    const cli = (...args: string[]) => atelierWith({ ...FAKE_ENV, HOME: home }, dataDir, ...args)
    return { fake, dataDir, home, project, cli }
  }

  const sentPrompt = (fake: FakeProvider, index: number) =>
    fake.requestsOf('openai-chat')[index]?.body.messages.at(-1)?.content

  it('expands a trusted project’s `/fix 42`, and the person’s own command anywhere', async () => {
    const { fake, home, project, cli } = await setUp()
    mkdirSync(join(project, '.claude', 'commands'), { recursive: true })
    writeFileSync(join(project, '.claude', 'commands', 'fix.md'), 'Fix issue #$ARGUMENTS (first word: $1).\n')
    mkdirSync(join(home, '.atelier', 'commands'), { recursive: true })
    writeFileSync(
      join(home, '.atelier', 'commands', 'hello.md'),
      '---\ndescription: Greet\n---\nSay hello to $1.\n',
    )
    fake.enqueue({ text: 'Not trusted.' }, { text: 'Fixed.' }, { text: 'Hello.' })

    expect((await cli(...fakeRunArgs(fake, project, '/fix 42 now'))).code).toBe(0)
    expect(sentPrompt(fake, 0)).toBe('/fix 42 now')

    expect((await cli('folders', 'trust', project)).code).toBe(0)
    const fixed = await cli(...fakeRunArgs(fake, project, '/fix 42 now'))
    expect(fixed).toMatchObject({ code: 0, stdout: 'Fixed.\n' })
    expect(sentPrompt(fake, 1)).toBe('Fix issue #42 now (first word: 42).')

    expect((await cli(...fakeRunArgs(fake, project, '/hello Ada'))).code).toBe(0)
    expect(sentPrompt(fake, 2)).toBe('Say hello to Ada.')
  })

  it('refuses a built-in the app does itself before anything is written, and exits 1', async () => {
    const { fake, dataDir, project, cli } = await setUp()
    const refused = await cli(...fakeRunArgs(fake, project, '/clear'))

    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('/clear is done by the app')
    expect(fake.requestsOf('openai-chat')).toHaveLength(0)
    const app = createAtelier({ dataDir, env: {} })
    try {
      expect(app.chats.list()).toEqual([])
    } finally {
      await app.close()
    }
  })
})
