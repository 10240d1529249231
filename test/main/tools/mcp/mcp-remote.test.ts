import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { McpManager } from '../../../../src-main/tools/mcp/mcp-manager'
import { killHard } from '../../../support/fixture-process'
import { useToolHarness } from '../../../support/tool-harness'

const EVERYTHING = fileURLToPath(
  new URL('../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
)

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

/** The reference server in one of its HTTP modes, resolved once it listens. */
async function startRemote(mode: 'streamableHttp' | 'sse'): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort()
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  await new Promise<void>((resolve, reject) => {
    let said = ''
    const listen = (chunk: Buffer) => {
      said += chunk.toString()
      if (/listening|running/i.test(said)) resolve()
    }
    child.stderr?.on('data', listen)
    child.stdout?.on('data', listen)
    child.once('exit', () => reject(new Error(`server exited: ${said}`)))
  })
  return { child, port }
}

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
})
