/**
 * In a browser (the web host) there is no preload: this client builds the same `window.atelier`
 * over one WebSocket. The token travels in the cookie the host set when the page was opened.
 */
import { type AtelierApi, buildAtelierApi, settle } from '../../src-shared/api'
import type { EventName } from '../../src-shared/contract'
import type { AtelierErrorPayload } from '../../src-shared/errors'
import type { ClientMessage, ServerMessage } from '../../src-shared/web-protocol'

const DISCONNECTED: AtelierErrorPayload = {
  code: 'disconnected',
  message: 'Lost the connection to Atelier. Restart `atelier web` and open the new address it prints.',
}

export function connectWebBridge(url = `ws://${location.host}/api`): Promise<AtelierApi> {
  const socket = new WebSocket(url)
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
      const message: ClientMessage = { type: 'invoke', id, method, request }
      return new Promise((resolve) => {
        pending.set(id, resolve)
        socket.send(JSON.stringify(message))
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
    socket.addEventListener('error', () => reject(DISCONNECTED), { once: true })
  })
}
