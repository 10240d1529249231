import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { detectLocalServers, loopbackUrl } from '../../../src-main/providers/local-servers'

type Routes = Record<string, (body: string) => unknown>

/** A real HTTP server on a free loopback port answering JSON by path; anything else is a 404. */
async function fakeServer(routes: Routes, contentType = 'application/json'): Promise<Server> {
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      const route = routes[request.url ?? '']
      if (!route) return response.writeHead(404).end()
      const answer = route(body)
      response.writeHead(200, { 'content-type': contentType })
      response.end(typeof answer === 'string' ? answer : JSON.stringify(answer))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

const portOf = (server: Server) => (server.address() as AddressInfo).port

/** A port nothing listens on: one just freed. */
async function closedPort(): Promise<number> {
  const server = await fakeServer({})
  const port = portOf(server)
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('detectLocalServers', () => {
  const servers: Server[] = []
  afterEach(async () => {
    vi.restoreAllMocks()
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
  })
  const start = async (routes: Routes, contentType?: string) => {
    const server = await fakeServer(routes, contentType)
    servers.push(server)
    return portOf(server)
  }

  it('lists the servers that answer, with their models and context lengths, and only those', async () => {
    const ollama = await start({
      '/api/tags': () => ({ models: [{ name: 'llama3.2:3b', size: 1 }, { name: 'qwen3:8b' }] }),
      '/api/show': (body) =>
        JSON.parse(body).model === 'llama3.2:3b' ? { model_info: { 'llama.context_length': 131072 } } : {},
    })
    const vllm = await start({
      '/v1/models': () => ({ object: 'list', data: [{ id: 'Qwen/Qwen3-8B', max_model_len: 32768 }] }),
    })
    // A web page on llama.cpp's port is not a model server.
    const page = await start({ '/v1/models': () => '<html>hello</html>' }, 'text/html')

    const found = await detectLocalServers({
      ollama,
      vllm,
      'llama-cpp': page,
      'lm-studio': await closedPort(),
    })

    expect(found).toEqual([
      {
        server: 'ollama',
        name: 'Ollama',
        baseUrl: `http://127.0.0.1:${ollama}/v1`,
        models: [{ id: 'llama3.2:3b', contextLength: 131072 }, { id: 'qwen3:8b' }],
      },
      {
        server: 'vllm',
        name: 'vLLM',
        baseUrl: `http://127.0.0.1:${vllm}/v1`,
        models: [{ id: 'Qwen/Qwen3-8B', contextLength: 32768 }],
      },
    ])
  })

  it('probes 127.0.0.1 and nothing else', async () => {
    const fetched: string[] = []
    const realFetch = globalThis.fetch
    vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      fetched.push(String(input))
      return realFetch(input, init)
    })
    await detectLocalServers(
      { ollama: await closedPort(), vllm: await closedPort(), 'llama-cpp': await closedPort() },
      500,
    )
    expect(fetched).toHaveLength(4)
    for (const url of fetched) expect(new URL(url).hostname).toBe('127.0.0.1')
  })
})

describe('loopbackUrl', () => {
  it('builds only 127.0.0.1 addresses and refuses what is not a port', () => {
    expect(loopbackUrl(11434, '/api/tags')).toBe('http://127.0.0.1:11434/api/tags')
    for (const port of [0, 65_536, 1.5, Number.NaN]) expect(() => loopbackUrl(port, '/v1/models')).toThrow()
  })
})
