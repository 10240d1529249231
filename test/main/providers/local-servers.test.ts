import type { Server } from 'node:http'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { detectLocalServers, loopbackUrl } from '../../../src-main/providers/local-servers'
import {
  closedPort,
  ollamaRoutes,
  portOf,
  type Routes,
  startFakeServer,
  stopServer,
} from '../../support/fake-local-servers'

describe('detectLocalServers', () => {
  const servers: Server[] = []
  afterEach(async () => {
    vi.restoreAllMocks()
    await Promise.all(servers.splice(0).map(stopServer))
  })
  const start = async (routes: Routes, contentType?: string) => {
    const server = await startFakeServer(routes, contentType)
    servers.push(server)
    return portOf(server)
  }

  it('lists the servers that answer, with their models and context lengths, and only those', async () => {
    const ollama = await start(ollamaRoutes(['llama3.2:3b', 'qwen3:8b'], { 'llama3.2:3b': 131072 }))
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

  it('reads no more than a list of models takes, and lists at most 200 models', async () => {
    const many = Array.from({ length: 5000 }, (_, index) => ({ id: `model-${index}` }))
    const listing = await start({ '/v1/models': () => ({ object: 'list', data: many }) })
    const flood = await start({
      '/v1/models': () => ({ data: [{ id: 'x', pad: 'x'.repeat(2 * 1024 * 1024) }] }),
    })

    const found = await detectLocalServers({ vllm: listing, 'llama-cpp': flood })

    expect(found.map(({ server }) => server)).toEqual(['vllm'])
    expect(found[0]?.models).toHaveLength(200)
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
