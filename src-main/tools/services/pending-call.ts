/**
 * One call to a tool service in flight, whatever the transport (NATS or stdio): its partial
 * responses, the final one, the error convention, the inactivity timeout and the cancel.
 */
import { FATAL_ERROR_TYPE, type ServiceResponse } from '../../../src-shared/tool-services'
import { FatalToolError, ToolError } from '../errors'
import type { ServiceCall } from './transport'

export interface PendingCallHooks {
  /** Sends the cancel (the call timed out, or its signal aborted). */
  cancel(): void
  /** The call is settled: forget it. */
  done(call: PendingServiceCall): void
  log?(message: string): void
}

/**
 * One call in flight, whatever the transport: the responses before the last go to `onPartial`,
 * the last resolves with every `response` concatenated, an error response rejects as
 * `execution_failed` with the service's type and message — or, of type `fatal`, as a FatalToolError
 * that ends the turn (its message kept in the log and shown to the person, never to the model). Silence for `inactivityMs` sends the
 * cancel and rejects as `timeout`; the signal sends the cancel and rejects with its reason. Every
 * path clears the timer and the abort listener and calls `done` once.
 */
export class PendingServiceCall {
  readonly result: Promise<string>
  private resolveResult!: (text: string) => void
  private rejectResult!: (error: unknown) => void
  private readonly chunks: string[] = []
  private timer: NodeJS.Timeout | undefined
  private finished = false

  constructor(
    readonly serviceId: string,
    private readonly call: ServiceCall,
    private readonly hooks: PendingCallHooks,
  ) {
    this.result = new Promise<string>((resolve, reject) => {
      this.resolveResult = resolve
      this.rejectResult = reject
    })
    if (call.signal.aborted) {
      this.settle(call.signal.reason)
      return
    }
    call.signal.addEventListener('abort', this.onAbort, { once: true })
    this.arm()
  }

  get settled(): boolean {
    return this.finished
  }

  receive(response: ServiceResponse): void {
    if (this.finished) return
    if (response.error) {
      const { type, message } = response.error
      if (type === FATAL_ERROR_TYPE) {
        const fatal = `The service ${this.serviceId} reported a fatal error: ${message}`
        this.hooks.log?.(fatal)
        this.settle(new FatalToolError(fatal))
        return
      }
      this.settle(
        new ToolError(
          'execution_failed',
          `The service ${this.serviceId} reported an error (${type}): ${message}`,
        ),
      )
      return
    }
    this.chunks.push(response.response)
    if (response.end_of_stream) {
      this.settle(undefined, this.chunks.join(''))
      return
    }
    this.arm()
    try {
      this.call.onPartial(response.response)
    } catch (error) {
      this.hooks.log?.(`A partial response of ${this.serviceId} could not be shown: ${describe(error)}`)
    }
  }

  /**
   * A message came for this call that cannot be used (see readServiceResponse): the call ends at
   * once, saying what was wrong, rather than waiting out its timeout for a response that will not
   * come in another shape. The cancel tells the service to stop.
   */
  unusable(problem: string): void {
    if (this.finished) return
    this.sendCancel()
    this.settle(
      new ToolError(
        'execution_failed',
        `The service ${this.serviceId} sent a response that cannot be used: ${problem}.`,
      ),
    )
  }

  /** Ends the call with this error (the process or connection is gone); sends no cancel. */
  fail(error: unknown): void {
    if (!this.finished) this.settle(error)
  }

  private readonly onAbort = () => {
    if (this.finished) return
    this.sendCancel()
    this.settle(this.call.signal.reason)
  }

  private arm(): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      if (this.finished) return
      this.sendCancel()
      this.settle(
        new ToolError(
          'timeout',
          `The service ${this.serviceId} sent nothing for ${seconds(this.call.inactivityMs)} s, so the call was cancelled.`,
        ),
      )
    }, this.call.inactivityMs)
  }

  private sendCancel(): void {
    try {
      this.hooks.cancel()
    } catch (error) {
      this.hooks.log?.(`Could not cancel the call ${this.call.id} to ${this.serviceId}: ${describe(error)}`)
    }
  }

  private settle(error: unknown, text?: string): void {
    if (this.finished) return
    this.finished = true
    clearTimeout(this.timer)
    this.call.signal.removeEventListener('abort', this.onAbort)
    this.hooks.done(this)
    if (text !== undefined) this.resolveResult(text)
    else this.rejectResult(error)
  }
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10)
}

/** An error in words, with its cause when that says more (a socket's reason under a client's error). */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause =
    error.cause instanceof Error && error.cause.message !== error.message ? ` (${error.cause.message})` : ''
  return `${error.message}${cause}`
}
