import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { type WebSocket, WebSocketServer } from 'ws'
import { type ClientMessage, parseClientMessage, type ServerMessage } from '../../src-shared/web-protocol'
import type { Atelier } from '../app/create-atelier'
import { contentSecurityPolicy } from './content-security-policy'
import { readStaticFile, staticFileHeaders } from './static-files'

export const LOOPBACK_HOST = '127.0.0.1'
export const SOCKET_PATH = '/api'

export interface WebHostOptions {
  atelier: Atelier
  /** The built renderer (`out/renderer`). */
  rendererDir: string
  /** 0 picks a free port. */
  port?: number
  /** Fixed only by tests; otherwise 32 random bytes. */
  token?: string
}

export interface WebHost {
  /** Open this in a browser: it carries the token, which is then kept in a cookie. */
  url: string
  port: number
  token: string
  close(): Promise<void>
}

/**
 * Serves the built renderer and the contract over one WebSocket, on loopback only. Every HTTP and
 * WebSocket request needs the token (query or cookie) and must name exactly our host:port in `Host`
 * and, when present, `Origin` — a page on another origin or a rebound DNS name gets 403.
 */
export async function startWebHost({
  atelier,
  rendererDir,
  port = 0,
  token,
}: WebHostOptions): Promise<WebHost> {
  const secret = token ?? randomBytes(32).toString('base64url')
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 })
  const server = createServer()
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject)
    server.listen(port, LOOPBACK_HOST, () => resolvePromise())
  })
  const boundPort = (server.address() as AddressInfo).port
  const authority = `${LOOPBACK_HOST}:${boundPort}`
  const cookieName = `atelier_token_${boundPort}`
  const policy = contentSecurityPolicy({ connect: [`ws://${authority}`] })

  const base = `http://${authority}`
  /** The request's URL when it may be served, or why it may not. Never throws, whatever it is sent. */
  const admit = (request: IncomingMessage): { url: URL } | { refusal: string } => {
    if (request.headers.host !== authority) return { refusal: 'unexpected Host' }
    const origin = request.headers.origin
    if (origin !== undefined && origin !== base) return { refusal: 'foreign Origin' }
    const target = request.url ?? '/'
    if (!URL.canParse(target, base)) return { refusal: 'malformed request target' }
    const url = new URL(target, base)
    const presented = url.searchParams.get('token') ?? readCookie(request, cookieName)
    if (!presented || !sameSecret(presented, secret)) return { refusal: 'missing or wrong token' }
    return { url }
  }

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const admitted = admit(request)
    if ('refusal' in admitted) return forbid(response, admitted.refusal)
    const { url } = admitted
    if (url.searchParams.has('token')) {
      // Keep the token out of the address bar and history; the cookie carries it from here on.
      response.writeHead(302, {
        location: '/',
        'set-cookie': `${cookieName}=${secret}; Path=/; HttpOnly; SameSite=Strict`,
        'cache-control': 'no-store',
      })
      return response.end()
    }
    serveStatic(rendererDir, url.pathname, response, policy).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
      response.end(`Internal error: ${error instanceof Error ? error.message : String(error)}`)
    })
  })

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const admitted = admit(request)
    const refusal =
      'refusal' in admitted ? admitted.refusal : admitted.url.pathname !== SOCKET_PATH && 'not found'
    if (refusal) {
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${refusal}\n`,
      )
      return
    }
    sockets.handleUpgrade(request, socket, head, (ws) => serveClient(ws, atelier))
  })

  const unsubscribe = atelier.events.subscribe((event, payload) => {
    const message = JSON.stringify({ type: 'event', event, payload } satisfies ServerMessage)
    for (const client of sockets.clients) client.send(message)
  })

  return {
    url: `http://${authority}/?token=${secret}`,
    port: boundPort,
    token: secret,
    close: async () => {
      unsubscribe()
      for (const client of sockets.clients) client.terminate()
      sockets.close()
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    },
  }
}

function serveClient(ws: WebSocket, atelier: Atelier): void {
  ws.on('message', async (data) => {
    let message: ClientMessage
    try {
      message = parseClientMessage(data.toString())
    } catch (error) {
      ws.close(1003, error instanceof Error ? error.message.slice(0, 120) : 'malformed message')
      return
    }
    const result = await atelier.dispatch(message.method, message.request)
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'result', id: message.id, ...result }))
  })
}

async function serveStatic(root: string, pathname: string, response: ServerResponse, policy: string) {
  const file = await readStaticFile(root, pathname)
  if (!file) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
    return response.end('Not found')
  }
  response.writeHead(200, staticFileHeaders(file, policy))
  response.end(file.body)
}

function forbid(response: ServerResponse, reason: string): void {
  response.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' })
  response.end(
    `Forbidden (${reason}). Open the URL that \`atelier web\` printed: it carries the access token.\n`,
  )
}

function readCookie(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=')
    if (key === name) return value.join('=')
  }
  return undefined
}

function sameSecret(presented: string, secret: string): boolean {
  const a = Buffer.from(presented)
  const b = Buffer.from(secret)
  return a.length === b.length && timingSafeEqual(a, b)
}
