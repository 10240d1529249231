/**
 * Every SDK's failure as one typed error: a stable code, the HTTP status when there was one, and
 * whether trying again may help. The turn loop decides on `retryable`; the person reads `message`.
 */
import type { ProviderKind } from '../../src-shared/agent'
import { AtelierError, errorBrand } from '../../src-shared/errors'

export type ProviderErrorCode =
  | 'provider_rate_limited'
  | 'provider_unavailable'
  | 'provider_auth'
  | 'provider_rejected'
  | 'provider_context_overflow'
  | 'provider_connection'
  | 'provider_error'

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

  constructor(
    code: ProviderErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** What the provider asked for in Retry-After, when it did. */
    readonly retryAfterMs?: number,
  ) {
    super(code, message, status === undefined ? undefined : { status })
    PROVIDER_ERROR.mark(this)
  }

  static override isInstance(value: unknown): value is ProviderError {
    return PROVIDER_ERROR.is(value)
  }
}

/** Reads an SDK error (or a network failure under it) as a ProviderError. */
export function toProviderError(kind: ProviderKind, error: unknown): ProviderError {
  if (ProviderError.isInstance(error)) return error
  const who = PROVIDER_NAMES[kind]
  const status = statusOf(error)
  const detail = describe(error)
  if (status === undefined) {
    if (isConnectionFailure(error)) {
      return new ProviderError('provider_connection', `${who} could not be reached: ${detail}`, true)
    }
    return new ProviderError('provider_error', `${who} failed: ${detail}`, false)
  }
  const retryAfterMs = retryAfterOf(error)
  if (status === 429) {
    return new ProviderError(
      'provider_rate_limited',
      `${who} is rate limiting requests (429): ${detail}`,
      true,
      status,
      retryAfterMs,
    )
  }
  if (status === 401 || status === 403) {
    return new ProviderError(
      'provider_auth',
      `${who} refused the API key (${status}): ${detail}`,
      false,
      status,
    )
  }
  if (isRetryableStatus(status)) {
    return new ProviderError(
      'provider_unavailable',
      `${who} answered ${status}: ${detail}`,
      true,
      status,
      retryAfterMs,
    )
  }
  return new ProviderError(
    'provider_rejected',
    `${who} rejected the request (${status}): ${detail}`,
    false,
    status,
  )
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
  const message = error instanceof Error ? error.message : String(error)
  const oneLine = message.replace(/\s+/g, ' ').trim()
  return oneLine.length > 500 ? `${oneLine.slice(0, 500)}…` : oneLine || 'no details'
}

/** A refusal of the request as longer than the model's context window. */
export function isContextOverflow(error: unknown): error is ProviderError {
  return ProviderError.isInstance(error) && error.code === 'provider_context_overflow'
}
