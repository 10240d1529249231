import { spawn } from 'node:child_process'
import { realpathSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import { turnThroughContract } from '../../support/contract-turn'
import { type FakeProvider, startFakeProvider } from '../../support/fake-provider'
import { useTempDirs } from '../../support/temp-dir'
import { atelier, BIN, fakeRunArgs } from './built-cli'

/** Two processes on one data folder, the built CLI and the app, each trying to run a turn of one chat. */
describe('one turn per chat across processes', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs()
  const cleanups: (() => unknown)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup()
  })

  it('refuses a second turn of a chat with turn_running, from the CLI and the app, while another process runs one', async () => {
    const fake: FakeProvider = await startFakeProvider()
    cleanups.push(() => fake.close())
    const dataDir = tempDir()
    const project = realpathSync(tempDir())
    // 40 chunks, 100 ms apart: about 4 s, longer than the refusals take.
    const slow = 'slow '.repeat(40)
    fake.enqueue({ text: slow, chunkSize: 5, delayMs: 100 })
    const first = spawn(
      process.execPath,
      [BIN, '--data-dir', dataDir, ...fakeRunArgs(fake, project, 'A', '--chat', 'X')],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    cleanups.push(() => first.exitCode === null && first.kill('SIGKILL'))
    let stderr = ''
    first.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    const exited = new Promise<number | null>((resolve) => first.once('exit', resolve))
    // Its turn is committed as running once it asks the model.
    const asked = () => fake.requestsOf('openai-chat').map(({ body }) => body.messages.at(-1).content)
    for (let i = 0; i < 1000 && asked().length === 0; i++) {
      if (first.exitCode !== null) throw new Error(`the first run exited: ${stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(asked()).toEqual(['A'])

    const second = await atelier(dataDir, ...fakeRunArgs(fake, project, 'B', '--chat', 'X'))
    expect(second.code).toBe(1)
    expect(second.stderr).toContain(`in another Atelier process (pid ${first.pid})`)
    expect(second.stderr).toContain('(turn_running)')

    const app = createAtelier({ dataDir, env: {} })
    cleanups.push(() => app.close())
    const refused = await turnThroughContract(app, { chatId: 'X', prompt: 'C' })
    expect(refused.error).toMatchObject({
      code: 'turn_running',
      message: expect.stringContaining(`another Atelier process (pid ${first.pid})`),
    })

    expect(await exited, stderr).toBe(0)
    // Neither refused prompt reached the model or the chat: the conversation did not interleave.
    expect(asked()).toEqual(['A'])
    expect(app.agent.conversation({ id: 'X' }).turns).toEqual([
      expect.objectContaining({ status: 'completed' }),
    ])
    const roles = () => app.agent.conversation({ id: 'X' }).messages.map(({ role }) => role)
    expect(roles()).toEqual(['user', 'assistant'])

    // Once it has ended, the chat takes the next prompt.
    fake.enqueue({ text: 'Now B.' })
    const next = await atelier(dataDir, ...fakeRunArgs(fake, project, 'B', '--chat', 'X'))
    expect(next).toMatchObject({ code: 0, stdout: 'Now B.\n' })
    expect(roles()).toEqual(['user', 'assistant', 'user', 'assistant'])
  })
})
