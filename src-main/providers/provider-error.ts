/**
 * Every SDK's failure as one typed error: a stable code, the HTTP status when there was one, and
 * whether trying again may help. The turn loop decides on `retryable`; the person reads `message`.
 */
import type { ProviderKind } from '../../src-shared/agent'
import { AtelierError, errorBrand, errorMessage, type ProviderErrorCode } from '../../src-shared/errors'
import { providerMessage } from '../../src-shared/providers'

export interface ProviderErrorOptions {
  /** The model's context window, when the refusal named it. */
  limitTokens?: number
}

const PROVIDER_NAMES: Record<ProviderKind, string> = {
  'openai-responses': 'OpenAI',
  'openai-chat': 'The OpenAI-compatible server',
  gemini: 'Gemini',
  anthropic: 'Anthropic',
}

/** Statuses worth a second try: timeouts, conflicts, rate limits and server trouble. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500
}

const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET'])

const PROVIDER_ERROR = errorBrand('ProviderError')

export class ProviderError extends AtelierError {
  override readonly name = 'ProviderError'
  declare readonly code: ProviderErrorCode
  /** A context overflow's window as the provider stated it ("maximum context length is N tokens"). */
  readonly limitTokens?: number

  constructor(
    code: ProviderErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** What the provider asked for in Retry-After, when it did. */
    readonly retryAfterMs?: number,
    options: ProviderErrorOptions = {},
  ) {
    const { limitTokens } = options
    super(
      code,
      message,
      status === undefined && limitTokens === undefined
        ? undefined
        : { ...(status !== undefined && { status }), ...(limitTokens !== undefined && { limitTokens }) },
    )
    if (limitTokens !== undefined) this.limitTokens = limitTokens
    PROVIDER_ERROR.mark(this)
  }

  static override isInstance(value: unknown): value is ProviderError {
    return PROVIDER_ERROR.is(value)
  }
}

/** The request was refused as longer than the model's context window: compact it, then try again. */
export function isContextOverflow(error: unknown): error is ProviderError {
  return ProviderError.isInstance(error) && error.code === 'provider_context_overflow'
}

/** Reads an SDK error (or a network failure under it) as a ProviderError. */
export function toProviderError(kind: ProviderKind, error: unknown): ProviderError {
  if (ProviderError.isInstance(error)) return error
  const who = PROVIDER_NAMES[kind]
  const status = statusOf(error)
  const detail = describe(error)
  const overflow = status === 401 || status === 403 || status === 429 ? undefined : contextOverflowOf(error)
  if (overflow) {
    const { limitTokens } = overflow
    const window = limitTokens === undefined ? '' : ` (${limitTokens} tokens)`
    return new ProviderError(
      'provider_context_overflow',
      `${who}'s model refused the request as longer than its context window${window}: ${detail}`,
      false,
      status,
      undefined,
      limitTokens === undefined ? {} : { limitTokens },
    )
  }
  if (status === undefined) {
    if (isConnectionFailure(error)) {
      return new ProviderError('provider_connection', `${who} could not be reached: ${detail}`, true)
    }
    return providerFailure(kind, detail)
  }
  const retryAfterMs = retryAfterOf(error)
  // The provider's own words lead (the first thing the person reads), who said them and why follow.
  const said = (situation: string) =>
    providerMessage(`${wordsOf(error, status)} (${status})`, `${who} ${situation}`)
  if (status === 429) {
    return new ProviderError(
      'provider_rate_limited',
      said('is rate limiting requests.'),
      true,
      status,
      retryAfterMs,
    )
  }
  if (status === 401 || status === 403) {
    return new ProviderError('provider_auth', said('refused the API key.'), false, status)
  }
  if (isRetryableStatus(status)) {
    return new ProviderError(
      'provider_unavailable',
      said('answered with an error of its own.'),
      true,
      status,
      retryAfterMs,
    )
  }
  return new ProviderError('provider_rejected', said('rejected the request.'), false, status)
}

/**
 * A failure the provider's answer itself shows (a stream cut short, a response without what was
 * asked for): nothing says a second try would go better.
 */
export function providerFailure(kind: ProviderKind, detail: string): ProviderError {
  return new ProviderError('provider_error', `${PROVIDER_NAMES[kind]} failed: ${detail}`, false)
}

/** The stream stopped before the response said it was complete: a proxy or the server cut it short. */
export function streamEndedEarly(kind: ProviderKind): ProviderError {
  return providerFailure(kind, 'The response stream ended before the response was complete.')
}

