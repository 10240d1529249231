import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Atelier, createAtelier, LOCAL_USER } from '../../../../src-main/app/create-atelier'
import '../../../../src-main/tools/builtin'
import type { ToolCallScope } from '../../../../src-main/tools/executor'
import { MASKED_VALUE } from '../../../../src-shared/secrets'
import { type FakeSearchEngines, FOUND, startFakeSearchEngines } from '../../../support/fake-search-engines'
import { useTempDirs } from '../../../support/temp-dir'

const TOOL = 'web_search'
const KEY = 'brv-test-key-0123456789'
const SCOPE: ToolCallScope = {
  user: LOCAL_USER,
  workingDirectory: null,
  mode: 'chat',
  restrict: false,
}

describe('web_search', () => {
  const tempDir = useTempDirs()
  let engines: FakeSearchEngines
  let atelier: Atelier

  beforeEach(async () => {
    engines = await startFakeSearchEngines()
    atelier = createAtelier({ dataDir: tempDir(), searchEndpoints: engines.endpoints })
  })
  afterEach(async () => {
    await atelier.close()
    await engines.close()
  })

  const configure = (parameters: Record<string, unknown>) =>
    atelier.tools.settings.update(LOCAL_USER, TOOL, { enabled: true, parameters })
  const search = (args: unknown) => atelier.tools.executor.execute({ name: TOOL, arguments: args }, SCOPE)

  describe('settings', () => {
    it('is off until an engine is set up', () => {
      expect(atelier.tools.settings.get(LOCAL_USER, TOOL).enabled).toBe(false)
    })

    it('lists a stored API key as the mask, and keeps it when the mask comes back', async () => {
      configure({ engine: 'brave', apiKey: KEY })
      const listed = atelier.tools.settings.list(LOCAL_USER).tools.find((tool) => tool.name === TOOL)
      expect(listed?.parameters.apiKey).toBe(MASKED_VALUE)
      expect(JSON.stringify(atelier.tools.settings.list(LOCAL_USER))).not.toContain(KEY)
      // Saved again as the form shows it: the key stays.
      configure({ engine: 'brave', apiKey: MASKED_VALUE, maxResults: 1 })
      expect((await search({ query: 'fetch' })).isError).toBe(false)
      expect(engines.requests.at(-1)?.headers['x-subscription-token']).toBe(KEY)
    })

    it('keeps the key sealed in the database', () => {
      configure({ engine: 'tavily', apiKey: KEY })
      const rows = atelier.db.prepare('SELECT parameters FROM user_tool_settings').all() as {
        parameters: string
      }[]
      expect(rows.length).toBeGreaterThan(0)
      expect(JSON.stringify(rows)).not.toContain(KEY)
    })

    it('forgets the key when it is saved blank', async () => {
      configure({ engine: 'brave', apiKey: KEY })
      configure({ engine: 'brave', apiKey: '' })
      expect(atelier.tools.settings.get(LOCAL_USER, TOOL).parameters.apiKey).toBeUndefined()
      const result = await search({ query: 'fetch' })
      expect(result.isError).toBe(true)
      expect(result.content).toContain('Brave Search needs an API key')
    })
  })

  describe('SearXNG', () => {
    it('returns the pages as title, URL and snippet, from the JSON API', async () => {
      configure({ engine: 'searxng', searxngUrl: engines.searxngUrl })
      const result = await search({ query: 'node fetch api' })
      expect(result.isError).toBe(false)
      for (const { title, url, snippet } of FOUND) {
        expect(result.content).toContain(title)
        expect(result.content).toContain(url)
        expect(result.content).toContain(snippet)
      }
      const request = new URL(engines.requests[0]?.url ?? '', 'http://x')
      expect(request.pathname).toBe('/searxng/search')
      expect(request.searchParams.get('q')).toBe('node fetch api')
      expect(request.searchParams.get('format')).toBe('json')
      expect(engines.requests[0]?.headers['user-agent']).toMatch(/^Atelier/)
    })

    it('shows the results as links on the card', async () => {
      configure({ engine: 'searxng', searxngUrl: engines.searxngUrl })
      const result = await search({ query: 'fetch' })
      expect(result.display).toEqual({
        kind: 'rendered',
        expanded: expect.stringContaining(`[${FOUND[0]?.title}](<${FOUND[0]?.url}>)`),
      })
    })

    it('returns no more results than asked for, nor than the settings allow', async () => {
      configure({ engine: 'searxng', searxngUrl: engines.searxngUrl, maxResults: 1 })
      const result = await search({ query: 'fetch', count: 5 })
      expect(result.content).toContain(FOUND[0]?.url)
      expect(result.content).not.toContain(FOUND[1]?.url)
    })

    it('says how to turn the JSON API on when SearXNG refuses it', async () => {
      configure({ engine: 'searxng', searxngUrl: engines.searxngUrl })
      engines.status = 403
      const result = await search({ query: 'fetch' })
      expect(result.isError).toBe(true)
      expect(result.content).toContain('search.formats')
    })

    it('asks for an address when none is set', async () => {
      configure({ engine: 'searxng' })
      const result = await search({ query: 'fetch' })
      expect(result.isError).toBe(true)
      expect(result.content).toContain('No SearXNG address is set')
      expect(engines.requests).toHaveLength(0)
    })
  })

  describe('Brave Search', () => {
    it('sends the query and the key in its header, and reads the snippets as plain text', async () => {
      configure({ engine: 'brave', apiKey: KEY, maxResults: 5 })
      const result = await search({ query: 'undici' })
      expect(result.isError).toBe(false)
      const [request] = engines.requests
      const url = new URL(request?.url ?? '', 'http://x')
      expect(request?.method).toBe('GET')
      expect(url.pathname).toBe('/brave/res/v1/web/search')
      expect(url.searchParams.get('q')).toBe('undici')
      expect(url.searchParams.get('count')).toBe('5')
      expect(request?.headers['x-subscription-token']).toBe(KEY)
      expect(request?.headers.accept).toBe('application/json')
      expect(result.content).toContain(FOUND[1]?.snippet)
      expect(result.content).not.toContain('<strong>')
    })

    it('says to check the key when Brave refuses it', async () => {
      configure({ engine: 'brave', apiKey: KEY })
      engines.status = 401
      const result = await search({ query: 'undici' })
      expect(result.isError).toBe(true)
      expect(result.content).toContain('Check the API key')
      expect(result.content).not.toContain(KEY)
    })
  })

  describe('Tavily', () => {
    it('posts the query with the key as a bearer token', async () => {
      configure({ engine: 'tavily', apiKey: KEY, maxResults: 3 })
      const result = await search({ query: 'undici' })
      expect(result.isError).toBe(false)
      const [request] = engines.requests
      expect(request?.method).toBe('POST')
      expect(new URL(request?.url ?? '', 'http://x').pathname).toBe('/tavily/search')
      expect(request?.headers.authorization).toBe(`Bearer ${KEY}`)
      expect(request?.body).toEqual({ query: 'undici', max_results: 3 })
      expect(result.content).toContain(FOUND[0]?.url)
    })
  })
})
