/** A remote MCP server for tests: the reference server over HTTP, and a proxy that sees what reaches it. */
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer as createHttpServer, request as forward, type IncomingHttpHeaders } from 'node:http'
import { createServer } from 'node:net'
import { EVERYTHING_SERVER } from './mcp-servers'

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
export async function startRemote(
  mode: 'streamableHttp' | 'sse',
): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort()
  const child = spawn(process.execPath, [EVERYTHING_SERVER, mode], {
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

/** A pass-through proxy in front of `port` that keeps the headers and path of every request it forwards. */
export async function recordingProxy(port: number) {
  const seen: IncomingHttpHeaders[] = []
  const paths: string[] = []
  const proxy = createHttpServer((incoming, outgoing) => {
    seen.push(incoming.headers)
    paths.push(incoming.url ?? '')
    const upstream = forward(
      { port, host: '127.0.0.1', path: incoming.url, method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      },
    )
    incoming.pipe(upstream)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const address = proxy.address()
  return {
    seen,
    paths,
    port: typeof address === 'object' && address ? address.port : 0,
    close: () => new Promise((resolve) => proxy.close(resolve).closeAllConnections()),
  }
}
