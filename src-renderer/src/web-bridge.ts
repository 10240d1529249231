/**
 * In a browser (the web host) there is no preload: this client builds the same `window.atelier`
 * over one WebSocket. The access token arrives in the address's fragment (`#token=…`, which no
 * browser sends to a server), moves to this tab's sessionStorage so a reload keeps it, and goes to
 * the host only as a WebSocket subprotocol.
 */
import { type AtelierApi, buildAtelierApi, settle } from '../../src-shared/api'
import type { EventName } from '../../src-shared/contract'
import type { AtelierErrorPayload } from '../../src-shared/errors'
import {
  type ClientMessage,
  isWellFormedToken,
  MAX_REQUEST_BYTES,
  type ServerMessage,
  webSocketProtocols,
} from '../../src-shared/web-protocol'

const TOKEN_KEY = 'atelier.token'

const NO_TOKEN: AtelierErrorPayload = {
  code: 'forbidden',
  message: 'This page has no access token. Open the address `atelier web` printed: it ends in #token=….',
}

const REFUSED: AtelierErrorPayload = {
  code: 'disconnected',
  message:
    'Atelier did not let this page in: it has stopped, or it was restarted with a new token. ' +
    'Open the address `atelier web` printed.',
}

const DISCONNECTED: AtelierErrorPayload = {
  code: 'disconnected',
  message: 'Lost the connection to Atelier. Restart `atelier web` and open the new address it prints.',
}

export function connectWebBridge(url = `ws://${location.host}/api`): Promise<AtelierApi> {
  const token = takeAccessToken()
  if (!token) return Promise.reject(NO_TOKEN)
  const socket = new WebSocket(url, webSocketProtocols(token))
  const pending = new Map<number, (message: Extract<ServerMessage, { type: 'result' }>) => void>()
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>()
  let nextId = 1

  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as ServerMessage
    if (message.type === 'result') {
      pending.get(message.id)?.(message)
      pending.delete(message.id)
    } else {
      for (const listener of listeners.get(message.event) ?? []) listener(message.payload)
    }
  })
  socket.addEventListener('close', () => {
    for (const resolve of pending.values()) resolve({ type: 'result', id: 0, ok: false, error: DISCONNECTED })
    pending.clear()
  })

  const api = buildAtelierApi({
    invoke: (method, request) => {
      if (socket.readyState !== WebSocket.OPEN) return Promise.reject(DISCONNECTED)
      const id = nextId++
      const text = JSON.stringify({ type: 'invoke', id, method, request } satisfies ClientMessage)
      // The host closes the whole connection on a message over its limit; refusing this one call
      // here keeps the page working.
      const oversize = bytesOverLimit(text)
      if (oversize !== undefined) return Promise.reject(tooLarge(oversize))
      return new Promise((resolve) => {
        pending.set(id, resolve)
        socket.send(text)
      }).then((result) => settle(result as Extract<ServerMessage, { type: 'result' }>))
    },
    subscribe: (event, listener) => {
      const set = listeners.get(event) ?? new Set()
      listeners.set(event, set)
      set.add(listener)
      return () => {
        set.delete(listener)
      }
    },
  })

  return new Promise((resolve, reject) => {
    socket.addEventListener('open', () => resolve(api), { once: true })
    socket.addEventListener('error', () => reject(REFUSED), { once: true })
  })
}

/**
 * The token from the fragment when the page was opened with one (a newer host's address wins over
 * the tab's), else the one this tab kept. The fragment leaves the address bar at once, so the token
 * is not in a screenshot, a shared screen or a bookmark made later.
 */
function takeAccessToken(): string | undefined {
  const fromAddress = new URLSearchParams(location.hash.slice(1)).get('token')
  if (fromAddress !== null) {
    history.replaceState(history.state, '', `${location.pathname}${location.search}`)
    if (isWellFormedToken(fromAddress)) sessionStorage.setItem(TOKEN_KEY, fromAddress)
  }
  const kept = sessionStorage.getItem(TOKEN_KEY)
  return kept !== null && isWellFormedToken(kept) ? kept : undefined
}

/**
 * The message's size in bytes when it is over the host's limit. A UTF-16 code unit takes at most
 * 3 bytes in UTF-8, so most messages need no encoding to be known to fit.
 */
function bytesOverLimit(text: string): number | undefined {
  if (text.length * 3 <= MAX_REQUEST_BYTES) return undefined
  const bytes = new TextEncoder().encode(text).length
  return bytes > MAX_REQUEST_BYTES ? bytes : undefined
}

function tooLarge(bytes: number): AtelierErrorPayload {
  const megabytes = (n: number) => `${(n / 1_000_000).toFixed(1)} MB`
  return {
    code: 'validation_failed',
    message: `This request is too large for the web host (${megabytes(bytes)}; at most ${megabytes(MAX_REQUEST_BYTES)}).`,
  }
}
