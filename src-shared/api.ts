/**
 * Builds `window.atelier` from the contract. The preload builds it over Electron IPC and the web
 * client over a WebSocket; both hand in a transport, so the renderer cannot tell them apart.
 */
import {
  type EventName,
  type EventPayload,
  eventNames,
  type MethodName,
  type MethodRequest,
  type MethodResponse,
  methodNames,
} from './contract'
import type { AtelierErrorPayload } from './errors'

export type Unsubscribe = () => void

/** What crosses the boundary for every call: a value, or an error payload — never a bare message. */
export type InvokeResult = { ok: true; value: unknown } | { ok: false; error: AtelierErrorPayload }

/** Unwraps a result for the renderer: the value, or a rejection with the `{ code, message, data }` payload. */
export function settle(result: InvokeResult): Promise<unknown> {
  return result.ok ? Promise.resolve(result.value) : Promise.reject(result.error)
}

/** What a process boundary must provide. `invoke` rejects with an `AtelierErrorPayload`. */
export interface AtelierTransport {
  invoke(method: MethodName, request: unknown): Promise<unknown>
  subscribe(event: EventName, listener: (payload: unknown) => void): Unsubscribe
}

type Namespace = MethodName extends `${infer N}.${string}` ? N : never

/** A request whose fields are all optional may be left out: `api.chats.create()`. */
type MethodFunction<M extends MethodName> =
  Partial<Record<never, never>> extends MethodRequest<M>
    ? (request?: MethodRequest<M>) => Promise<MethodResponse<M>>
    : (request: MethodRequest<M>) => Promise<MethodResponse<M>>

type NamespaceApi<N extends string> = {
  [M in MethodName as M extends `${N}.${infer Action}` ? Action : never]: MethodFunction<M>
} & {
  [E in EventName as E extends `${N}.${infer Event}` ? `on${Capitalize<Event>}` : never]: (
    listener: (payload: EventPayload<E>) => void,
  ) => Unsubscribe
}

/** The renderer's whole view of the main process. */
export type AtelierApi = { [N in Namespace]: NamespaceApi<N> }

function split(name: string): [namespace: string, member: string] {
  const dot = name.indexOf('.')
  return [name.slice(0, dot), name.slice(dot + 1)]
}

export function buildAtelierApi(transport: AtelierTransport): AtelierApi {
  const api: Record<string, Record<string, unknown>> = {}
  const namespace = (name: string) => {
    api[name] ??= {}
    return api[name]
  }
  for (const method of methodNames) {
    const [ns, action] = split(method)
    namespace(ns)[action] = (request: unknown = {}) => transport.invoke(method, request)
  }
  for (const event of eventNames) {
    const [ns, name] = split(event)
    namespace(ns)[`on${name[0]?.toUpperCase()}${name.slice(1)}`] = (listener: (payload: unknown) => void) =>
      transport.subscribe(event, listener)
  }
  return api as unknown as AtelierApi
}
