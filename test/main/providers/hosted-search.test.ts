/**
 * The providers' own web search, each adapter against the fake provider through its official SDK:
 * the request carries the provider's search tool only when the switch is on, and what the provider
 * reports of its searches and citations comes out as neutral events.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createProviderAdapter } from '../../../src-main/providers/adapters'
import type { ModelRequest } from '../../../src-main/providers/types'
import type { ProviderStreamEvent } from '../../../src-shared/agent'
import { type FakeKind, type FakeProvider, startFakeProvider } from '../../support/fake-provider'
import { recordingTool } from '../../support/test-tools'

// biome-ignore lint/suspicious/noExplicitAny: request bodies of three wire formats, read deep.
type Wire = any

const HOSTED = ['openai-responses', 'gemini', 'anthropic'] as const satisfies FakeKind[]

const SEARCH = {
  query: 'atelier release notes',
  sources: [
    { url: 'https://example.com/releases', title: 'Releases' },
    { url: 'https://example.org/changelog', title: 'Changelog' },
  ],
}

const REQUEST: ModelRequest = {
  model: 'fake-model',
  system: 'Answer briefly.',
  messages: [{ role: 'user', text: 'What changed in the last release?' }],
  tools: [recordingTool('lookup').tool.definition],
}

/** The provider's search tool in a request body, as each wire names it; undefined when absent. */
const SEARCH_TOOL: Record<(typeof HOSTED)[number], (body: Wire) => unknown> = {
  'openai-responses': (body) => body.tools?.find((tool: Wire) => tool.type === 'web_search'),
  gemini: (body) => body.tools?.find((tool: Wire) => tool.googleSearch !== undefined),
  anthropic: (body) => body.tools?.find((tool: Wire) => tool.type === 'web_search_20250305'),
}

async function collect(events: AsyncIterable<ProviderStreamEvent>): Promise<ProviderStreamEvent[]> {
  const seen: ProviderStreamEvent[] = []
  for await (const event of events) seen.push(event)
  return seen
}

describe('hosted web search', () => {
  let fake: FakeProvider
  beforeEach(async () => {
    fake = await startFakeProvider()
  })
  afterEach(async () => {
    await fake.close()
  })
  const run = (kind: FakeKind, hostedSearch: boolean) =>
    collect(
      createProviderAdapter({
        kind,
        baseUrl: fake.baseUrlFor(kind),
        apiKey: 'test-key',
        ...(hostedSearch && { hostedSearch }),
      }).stream(REQUEST, new AbortController().signal),
    )
  const body = (kind: FakeKind): Wire => fake.requestsOf(kind)[0]?.body

  describe.each(HOSTED)('%s', (kind) => {
    it("carries the provider's search tool beside the function tools when the switch is on", async () => {
      fake.enqueue({ text: 'Nothing changed.' })
      await run(kind, true)
      expect(SEARCH_TOOL[kind](body(kind))).toBeDefined()
      expect(JSON.stringify(body(kind).tools)).toContain('lookup')
    })

    it('carries no search tool when the switch is off', async () => {
      fake.enqueue({ text: 'Nothing changed.' })
      await run(kind, false)
      expect(SEARCH_TOOL[kind](body(kind))).toBeUndefined()
    })

    it('tells the search as a card and the pages the text cites', async () => {
      const text = 'The last release added web search.'
      fake.enqueue({ text, webSearch: SEARCH })
      const events = await run(kind, true)
      expect(events.filter((event) => event.type === 'web_search')).toEqual([
        { type: 'web_search', queries: [SEARCH.query], sources: expect.any(Array) },
      ])
      const found = events.flatMap((event) => (event.type === 'web_search' ? event.sources : []))
      expect(found.map(({ url }) => url)).toEqual(SEARCH.sources.map(({ url }) => url))
      const cited = events.flatMap((event) => (event.type === 'citations' ? event.sources : []))
      expect(cited).toEqual(SEARCH.sources)
      expect(events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('')).toBe(text)
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' })
    })
  })

  it('asks the Responses API for the pages each search found', async () => {
    fake.enqueue({ text: 'Nothing changed.' })
    await run('openai-responses', true)
    expect(body('openai-responses').include).toContain('web_search_call.action.sources')
  })

  it("caps Anthropic's searches per response", async () => {
    fake.enqueue({ text: 'Nothing changed.' })
    await run('anthropic', true)
    expect(SEARCH_TOOL.anthropic(body('anthropic'))).toEqual({
      type: 'web_search_20250305',
      name: 'web_search',
      max_uses: 5,
    })
  })

  it('sends Gemini Google Search grounding even with no function tools', async () => {
    fake.enqueue({ text: 'Nothing changed.' })
    await collect(
      createProviderAdapter({
        kind: 'gemini',
        baseUrl: fake.baseUrlFor('gemini'),
        apiKey: 'test-key',
        hostedSearch: true,
      }).stream({ ...REQUEST, tools: [] }, new AbortController().signal),
    )
    expect(body('gemini').tools).toEqual([{ googleSearch: {} }])
  })
})
