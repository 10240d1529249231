/** The web host's WebSocket messages: the same contract calls Electron makes over IPC. */
import type { InvokeResult } from './api'
import type { EventName } from './contract'

/** Browser → host: one contract call. The request is validated later, by the dispatcher. */
export interface ClientMessage {
  type: 'invoke'
  id: number
  method: string
  request: unknown
}

/** Host → browser: a call's result (matched by id) or a broadcast event. */
export type ServerMessage =
  | ({ type: 'result'; id: number } & InvokeResult)
  | { type: 'event'; event: EventName; payload: unknown }

export function parseClientMessage(text: string): ClientMessage {
  const message = JSON.parse(text) as Partial<ClientMessage> | null
  if (
    typeof message !== 'object' ||
    message === null ||
    message.type !== 'invoke' ||
    !Number.isSafeInteger(message.id) ||
    typeof message.method !== 'string'
  ) {
    throw new Error('expected {type:"invoke", id, method, request}')
  }
  return message as ClientMessage
}
