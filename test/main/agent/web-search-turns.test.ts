/**
 * Which web search a chat's turns have, through whole turns against the fake provider: the
 * provider's own when its switch is on (the web_search tool then left out), else the web_search
 * tool with the engine it is set to — and what a hosted search leaves in the conversation.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../src-main/app/create-atelier'
import type { Capabilities } from '../../../src-shared/contract'
import { type AgentFixture, useAgentFixture } from '../../support/agent-harness'
import { type FakeSearchEngines, FOUND, startFakeSearchEngines } from '../../support/fake-search-engines'
import { toolResults } from '../../support/turn-events'

const SEARCH = {
  query: 'vitest release notes',
  sources: [{ url: 'https://example.com/vitest', title: 'Vitest releases' }],
}

async function capabilities({ atelier, chat }: AgentFixture): Promise<Capabilities> {
  const answer = await atelier.dispatch('chats.capabilities', { id: chat.id })
  if (!answer.ok) throw new Error(answer.error.message)
  return answer.value as Capabilities
}

function switchHostedSearch({ atelier, chat }: AgentFixture, on: boolean): void {
  if (!chat.provider) throw new Error('the fixture chat names its provider')
  atelier.providers.update({ id: chat.provider, hostedSearch: on })
}

describe('web search in a turn', () => {
  const setup = useAgentFixture()
  let engines: FakeSearchEngines | undefined
  afterEach(async () => {
    await engines?.close()
    engines = undefined
  })

  it('uses the provider’s own search when switched on, and leaves the web_search tool out', async () => {
    const fixture = await setup('anthropic')
    fixture.atelier.tools.settings.update(LOCAL_USER, 'web_search', { enabled: true })
    switchHostedSearch(fixture, true)
    const shown = await capabilities(fixture)
    expect(shown.webSearch).toEqual({ kind: 'hosted' })
    expect(shown.tools.map((tool) => tool.name)).not.toContain('web_search')

    fixture.fake.enqueue({ text: 'Vitest 3 is out.', webSearch: SEARCH })
    const { messages, events } = await fixture.run('What is new in Vitest?')
    // Told as it ends, before the response is committed: the chat shows the card at once.
    const told = events.findIndex((event) => event.type === 'web_search')
    expect(events[told]).toEqual({ type: 'web_search', queries: [SEARCH.query], sources: SEARCH.sources })
    expect(told).toBeLessThan(
      events.findIndex((event) => event.type === 'message' && event.message.role === 'assistant'),
    )
    const tools = fixture.fake.requestsOf('anthropic')[0]?.body.tools as { name: string; type?: string }[]
    expect(tools.filter((tool) => tool.name === 'web_search')).toEqual([
      expect.objectContaining({ type: 'web_search_20250305' }),
    ])
    const answer = messages.findLast((message) => message.role === 'assistant')
    expect(answer?.parts).toEqual(
      expect.arrayContaining([
        { type: 'web_search', provider: 'anthropic', queries: [SEARCH.query], sources: SEARCH.sources },
        { type: 'citations', sources: SEARCH.sources },
      ]),
    )
  })

  it('sends the next request without the cards, and with Anthropic’s own search blocks', async () => {
    const fixture = await setup('anthropic')
    switchHostedSearch(fixture, true)
    fixture.fake.enqueue({ text: 'Vitest 3 is out.', webSearch: SEARCH }, { text: 'Yes.' })
    await fixture.run('What is new in Vitest?')
    await fixture.run('Sure?')
    const replayed = JSON.stringify(fixture.fake.requestsOf('anthropic')[1]?.body.messages)
    expect(replayed).toContain('server_tool_use')
    expect(replayed).toContain('web_search_tool_result')
    expect(replayed).not.toContain('"citations"')
  })

  it('keeps the web_search tool for a provider without its own search', async () => {
    const fixture = await setup('openai-chat')
    engines = await startFakeSearchEngines()
    fixture.atelier.tools.settings.update(LOCAL_USER, 'web_search', {
      enabled: true,
      parameters: { engine: 'searxng', searxngUrl: engines.searxngUrl },
    })
    // The switch means nothing to Chat Completions, which has no hosted search.
    switchHostedSearch(fixture, true)
    expect((await capabilities(fixture)).webSearch).toEqual({ kind: 'tool', engine: 'searxng' })

    fixture.fake.enqueue(
      { toolCalls: [{ id: 'call_search', name: 'web_search', arguments: '{"query":"node fetch"}' }] },
      { text: 'Found it.' },
    )
    const { events } = await fixture.run('Search for node fetch.')
    const [result] = toolResults(events)
    expect(result).toMatchObject({ name: 'web_search', isError: false })
    expect(result?.content).toContain(FOUND[0]?.url)
    expect(new URL(engines.requests[0]?.url ?? '', 'http://x').searchParams.get('q')).toBe('node fetch')
  })

  it('has no web search when neither is set up', async () => {
    const fixture = await setup('gemini')
    expect((await capabilities(fixture)).webSearch).toEqual({ kind: 'none' })
    fixture.fake.enqueue({ text: 'ok' })
    await fixture.run('hi')
    expect(fixture.fake.requestsOf('gemini')[0]?.body.tools ?? []).not.toContainEqual({ googleSearch: {} })
  })
})
