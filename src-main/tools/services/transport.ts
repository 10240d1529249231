/**
 * What a tool service's runner needs from a transport, NATS or stdio: send one request, hear its
 * streamed responses, cancel it. Both speak the envelope in src-shared/tool-services.ts.
 */
import type { ServiceRequest } from '../../../src-shared/tool-services'

export interface ServiceCall {
  /** Correlates the request with its responses (a UUID). */
  id: string
  request: ServiceRequest
  /** The person's stop or the call's timeout: the transport sends a cancel and rejects with its reason. */
  signal: AbortSignal
  /** The longest wait for the next response; past it the call fails as `timeout`. */
  inactivityMs: number
  /** Each response before the last, as it arrives (the tool card shows it as progress). */
  onPartial(text: string): void
}

export interface ServiceTransport {
  /**
   * Sends the request and resolves with the `response` strings of every response concatenated, in
   * order. Rejects with a ToolError: `execution_failed` carrying the service's `{type, message}` for
   * an error response, `timeout` after `inactivityMs` of silence, `execution_failed` when the
   * service's process or connection is lost mid-call; with `signal.reason` when the signal aborts.
   */
  call(call: ServiceCall): Promise<string>
}
