import { createServer as createHttpServer } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { McpManager } from '../../../../src-main/tools/mcp/mcp-manager'
import { MASKED_VALUE } from '../../../../src-shared/secrets'
import { killHard } from '../../../support/fixture-process'
import { recordingProxy, startRemote } from '../../../support/remote-mcp'
import { useToolHarness } from '../../../support/tool-harness'
import { databaseFilesHolding } from './secret-probes'

describe('remote MCP servers', () => {
  const harness = useToolHarness()
  const cleanups: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  it.each([
    ['Streamable HTTP', 'streamableHttp', '/mcp'],
    ['legacy HTTP+SSE (the fallback)', 'sse', '/sse'],
  ] as const)(
    'connects over %s and calls a tool',
    async (_label, mode, path) => {
      const { atelier, run } = harness()
      const remote = await startRemote(mode)
      cleanups.push(() => killHard(remote.child))
      const manager = new McpManager(atelier.tools.registry)
      cleanups.push(() => manager.close())
      const [status] = await manager.prepare([
        {
          id: 'r',
          name: 'remote',
          transport: 'http',
          url: `http://127.0.0.1:${remote.port}${path}`,
          headers: {},
        },
      ])
      expect(status).toMatchObject({ connected: true })
      expect(await run('remote__echo', { message: 'over the wire' })).toMatchObject({
        isError: false,
        content: 'Echo: over the wire',
      })
    },
    30_000,
  )

  it.each([
    [401, /^needs sign-in: the server answered 401 Unauthorized/],
    [403, /^needs sign-in: the server answered 403 Forbidden/],
  ])('says a server that answers %i needs sign-in, and does not fall back to SSE', async (status, said) => {
    const { atelier } = harness()
    const methods: string[] = []
    const server = createHttpServer((incoming, outgoing) => {
      methods.push(`${incoming.method} ${incoming.url}`)
      incoming.resume()
      outgoing.writeHead(status, {
        'Content-Type': 'application/json',
        'WWW-Authenticate':
          'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
      })
      outgoing.end(JSON.stringify({ error: 'invalid_token' }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise((resolve) => server.close(resolve).closeAllConnections()))
    const address = server.address()
    const port = typeof address === 'object' && address ? address.port : 0
    const manager = new McpManager(atelier.tools.registry)
    cleanups.push(() => manager.close())
    const [result] = await manager.prepare([
      { id: 'p', name: 'protected', transport: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {} },
    ])
    expect(result).toMatchObject({ connected: false })
    expect(result?.error).toMatch(said)
    expect(result?.error).not.toMatch(/SSE/)
    // Only Streamable HTTP was tried: no GET for a legacy event stream.
    expect(methods.every((method) => method.startsWith('POST') || method.startsWith('DELETE'))).toBe(true)
  })

  it('sends the configured headers with every request', async () => {
    const { atelier, run } = harness()
    const remote = await startRemote('streamableHttp')
    cleanups.push(() => killHard(remote.child))
    const proxy = await recordingProxy(remote.port)
    cleanups.push(proxy.close)
    const manager = new McpManager(atelier.tools.registry)
    cleanups.push(() => manager.close())
    await manager.prepare([
      {
        id: 'r',
        name: 'remote',
        transport: 'http',
        url: `http://127.0.0.1:${proxy.port}/mcp`,
        headers: { Authorization: 'Bearer s3cret', 'X-Team': 'atelier' },
      },
    ])
    expect(await run('remote__echo', { message: 'hi' })).toMatchObject({ content: 'Echo: hi' })
    expect(proxy.seen.length).toBeGreaterThanOrEqual(3)
    for (const headers of proxy.seen) {
      expect(headers).toMatchObject({ authorization: 'Bearer s3cret', 'x-team': 'atelier' })
    }
  }, 30_000)

  it('keeps an Authorization header out of the listings and the database, and still sends it', async () => {
    const { atelier } = harness()
    const remote = await startRemote('streamableHttp')
    cleanups.push(() => killHard(remote.child))
    const proxy = await recordingProxy(remote.port)
    cleanups.push(proxy.close)
    const announced: string[] = []
    atelier.events.subscribe((event, payload) => {
      if (event === 'mcp.changed') announced.push(JSON.stringify(payload))
    })
    const bearer = 'Bearer remote-0123456789-secret'

    const added = await atelier.dispatch('mcp.add', {
      name: 'remote',
      transport: 'http',
      url: `http://127.0.0.1:${proxy.port}/mcp`,
      headers: { Authorization: bearer, 'X-Team': 'atelier' },
    })
    expect(added).toMatchObject({
      ok: true,
      value: { definition: { headers: { Authorization: MASKED_VALUE, 'X-Team': MASKED_VALUE } } },
    })
    const [status] = await atelier.mcp.prepare()
    expect(status).toMatchObject({ name: 'remote', connected: true })
    expect(proxy.seen.length).toBeGreaterThanOrEqual(2)
    for (const headers of proxy.seen) expect(headers).toMatchObject({ authorization: bearer })

    const listed = await atelier.dispatch('mcp.list', {})
    expect(JSON.stringify([added, listed, ...announced])).not.toContain('remote-0123456789-secret')
    expect(announced.length).toBeGreaterThanOrEqual(2)
    await atelier.close()
    expect(databaseFilesHolding(atelier.dataDir, 'remote-0123456789-secret')).toEqual([])
  }, 30_000)
})
