import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { ListResourcesRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { McpConnection, PAGE_LIMIT } from '../../../../src-main/tools/mcp/mcp-connection'

/** A server whose listings never end: every page names a next one (`cursor` picks which). */
async function endlessServer(cursor: (page: number) => string) {
  let requests = 0
  const build = () => {
    const server = new Server(
      { name: 'endless', version: '1.0.0' },
      { capabilities: { resources: {}, tools: {} } },
    )
    server.setRequestHandler(ListResourcesRequestSchema, async () => {
      const page = requests++
      return { resources: [{ uri: `note://${page}`, name: `note-${page}` }], nextCursor: cursor(page) }
    })
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      const page = requests++
      return {
        tools: [{ name: `tool_${page}`, inputSchema: { type: 'object' as const } }],
        nextCursor: cursor(page),
      }
    })
    return server
  }
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined
    const id = req.headers['mcp-session-id']
    const existing = typeof id === 'string' ? sessions.get(id) : undefined
    if (existing) return existing.handleRequest(req, res, body)
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (session) => {
        sessions.set(session, transport)
      },
    })
    await build().connect(transport)
    await transport.handleRequest(req, res, body)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests: () => requests,
    reset: () => {
      requests = 0
    },
    close: async () => {
      for (const transport of sessions.values()) await transport.close()
      await new Promise((resolve) => http.close(resolve).closeAllConnections())
    },
  }
}

describe('listings that page forever', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  async function connect(cursor: (page: number) => string) {
    const server = await endlessServer(cursor)
    cleanups.push(server.close)
    const connection = new McpConnection({
      id: 'e',
      name: 'endless',
      transport: 'http',
      url: server.url,
      headers: {},
    })
    cleanups.push(() => connection.close())
    return { server, connection }
  }

  it('stops when the server sends back a cursor it already sent', async () => {
    const { server, connection } = await connect(() => 'again')
    const resources = await connection.listResources()
    expect(resources.map((resource) => resource.name)).toEqual(['note-0', 'note-1'])
    server.reset()
    expect((await connection.listTools()).map((tool) => tool.name)).toEqual(['tool_0', 'tool_1'])
  })

  it(`stops after ${PAGE_LIMIT} pages when every cursor is new`, async () => {
    const { server, connection } = await connect((page) => `page-${page + 1}`)
    const resources = await connection.listResources()
    expect(resources).toHaveLength(PAGE_LIMIT)
    expect(server.requests()).toBe(PAGE_LIMIT)
    server.reset()
    expect(await connection.listTools()).toHaveLength(PAGE_LIMIT)
    expect(server.requests()).toBe(PAGE_LIMIT)
  })
})
