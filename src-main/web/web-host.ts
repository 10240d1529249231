import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { type WebSocket, WebSocketServer } from 'ws'
import { errorMessage } from '../../src-shared/errors'
import {
  type ClientMessage,
  MAX_REQUEST_BYTES,
  parseClientMessage,
  type ServerMessage,
  TOKEN_PROTOCOL_PREFIX,
  WEB_PROTOCOL,
} from '../../src-shared/web-protocol'
import type { Atelier } from '../app/create-atelier'
import { contentSecurityPolicy } from './content-security-policy'
import { readStaticFile, staticFileHeaders } from './static-files'

export const LOOPBACK_HOST = '127.0.0.1'
export const SOCKET_PATH = '/api'

/**
 * Open WebSockets at once, one per browser tab: more tabs than a person keeps open, and few enough
 * that the frames the host may be in the middle of reading stay under 160 MB (16 × MAX_REQUEST_BYTES, a
 * prompt with an image each).
 */
export const MAX_CONNECTIONS = 16

/**
 * A connection starts no more requests, and is not read, while this much of its work awaits an
 * answer or the flushing of one: its client waits on TCP instead of the host's memory growing. The
 * renderer's busiest moment (the first screen) makes about ten calls at once, and two requests of
 * the largest size may be in flight — a long playground run and the next prompt.
 */
const MAX_REQUESTS_IN_FLIGHT = 32
const MAX_BYTES_IN_FLIGHT = 2 * MAX_REQUEST_BYTES

/**
 * A client with this much of the events sent to it still unread has stopped reading (a frozen tab, a
 * stuck script); it is dropped instead of being buffered for without end.
 */
const MAX_UNREAD_BYTES = 32 * 1024 * 1024

export interface WebHostOptions {
  atelier: Atelier
  /** The built renderer (`out/renderer`). */
  rendererDir: string
  /** 0 picks a free port. */
  port?: number
}

export interface WebHost {
  /**
   * Open this in a browser. The token is in the fragment, which a browser sends to no server; the
   * page keeps it in its tab's sessionStorage and presents it when it opens the WebSocket.
   */
  url: string
  port: number
  token: string
  close(): Promise<void>
}

/**
 * Serves the built renderer and the contract over one WebSocket, on loopback only. Every request
 * must name exactly our host:port in `Host` and, when present, `Origin` — a page on another origin
 * or a rebound DNS name gets 403. The renderer's files hold no secrets and are served to any such
 * request; the WebSocket, which reaches every service, also needs the token.
 */
