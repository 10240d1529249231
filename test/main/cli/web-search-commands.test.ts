/**
 * Web search headless (issue 37, item 4), through the built CLI: `atelier tool web_search` against
 * a SearXNG-shaped fake, the engine's key set from the command line and never printed back, and
 * `atelier run` with the provider's own search switched on or with the web_search tool.
 */
import { realpathSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { TurnEvent } from '../../../src-shared/agent'
import { MASKED_VALUE } from '../../../src-shared/secrets'
import { type FakeKind, type FakeProvider, startFakeProvider } from '../../support/fake-provider'
import { type FakeSearchEngines, FOUND, startFakeSearchEngines } from '../../support/fake-search-engines'
import { useTempDirs } from '../../support/temp-dir'
import { toolResults } from '../../support/turn-events'
import { atelier, fakeRunArgs } from './built-cli'

describe('atelier and web search', () => {
  const tempDir = useTempDirs()
  let engines: FakeSearchEngines
  let fake: FakeProvider
  let dataDir: string
  beforeEach(async () => {
    engines = await startFakeSearchEngines()
    fake = await startFakeProvider()
    dataDir = tempDir()
  })
  afterEach(async () => {
    await engines.close()
    await fake.close()
  })

  const configureSearxng = () =>
    atelier(
      dataDir,
      'settings',
      'set',
      'web_search',
      'enabled=true',
      'engine=searxng',
      `searxngUrl=${engines.searxngUrl}`,
    )

  /** `run` with the provider's own search, the fake speaking `kind`, in a fresh folder. */
  const runHosted = (kind: FakeKind, ...extra: string[]) =>
    atelier(
      dataDir,
      'run',
      'What is new in Vitest?',
      '--provider',
      kind,
      '--base-url',
      fake.baseUrlFor(kind),
      '--model',
      'm',
      '--cwd',
      realpathSync(tempDir()),
      '--hosted-search',
      ...extra,
    )

  it('tool web_search prints the results as the model reads them', async () => {
    expect((await configureSearxng()).code).toBe(0)
    const result = await atelier(dataDir, 'tool', 'web_search', '{"query":"node fetch"}')
    expect(result.code).toBe(0)
    for (const { title, url } of FOUND) {
      expect(result.stdout).toContain(title)
      expect(result.stdout).toContain(url)
    }
    expect(new URL(engines.requests[0]?.url ?? '', 'http://x').searchParams.get('q')).toBe('node fetch')
  })

  it('tool web_search fails with exit 1 when the engine is not set up', async () => {
    await atelier(dataDir, 'settings', 'set', 'web_search', 'enabled=true')
    const result = await atelier(dataDir, 'tool', 'web_search', '{"query":"node fetch"}')
    expect(result.code).toBe(1)
    expect(result.stdout + result.stderr).toContain('No SearXNG address is set')
  })

  it('settings set takes the API key and never prints it back', async () => {
    const key = 'tvly-secret-0123456789'
    const set = await atelier(dataDir, 'settings', 'set', 'web_search', 'engine=tavily', `apiKey=${key}`)
    expect(set.code).toBe(0)
    const shown = await atelier(dataDir, 'settings', 'get', 'web_search')
    expect(set.stdout + shown.stdout).not.toContain(key)
    expect(shown.stdout).toContain(MASKED_VALUE)
    const tools = await atelier(dataDir, 'tools', '--json')
    expect(tools.stdout).not.toContain(key)
  })

  it("run --hosted-search sends the provider's own search and keeps its citations in the turn's events", async () => {
    fake.enqueue({
      text: 'Vitest 3 is out.',
      webSearch: { query: 'vitest 3', sources: [{ url: 'https://vitest.dev/blog', title: 'Blog' }] },
    })
    const result = await runHosted('openai-responses', '--json')
    expect(result.code).toBe(0)
    expect(fake.requestsOf('openai-responses')[0]?.body.tools).toContainEqual({ type: 'web_search' })
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TurnEvent)
    const answer = events.findLast((event) => event.type === 'message' && event.message.role === 'assistant')
    expect(answer?.type === 'message' && answer.message.parts).toContainEqual({
      type: 'citations',
      sources: [{ url: 'https://vitest.dev/blog', title: 'Blog' }],
    })
  })

  it('run prints the pages the answer cites after it, and the search on stderr', async () => {
    fake.enqueue({
      text: 'Vitest 3 is out.',
      webSearch: { query: 'vitest 3', sources: [{ url: 'https://vitest.dev/blog', title: 'Blog' }] },
    })
    const result = await runHosted('anthropic')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('Vitest 3 is out.\n\nSources:\n1. Blog — https://vitest.dev/blog')
    expect(result.stderr).toContain('web search by the provider "vitest 3" (1 page)')
  })

  it('run with a Chat Completions server lets the model call web_search', async () => {
    await configureSearxng()
    const project = realpathSync(tempDir())
    fake.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'web_search', arguments: '{"query":"undici"}' }] },
      { text: 'Found undici.' },
    )
    const result = await atelier(
      dataDir,
      ...fakeRunArgs(fake, project, 'Look up undici.', '--approval', 'full-auto', '--json'),
    )
    expect(result.code).toBe(0)
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TurnEvent)
    const [searched] = toolResults(events)
    expect(searched).toMatchObject({ name: 'web_search', isError: false })
    expect(searched?.content).toContain(FOUND[1]?.url)
  })
})
