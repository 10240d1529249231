/** The engines behind the web_search tool, as main, the contract and the renderer name them. */

/** The engines `web_search` can use. */
export const SEARCH_ENGINES = ['searxng', 'brave', 'tavily'] as const
export type SearchEngineName = (typeof SEARCH_ENGINES)[number]

/** The engines' names as a person reads them. */
export const SEARCH_ENGINE_TITLES: Record<SearchEngineName, string> = {
  searxng: 'SearXNG',
  brave: 'Brave Search',
  tavily: 'Tavily',
}