export async function startWebHost({ atelier, rendererDir, port = 0 }: WebHostOptions): Promise<WebHost> {
  const secret = randomBytes(32).toString('base64url')
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_REQUEST_BYTES,
    handleProtocols: (offered) => (offered.has(WEB_PROTOCOL) ? WEB_PROTOCOL : false),
  })
  const server = createServer()
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject)
    server.listen(port, LOOPBACK_HOST, () => resolvePromise())
  })
  const boundPort = (server.address() as AddressInfo).port
  const authority = `${LOOPBACK_HOST}:${boundPort}`
  const policy = contentSecurityPolicy({ connect: [`ws://${authority}`] })

  const base = `http://${authority}`
  /** The request's URL when it may be served, or why it may not. Never throws, whatever it is sent. */
  const admit = (request: IncomingMessage): { url: URL } | { refusal: string } => {
    if (request.headers.host !== authority) return { refusal: 'unexpected Host' }
    const origin = request.headers.origin
    if (origin !== undefined && origin !== base) return { refusal: 'foreign Origin' }
    const target = request.url ?? '/'
    if (!URL.canParse(target, base)) return { refusal: 'malformed request target' }
    return { url: new URL(target, base) }
  }

  /** Why a WebSocket handshake may not open the contract, if it may not. */
  const refuseSocket = (request: IncomingMessage): string | undefined => {
    const admitted = admit(request)
    if ('refusal' in admitted) return admitted.refusal
    if (admitted.url.pathname !== SOCKET_PATH) return 'not found'
    if (!offersToken(request, secret)) return 'missing or wrong token'
    return undefined
  }

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const admitted = admit(request)
    if ('refusal' in admitted) return forbid(response, admitted.refusal)
    serveStatic(rendererDir, admitted.url.pathname, response, policy).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
      response.end(`Internal error: ${errorMessage(error)}`)
    })
  })

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node takes its own error listener off a socket it hands to 'upgrade'; a client resetting the
    // connection while it is refused or upgraded would otherwise end the process.
    socket.on('error', () => socket.destroy())
    const refusal = refuseSocket(request)
    if (refusal) return refuseUpgrade(socket, 403, refusal)
    if (sockets.clients.size >= MAX_CONNECTIONS) {
      return refuseUpgrade(socket, 503, `${MAX_CONNECTIONS} connections are open already; close a tab`)
    }
    sockets.handleUpgrade(request, socket, head, (ws) => serveClient(ws, atelier))
  })

  const unsubscribe = atelier.events.subscribe((event, payload) => {
    const message = JSON.stringify({ type: 'event', event, payload } satisfies ServerMessage)
    for (const client of sockets.clients) {
      if (client.bufferedAmount > MAX_UNREAD_BYTES) client.terminate()
      else client.send(message)
    }
  })

  return {
    url: `${base}/#token=${secret}`,
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

/**
 * Answers one tab's contract calls. A request is in flight, with its answer's bytes, until the
 * answer has been handed to the socket. Past the limits, requests wait in arrival order and the
 * socket is not read, so a client that sends faster than it reads is slowed, not dropped; what
 * waits is only what had already arrived when reading stopped.
 */
function serveClient(ws: WebSocket, atelier: Atelier): void {
  const waiting: Buffer[] = []
  const inFlight = { requests: 0, bytes: 0 }
  const hasRoom = () => inFlight.requests < MAX_REQUESTS_IN_FLIGHT && inFlight.bytes <= MAX_BYTES_IN_FLIGHT

  const startWaiting = () => {
    while (waiting.length > 0 && hasRoom() && ws.readyState === ws.OPEN) {
      answer(waiting.shift() as Buffer)
    }
    if (waiting.length > 0) ws.pause()
    else if (ws.isPaused) ws.resume()
  }

  const answer = async (request: Buffer) => {
    inFlight.requests += 1
    inFlight.bytes += request.length
    let message: ClientMessage
    try {
      message = parseClientMessage(request.toString())
    } catch (error) {
      ws.close(1003, errorMessage(error).slice(0, 120))
      return
    }
    const result = await atelier.dispatch(message.method, message.request)
    if (ws.readyState !== ws.OPEN) return
    const reply = JSON.stringify({ type: 'result', id: message.id, ...result } satisfies ServerMessage)
    const replyBytes = Buffer.byteLength(reply)
    inFlight.bytes += replyBytes
    ws.send(reply, () => {
      inFlight.requests -= 1
      inFlight.bytes -= request.length + replyBytes
      startWaiting()
    })
  }

  // ws has already answered the protocol error (bad UTF-8, a reserved opcode, an unmasked or
  // oversized frame) with a close frame and ends the connection; unheard, the error ends the process.
  ws.on('error', () => {})
  ws.on('message', (data) => {
    // Text and binary messages alike arrive as one Buffer (binaryType 'nodebuffer', the default).
    waiting.push(data as Buffer)
    startWaiting()
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
  response.end(`Forbidden (${reason}). Open the URL that \`atelier web\` printed.\n`)
}

function refuseUpgrade(socket: Duplex, status: 403 | 503, reason: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${reason}\n`,
  )
}

/** Whether the handshake offers `atelier.token.<our token>` among its subprotocols. */
function offersToken(request: IncomingMessage, secret: string): boolean {
  return (request.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((protocol) => protocol.trim())
    .some(
      (protocol) =>
        protocol.startsWith(TOKEN_PROTOCOL_PREFIX) &&
        sameSecret(protocol.slice(TOKEN_PROTOCOL_PREFIX.length), secret),
    )
}

/** Constant-time, so the time a refusal takes says nothing about how much of the token was right. */
function sameSecret(presented: string, secret: string): boolean {
  const a = Buffer.from(presented)
  const b = Buffer.from(secret)
  return a.length === b.length && timingSafeEqual(a, b)
}
