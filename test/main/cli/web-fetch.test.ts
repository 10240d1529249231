import { readFileSync, realpathSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { TurnEvent } from '../../../src-shared/agent'
import { FAKE_ENV } from '../../support/agent-harness'
import { type FakeProvider, startFakeProvider } from '../../support/fake-provider'
import { useTempDirs } from '../../support/temp-dir'
import { toolResults } from '../../support/turn-events'
import { page, useWebServers } from '../../support/web-server'
import { atelier, atelierWith, fakeRunArgs } from './built-cli'

const ARTICLE = readFileSync(new URL('../../fixtures/web/article.html', import.meta.url), 'utf8')

// The CLI under test is the built one (npm test builds first).
describe('web_fetch headless (built CLI)', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs()
  const server = useWebServers()
  const fakes: FakeProvider[] = []
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((fake) => fake.close()))
  })

  async function articleServer() {
    const web = await server()
    web.route('/docs/json', page('text/html', ARTICLE))
    return web
  }

  it('`atelier tool web_fetch` refuses the loopback server until allowedHosts lets it through', async () => {
    const web = await articleServer()
    const dataDir = tempDir()
    const args = JSON.stringify({ url: `${web.origin}/docs/json` })

    const refused = await atelier(dataDir, 'tool', 'web_fetch', args)
    expect(refused.code).toBe(1)
    expect(JSON.parse(refused.stdout)).toMatchObject({
      error: { type: 'blocked', message: expect.stringContaining('loopback address') },
    })
    expect(web.requests).toHaveLength(0)

    const set = await atelier(dataDir, 'settings', 'set', 'web_fetch', 'allowedHosts=127.0.0.1')
    expect(set.code).toBe(0)
    const fetched = await atelier(dataDir, 'tool', 'web_fetch', args)
    expect(fetched.code).toBe(0)
    expect(fetched.stdout).toContain(`URL: ${web.origin}/docs/json`)
    expect(fetched.stdout).toContain('```python\nimport json')
    expect(fetched.stdout).toContain('| object | dict |')
  })

  it('`atelier run` fetches a page for the model', async () => {
    const web = await articleServer()
    const fake = await startFakeProvider()
    fakes.push(fake)
    const dataDir = tempDir()
    await atelier(dataDir, 'settings', 'set', 'web_fetch', 'allowedHosts=127.0.0.1')
    fake.enqueue(
      {
        toolCalls: [
          {
            id: 'call_fetch',
            name: 'web_fetch',
            arguments: JSON.stringify({ url: `${web.origin}/docs/json` }),
          },
        ],
      },
      { text: 'json.load reads a file.' },
    )

    const { code, stdout } = await atelierWith(
      FAKE_ENV,
      dataDir,
      ...fakeRunArgs(
        fake,
        realpathSync(tempDir()),
        'how do I read JSON?',
        '--approval',
        'full-auto',
        '--json',
      ),
    )

    expect(code).toBe(0)
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TurnEvent)
    const [result] = toolResults(events)
    expect(result).toMatchObject({ isError: false, content: expect.stringContaining('json.load') })
    expect(web.requests.map((request) => request.path)).toEqual(['/docs/json'])
    const [, second] = fake.requestsOf('openai-chat')
    expect(JSON.stringify(second?.body)).toContain('Reading JSON in Python')
  })
})
