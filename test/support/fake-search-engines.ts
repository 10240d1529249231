/**
 * One local HTTP server that answers as the web_search engines do: a SearXNG instance under
 * `/searxng` (its JSON API), Brave's Web Search API under `/brave`, Tavily's under `/tavily`. It
 * records every request, so a test can check what each engine was asked and with which key.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { SearchEndpoints } from '../../src-main/tools/web-search/search-engines'

export interface RecordedSearch {
  method: string
  /** Path and query, as received. */
  url: string
  headers: IncomingHttpHeaders
  /** The parsed JSON body of a POST; undefined otherwise. */
  body: unknown
}

export interface FakeSearchEngines {
  /** The SearXNG instance's address, as a person would type it. */
  searxngUrl: string
  /** Brave's and Tavily's APIs, for `createAtelier({ searchEndpoints })`. */
  endpoints: SearchEndpoints
  requests: RecordedSearch[]
  /** The status the next answers carry (200 unless set). */
  status: number
  close(): Promise<void>
}

/** The pages every engine finds, in each engine's own shape below. */
export const FOUND = [
  {
    title: 'Node.js fetch',
    url: 'https://nodejs.org/api/globals.html#fetch',
    snippet: 'A browser-compatible fetch.',
  },
  { title: 'undici', url: 'https://undici.nodejs.org/', snippet: 'An HTTP/1.1 client for Node.js.' },
]

export async function startFakeSearchEngines(): Promise<FakeSearchEngines> {
  const requests: RecordedSearch[] = []
  const engines = { status: 200 }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : undefined,
      })
      const path = new URL(req.url ?? '/', 'http://fake').pathname
      const answer = (body: unknown) => {
        res.writeHead(engines.status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(body))
      }
      if (path === '/searxng/search') {
        answer({
          results: FOUND.map(({ title, url, snippet }) => ({ title, url, content: snippet, engine: 'fake' })),
        })
      } else if (path === '/brave/res/v1/web/search') {
        answer({
          type: 'search',
          web: {
            results: FOUND.map(({ title, url, snippet }) => ({
              title,
              url,
              description: `<strong>${snippet}</strong>`,
            })),
          },
        })
      } else if (path === '/tavily/search' && req.method === 'POST') {
        answer({
          query: 'q',
          results: FOUND.map(({ title, url, snippet }) => ({ title, url, content: snippet, score: 0.9 })),
        })
      } else {
        res.writeHead(404).end()
      }
    })
  })
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return Object.assign(engines, {
    searxngUrl: `${base}/searxng`,
    endpoints: { brave: `${base}/brave/res/v1/web/search`, tavily: `${base}/tavily/search` },
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      }),
  })
}
