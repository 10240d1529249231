/**
 * The search engines behind the `web_search` tool: a SearXNG instance the person names (its JSON
 * API), or Brave's or Tavily's search API with the person's key. Each answers one query with pages
 * as title, URL and snippet; how a request is shaped and read is each engine's own business.
 */
import { ToolError } from '../errors'

/** The built-in tool's name: a turn leaves it out where the provider's own search is on. */
export const WEB_SEARCH_TOOL = 'web_search'

/** One page an engine found. */
export interface SearchResult {
  title: string
  url: string
  /** What the engine quotes of the page; may be empty. */
  snippet: string
}

/**
 * Where the keyed engines' APIs are. Fixed: a key goes only to the API it was issued for. The one
 * way to point them elsewhere is `createAtelier({ searchEndpoints })`, which only code can pass
 * (tests, at their local fakes) — no setting, contract method or environment variable reaches it.
 */
export interface SearchEndpoints {
  brave: string
  tavily: string
}

export const SEARCH_ENDPOINTS: SearchEndpoints = {
  brave: 'https://api.search.brave.com/res/v1/web/search',
  tavily: 'https://api.tavily.com/search',
}

/** What every engine is asked. */
export interface SearchQuery {
  query: string
  /** The most results wanted. */
  count: number
  signal: AbortSignal
}

/** A fixed User-Agent naming Atelier: engines and their operators can tell who asks. */
const USER_AGENT = 'Atelier (web_search)'

/**
 * Asks SearXNG at `baseUrl` (the instance's address, a path allowed) through its JSON API. The
 * instance must list `json` under `search.formats` in its settings.yml; SearXNG refuses with 403
 * otherwise, and the error says so.
 */
export async function searchSearxng(
  baseUrl: string,
  { query, count, signal }: SearchQuery,
): Promise<SearchResult[]> {
  const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`)
  url.searchParams.set('q', query)
  url.searchParams.set('format', 'json')
  const body = (await requestJson('SearXNG', url, { signal, headers: {} })) as {
    results?: { title?: string; url?: string; content?: string }[]
  }
  return pages(body.results ?? [], count, (result) => [result.title, result.url, result.content])
}

/** Asks Brave's Web Search API, the key in its `X-Subscription-Token` header. */
export async function searchBrave(
  endpoint: string,
  apiKey: string,
  { query, count, signal }: SearchQuery,
): Promise<SearchResult[]> {
  const url = new URL(endpoint)
  url.searchParams.set('q', query)
  // Brave serves at most 20 results a request.
  url.searchParams.set('count', String(Math.min(count, 20)))
  const body = (await requestJson('Brave Search', url, {
    signal,
    headers: { 'x-subscription-token': apiKey },
  })) as { web?: { results?: { title?: string; url?: string; description?: string }[] } }
  // Brave marks the words that matched with <strong>: the model reads plain text.
  return pages(body.web?.results ?? [], count, (result) => [
    result.title,
    result.url,
    result.description?.replace(/<\/?strong>/g, ''),
  ])
}

/** Asks Tavily's search API, the key as a bearer token. */
export async function searchTavily(
  endpoint: string,
  apiKey: string,
  { query, count, signal }: SearchQuery,
): Promise<SearchResult[]> {
  const body = (await requestJson('Tavily', new URL(endpoint), {
    signal,
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, max_results: count }),
  })) as { results?: { title?: string; url?: string; content?: string }[] }
  return pages(body.results ?? [], count, (result) => [result.title, result.url, result.content])
}

/** The first `count` results that name a URL, as pages. */
function pages<T>(
  results: T[],
  count: number,
  fields: (result: T) => [title: string | undefined, url: string | undefined, snippet: string | undefined],
): SearchResult[] {
  return results
    .map(fields)
    .filter(([, url]) => typeof url === 'string' && url !== '')
    .slice(0, count)
    .map(([title, url = '', snippet]) => ({
      title: title?.trim() || url,
      url,
      snippet: snippet?.trim() ?? '',
    }))
}

/** The engine's JSON answer; a failure to reach it or a refusal is a ToolError naming the engine. */
async function requestJson(
  engine: string,
  url: URL,
  init: { signal: AbortSignal; headers: Record<string, string>; method?: string; body?: string },
): Promise<unknown> {
  let response: Response
  try {
    response = await fetch(url, {
      ...init,
      headers: { accept: 'application/json', 'user-agent': USER_AGENT, ...init.headers },
      // No cookies, no credentials of the browser kind: the key, where there is one, is in a header.
      credentials: 'omit',
      redirect: 'error',
    })
  } catch (error) {
    if (init.signal.aborted) throw error
    throw new ToolError(
      'execution_failed',
      `${engine} could not be reached at ${url.origin}: ${causeOf(error)}.`,
    )
  }
  if (!response.ok) {
    const hint =
      engine === 'SearXNG' && response.status === 403
        ? ' SearXNG answers JSON only when its settings.yml lists json under search.formats.'
        : response.status === 401 || response.status === 403 || response.status === 422
          ? ' Check the API key in the web_search settings.'
          : ''
    throw new ToolError(
      'execution_failed',
      `${engine} answered ${response.status} ${response.statusText}.${hint}`,
    )
  }
  try {
    return await response.json()
  } catch {
    throw new ToolError('execution_failed', `${engine} answered with something that is not JSON.`)
  }
}

/** Why fetch failed: undici puts the reason (ECONNREFUSED, a TLS error) in the error's cause. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error))
}