/**
 * How each server words a request longer than the context window, and where it states the window.
 * Confirmed in public reports (GitHub issues, error bodies quoted verbatim):
 * - OpenAI Chat Completions, vLLM, OpenRouter: "This model's (endpoint's) maximum context length is
 *   N tokens. However, …" (OpenAI with code `context_length_exceeded`, vLLM with type BadRequestError).
 * - OpenAI Responses: code `context_length_exceeded`, "Your input exceeds the context window of this
 *   model…" (no figure), as an HTTP 400 or, streaming, as an `error` / `response.failed` event.
 * - Anthropic: invalid_request_error "prompt is too long: N tokens > M maximum", and the older
 *   "input length and `max_tokens` exceed context limit: N + K > M".
 * - Gemini: INVALID_ARGUMENT "The input token count (N) exceeds the maximum number of tokens allowed (M)."
 * - llama.cpp server: type `exceed_context_size_error` with `n_ctx`, "the request exceeds the available
 *   context size…" or "request (N tokens) exceeds the available context size (M tokens)…".
 * - LM Studio: "Trying to keep the first N tokens when context the overflows. However, the model is
 *   loaded with context length of only M tokens…", or "Cannot truncate prompt with n_keep (N) >= n_ctx (M)".
 * - Ollama (which truncates unless told not to): "the input length exceeds the context length",
 *   "the prompt is longer than the context length…".
 */
const OVERFLOW_PATTERNS: readonly RegExp[] = [
  /maximum context length is ([\d,]+) tokens/i,
  /prompt is too long: [\d,]+ tokens > ([\d,]+) maximum/i,
  /exceed context limit: [\d,]+ \+ [\d,]+ > ([\d,]+)/i,
  /input token count \(?[\d,]+\)? exceeds the maximum number of tokens allowed \(?([\d,]+)\)?/i,
  /exceeds the available context size \(([\d,]+) tokens\)/i,
  /context length of only ([\d,]+) tokens/i,
  /n_keep \(?[\d,]+\)? >= n_ctx \(?([\d,]+)\)?/i,
  /exceeds the available context size/i,
  /exceeds the context window/i,
  /input length exceeds the context length/i,
  /prompt is longer than the context length/i,
]

const OVERFLOW_CODES = new Set(['context_length_exceeded', 'exceed_context_size_error'])

/** Whether the error says the request outgrew the context window, and the window when it names it. */
function contextOverflowOf(error: unknown): { limitTokens?: number } | undefined {
  // The openai SDK keeps the body's `error` object (code, type, llama.cpp's n_ctx) on the error.
  const body = (error as { error?: unknown } | null)?.error
  const fields = [error, typeof body === 'object' && body !== null ? body : undefined]
  const codes = fields.flatMap((field) => {
    const { code, type } = (field ?? {}) as { code?: unknown; type?: unknown }
    return [code, type].filter((value): value is string => typeof value === 'string')
  })
  const nCtx = (fields[1] as { n_ctx?: unknown } | undefined)?.n_ctx
  const text = errorMessage(error)
  const match = OVERFLOW_PATTERNS.map((pattern) => pattern.exec(text)).find((found) => found !== null)
  if (!match && !codes.some((code) => OVERFLOW_CODES.has(code))) return undefined
  const stated = match?.[1] === undefined ? undefined : Number(match[1].replace(/,/g, ''))
  const limitTokens = [stated, nCtx].find(
    (value): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0,
  )
  return limitTokens === undefined ? {} : { limitTokens }
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status
  return typeof status === 'number' && status >= 100 ? status : undefined
}

function retryAfterOf(error: unknown): number | undefined {
  const headers = (error as { headers?: unknown }).headers
  const value = headers instanceof Headers ? headers.get('retry-after') : undefined
  if (!value) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

/** A reset, refused or dropped connection, however deep the SDK wrapped it. */
function isConnectionFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { name, code, message } = current as { name?: string; code?: string; message?: string }
    if (name === 'APIConnectionError' || name === 'APIConnectionTimeoutError') return true
    if (code && CONNECTION_CODES.has(code)) return true
    if (
      typeof message === 'string' &&
      /fetch failed|terminated|socket hang up|other side closed|premature close/i.test(message)
    ) {
      return true
    }
    current = (current as { cause?: unknown }).cause
  }
  return false
}

function describe(error: unknown): string {
  return oneLine(errorMessage(error)) || 'no details'
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > 500 ? `${line.slice(0, 500)}…` : line
}

/**
 * What the provider said, without the SDK's wrapping: the error body's `message` (the openai SDK
 * keeps the body's `error` object, Anthropic's the whole body, Gemini's SDK puts the body's JSON in
 * its message), else the SDK's message without the status it starts with.
 */
function wordsOf(error: unknown, status: number): string {
  const body = (error as { error?: unknown } | null)?.error
  const fromBody = messageIn(body) ?? messageIn((body as { error?: unknown } | undefined)?.error)
  if (fromBody) return oneLine(fromBody)
  const text = errorMessage(error).trim()
  const withoutStatus = text.startsWith(String(status)) ? text.slice(String(status).length).trim() : text
  try {
    const parsed = JSON.parse(withoutStatus) as { error?: unknown }
    const inJson =
      messageIn(parsed.error) ?? messageIn((parsed.error as { error?: unknown } | undefined)?.error)
    if (inJson) return oneLine(inJson)
  } catch {
    // Not JSON: the words as they are.
  }
  return oneLine(withoutStatus) || 'no details'
}

function messageIn(value: unknown): string | undefined {
  const message = (value as { message?: unknown } | null | undefined)?.message
  return typeof message === 'string' && message.trim() ? message : undefined
}
