import { setTimeout as sleep } from 'node:timers/promises'
import type { ProviderStreamEvent } from '../../src-shared/agent'
import { toProviderError } from './provider-error'
import type { ModelRequest, ProviderAdapter } from './types'

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number
  baseDelayMs: number
  maxDelayMs: number
}

/** Four tries over about 7 s, longer when the provider names its own Retry-After (up to a minute). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 4, baseDelayMs: 1000, maxDelayMs: 60_000 }

export interface RetryNotice {
  attempt: number
  delayMs: number
  message: string
}

/**
 * Streams one response, sending the request again after a retryable failure — as long as nothing
 * has reached the caller yet. Once text or a tool call has streamed, a retry would show it twice,
 * so a later failure surfaces instead. Every failure leaves as a ProviderError; an abort as itself.
 */
export async function* streamWithRetry(
  adapter: ProviderAdapter,
  request: ModelRequest,
  signal: AbortSignal,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  onRetry: (notice: RetryNotice) => void = () => {},
): AsyncIterable<ProviderStreamEvent> {
  for (let attempt = 1; ; attempt++) {
    let streamed = false
    try {
      for await (const event of adapter.stream(request, signal)) {
        streamed = true
        yield event
      }
      return
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error
      const failure = toProviderError(adapter.kind, error)
      if (streamed || !failure.retryable || attempt >= policy.attempts) throw failure
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1))
      // Jitter spreads retries of many clients; a Retry-After from the provider wins when longer.
      const delayMs = Math.round(
        Math.max(
          backoff * (0.75 + Math.random() * 0.5),
          Math.min(failure.retryAfterMs ?? 0, policy.maxDelayMs),
        ),
      )
      onRetry({ attempt, delayMs, message: failure.message })
      await sleep(delayMs, undefined, { signal })
    }
  }
}
