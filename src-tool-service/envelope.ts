/**
 * The SDK's side of the wire envelope (src-shared/tool-services.ts): reading a request, and turning
 * what `invoke` returned or threw into response bodies.
 */
import type { ServiceResponse } from '../src-shared/tool-services'

/** A request as `invoke` receives it: `config` and `arguments` parsed. */
export interface ParsedRequest {
  user: string
  config: Record<string, unknown>
  args: Record<string, unknown>
}

export type RequestParse = { ok: true; request: ParsedRequest } | { ok: false; message: string }

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * `config` or `arguments`: JSON text holding an object. Absent or `""` reads as `{}` (the seed's
 * schema defaults both to `""`); anything else that is not an object's JSON is refused.
 */
function parseJsonObjectField(body: Record<string, unknown>, field: 'config' | 'arguments'): unknown {
  const text = body[field]
  if (text === undefined || text === '') return {}
  if (typeof text !== 'string') return new Error(`\`${field}\` must be a string of JSON, not ${typeOf(text)}`)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return new Error(`\`${field}\` is not valid JSON`)
  }
  if (!isPlainObject(value)) return new Error(`\`${field}\` must encode a JSON object, not ${typeOf(value)}`)
  return value
}

function typeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return `a ${typeof value}`
}

/** Checks a request body already parsed from JSON (a NATS body, or a stdio line minus its id). */
export function parseRequestBody(body: unknown): RequestParse {
  if (!isPlainObject(body))
    return { ok: false, message: `The request must be a JSON object, not ${typeOf(body)}` }
  const user = body.user ?? ''
  if (typeof user !== 'string')
    return { ok: false, message: `\`user\` must be a string, not ${typeOf(user)}` }
  const config = parseJsonObjectField(body, 'config')
  if (config instanceof Error) return { ok: false, message: config.message }
  const args = parseJsonObjectField(body, 'arguments')
  if (args instanceof Error) return { ok: false, message: args.message }
  return {
    ok: true,
    request: { user, config: config as Record<string, unknown>, args: args as Record<string, unknown> },
  }
}

/** Checks a request body as text (a NATS message). */
export function parseRequestText(text: string): RequestParse {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return { ok: false, message: 'The request is not valid JSON' }
  }
  return parseRequestBody(body)
}

export function badRequest(message: string): ServiceResponse {
  return { error: { type: 'bad-request', message }, response: '', end_of_stream: true }
}

/**
 * A thrown value as the error convention has it: `type` is the thrown object's own string `type`
 * (ToolServiceError sets one), else `"error"`; `message` its message, else its text.
 */
export function errorResponse(thrown: unknown): ServiceResponse {
  let type = 'error'
  let message: string
  if (typeof thrown === 'object' && thrown !== null) {
    const record = thrown as { type?: unknown; message?: unknown }
    if (typeof record.type === 'string' && record.type !== '') type = record.type
    message = typeof record.message === 'string' ? record.message : safeString(thrown)
  } else {
    message = safeString(thrown)
  }
  return { error: { type, message: message || type }, response: '', end_of_stream: true }
}

function safeString(value: unknown): string {
  try {
    return String(value)
  } catch {
    return 'error'
  }
}

/** A finished (non-streamed) result as the observation: strings as they are, anything else as JSON. */
export function encodeResult(result: unknown): string {
  if (typeof result === 'string') return result
  if (result === undefined) return ''
  const text = JSON.stringify(result)
  // JSON.stringify gives undefined for a function or symbol: there is nothing to say.
  return text ?? ''
}

export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  )
}

/** NATS header values may not hold CR or LF (the client throws): each run of them becomes a space. */
export function sanitizeHeaderValue(value: string): string {
  return value.replace(/[\r\n]+/g, ' ')
}
