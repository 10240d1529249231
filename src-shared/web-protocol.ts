/** The web host's WebSocket messages: the same contract calls Electron makes over IPC. */
import type { InvokeResult } from './api'
import { MAX_MESSAGE_IMAGE_BYTES } from './attachments'
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

/**
 * The subprotocol the host answers with. A browser that offers subprotocols fails a handshake whose
 * answer names none of them, so every client offers this one beside its token — and the host never
 * has to echo the token back.
 */
export const WEB_PROTOCOL = 'atelier'

/**
 * The access token travels as a second offered subprotocol, `atelier.token.<token>`: it is the one
 * handshake header a page may set, and it goes only to the host the socket opens (a cookie would go
 * to every server on 127.0.0.1, whatever its port).
 */
export const TOKEN_PROTOCOL_PREFIX = 'atelier.token.'

/**
 * The host's tokens are base64url. Those characters are all legal in a subprotocol (an HTTP
 * `token`), so the token needs no encoding; anything else is not a token of ours.
 */
export function isWellFormedToken(token: string): boolean {
  return /^[\w-]{1,256}$/.test(token)
}

/** What a client offers in `Sec-WebSocket-Protocol` to be let in. */
export function webSocketProtocols(token: string): string[] {
  return [WEB_PROTOCOL, `${TOKEN_PROTOCOL_PREFIX}${token}`]
}

/**
 * The largest message the host reads (its WebSocket `maxPayload`); a larger one closes the
 * connection with 1009, so the browser's bridge refuses to send one. The contract's longest strings
 * (a prompt, a tool call's arguments, an imported `mcpServers` file) hold 1,000,000 UTF-16 code
 * units. In any real text each unit costs at most 3 bytes as UTF-8 in JSON: CJK is 3, an astral
 * character 4 bytes for its 2 units, and quotes, backslashes, tabs and newlines escape in 2. Only
 * control characters without a short escape (`\u0001`, 6 bytes) cost more. 64 KiB more covers the
 * envelope and a request's other, short fields. A prompt may also carry images, at most
 * MAX_MESSAGE_IMAGE_BYTES of them, as base64 (4 bytes for 3). One exception: an imported chat file
 * (checked outside the schema, up to 64 MiB) is refused here past this size, with a message saying so.
 */
export const MAX_REQUEST_BYTES = 3 * 1_000_000 + Math.ceil(MAX_MESSAGE_IMAGE_BYTES / 3) * 4 + 64 * 1024

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
