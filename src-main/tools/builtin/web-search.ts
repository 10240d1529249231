/**
 * web_search: searches the web with the engine the person configured — a SearXNG instance, or
 * Brave's or Tavily's API with a key sealed in the data folder — and returns pages as title, URL and
 * snippet. For providers whose own hosted search is switched on, turns offer that instead (see
 * docs/web-search.md).
 */
import { type Static, Type } from '@sinclair/typebox'
import { SEARCH_ENGINE_TITLES, SEARCH_ENGINES, type SearchEngineName } from '../../../src-shared/web-search'
import { defineTool } from '../define-tool'
import { ToolError } from '../errors'
import { registerTool } from '../registry'
import { clampIntegerSetting, getStringSetting, integerParameter, TIMEOUT_SECONDS } from '../settings-policy'
import type { RegisteredTool, ToolContext, ToolOutput } from '../types'
import {
  SEARCH_ENDPOINTS,
  type SearchQuery,
  type SearchResult,
  searchBrave,
  searchSearxng,
  searchTavily,
  WEB_SEARCH_TOOL,
} from '../web-search/search-engines'

const MAX_RESULTS = { min: 1, max: 20, fallback: 8 }

const Parameters = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: 400,
      description: 'What to search for, as you would type it into a search engine.',
    }),
    count: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 20, description: 'How many results (default: the settings).' }),
    ),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

/** The engine the settings name; anything else (an old value) is SearXNG, the one without a key. */
export function engineOf(parameters: Record<string, unknown>): SearchEngineName {
  return SEARCH_ENGINES.find((engine) => engine === parameters.engine) ?? 'searxng'
}

async function execute(args: Parameters, context: ToolContext): Promise<ToolOutput> {
  const { parameters } = context.settings
  const engine = engineOf(parameters)
  const maxResults = clampIntegerSetting(parameters.maxResults, MAX_RESULTS)
  const query: SearchQuery = {
    query: args.query,
    count: Math.min(args.count ?? maxResults, maxResults),
    signal: context.signal,
  }
  const results = await search(engine, parameters, query, context)
  const title = SEARCH_ENGINE_TITLES[engine]
  if (results.length === 0) {
    return { content: `${title} found nothing for "${args.query}".`, data: { engine, results } }
  }
  return {
    content: [
      `${title} results for "${args.query}":`,
      ...results.map(({ title, url, snippet }, index) =>
        [`${index + 1}. ${title}`, `   ${url}`, ...(snippet ? [`   ${snippet}`] : [])].join('\n'),
      ),
    ].join('\n'),
    display: { kind: 'rendered', expanded: resultsMarkdown(results) },
    data: { engine, results },
  }
}

/** The results as the card shows them: each title a link, its snippet under it. */
function resultsMarkdown(results: SearchResult[]): string {
  // Brackets in a title would end the link's text early.
  const linkText = (text: string) => text.replace(/[[\]\\]/g, '\\$&')
  return results
    .map(({ title, url, snippet }) => `- [${linkText(title)}](<${url}>)${snippet ? `\\\n  ${snippet}` : ''}`)
    .join('\n')
}

function search(
  engine: SearchEngineName,
  parameters: Record<string, unknown>,
  query: SearchQuery,
  context: ToolContext,
): Promise<SearchResult[]> {
  const endpoints = context.searchEndpoints ?? SEARCH_ENDPOINTS
  if (engine === 'searxng') {
    const url = getStringSetting(parameters.searxngUrl, '').trim()
    if (!url) {
      throw new ToolError(
        'execution_failed',
        'No SearXNG address is set: set one in Settings → Tools → Web search (searxngUrl), or choose Brave or Tavily there.',
      )
    }
    return searchSearxng(url, query)
  }
  const apiKey = getStringSetting(parameters.apiKey, '')
  if (!apiKey) {
    throw new ToolError(
      'execution_failed',
      `${SEARCH_ENGINE_TITLES[engine]} needs an API key: set it in Settings → Tools → Web search (apiKey).`,
    )
  }
  return engine === 'brave'
    ? searchBrave(endpoints.brave, apiKey, query)
    : searchTavily(endpoints.tavily, apiKey, query)
}

const WEB_SEARCH: RegisteredTool = defineTool({
  name: WEB_SEARCH_TOOL,
  description:
    'Searches the web and returns the top results as title, URL and a short snippet each. Use it for current facts, documentation, error messages and anything past your knowledge; cite the URLs you rely on.',
  parameters: Parameters,
  settings: {
    title: 'Web search',
    description:
      'Lets the model search the web through SearXNG, Brave Search or Tavily. Providers with their own search (OpenAI Responses, Gemini, Anthropic) can use theirs instead: switch it on in Settings → Providers.',
    category: 'web',
    // Off until an engine is set up: without one every call would fail.
    enabledByDefault: false,
    canDisable: true,
    defaultParameters: {
      engine: 'searxng',
      searxngUrl: '',
      maxResults: MAX_RESULTS.fallback,
      timeoutSeconds: TIMEOUT_SECONDS.fallback,
    },
    parameterDescriptors: [
      {
        name: 'engine',
        type: 'enum',
        label: 'Engine',
        description: 'SearXNG needs its address; Brave Search and Tavily need an API key.',
        allowedValues: [...SEARCH_ENGINES],
      },
      {
        name: 'searxngUrl',
        type: 'string',
        label: 'SearXNG address',
        description:
          'The instance’s address, e.g. http://localhost:8888 (its settings.yml must list json under search.formats).',
      },
      {
        name: 'apiKey',
        type: 'secret',
        label: 'API key',
        description: 'Brave Search’s or Tavily’s key; kept encrypted in Atelier’s data folder.',
      },
      integerParameter('maxResults', 'Results', 'The most results one search returns.', MAX_RESULTS),
      integerParameter('timeoutSeconds', 'Timeout', 'How long one search may take.', TIMEOUT_SECONDS, 's'),
    ],
  },
  // The query leaves the machine for the engine.
  kind: 'network',
  describe: (args) => ({ summary: args.query, locations: [] }),
  execute,
})

registerTool(WEB_SEARCH)
