/**
 * The calls a service has in flight, whatever the transport: runs `invoke` for each request, turns
 * its result into responses, cancels by id, and ends them all when the service closes.
 */
import type { ServiceResponse } from '../src-shared/tool-services'
import {
  badRequest,
  encodeResult,
  errorResponse,
  isAsyncIterable,
  type ParsedRequest,
  type RequestParse,
} from './envelope'

/** What `invoke` gets besides the request: the call's id, and a signal aborted when it is cancelled. */
export interface InvokeContext {
  /** The request's id (the NATS `id` header, or the stdio line's `id`). */
  id: string
  /** Aborted when a cancel for this id arrives, or when the service closes with the call unfinished. */
  signal: AbortSignal
}

/**
 * A string is the observation; an async iterable of strings streams it (one response per string);
 * anything else is JSON-encoded, as the seed's `json.dumps`.
 */
export type InvokeResult = string | object | AsyncIterable<string>

export type InvokeFunction = (
  user: string,
  config: Record<string, unknown>,
  args: Record<string, unknown>,
  context: InvokeContext,
) => InvokeResult | Promise<InvokeResult>

export type Send = (response: ServiceResponse) => void
export type Log = (message: string) => void

/** The SDK's own messages go to stderr, never stdout (stdout may be the stdio transport's channel). */
export const stderrLog: Log = (message) => {
  try {
    process.stderr.write(`[tool-service] ${message}\n`)
  } catch {
    // Nowhere left to say it.
  }
}

/** The error sent for a call still running when the service closes. */
export const SHUTDOWN_ERROR: ServiceResponse = {
  error: { type: 'unavailable', message: 'The tool service stopped before it finished this call' },
  response: '',
  end_of_stream: true,
}

const ABORTED = Symbol('aborted')

/** `promise`, or ABORTED as soon as the signal aborts (the promise's later outcome is swallowed). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => {})
    return Promise.resolve(ABORTED)
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

interface Call {
  controller: AbortController
  /** False once the final response is sent or the call is cancelled: nothing more goes out for it. */
  open: boolean
  send: Send
  settled: Promise<void>
}

/** How many ids of cancels for calls not (yet) seen are remembered, so a late request is not run. */
const REMEMBERED_CANCELS = 1000

export class CallTable {
  private readonly calls = new Map<string, Call>()
  private readonly earlyCancels = new Set<string>()
  private closed = false

  constructor(
    private readonly invoke: InvokeFunction,
    private readonly log: Log,
  ) {}

  /** How many calls are in flight. */
  get size(): number {
    return this.calls.size
  }

  /**
   * Starts a call: a request that did not parse gets a `bad-request` response; a duplicate of an
   * id in flight, or one already cancelled, is dropped (and logged). Never throws.
   */
  start(id: string, parsed: RequestParse, send: Send): void {
    if (this.closed) {
      this.safeSend(id, send, SHUTDOWN_ERROR)
      return
    }
    if (this.calls.has(id)) {
      this.log(`Ignored a second request with id ${JSON.stringify(id)} while the first is in flight`)
      return
    }
    if (this.earlyCancels.delete(id)) {
      this.log(`Ignored request ${JSON.stringify(id)}: its cancel came first`)
      return
    }
    if (!parsed.ok) {
      this.log(`Bad request ${JSON.stringify(id)}: ${parsed.message}`)
      this.safeSend(id, send, badRequest(parsed.message))
      return
    }
    const call: Call = { controller: new AbortController(), open: true, send, settled: Promise.resolve() }
    this.calls.set(id, call)
    call.settled = this.run(id, call, parsed.request)
      .catch((error: unknown) => this.log(`Call ${JSON.stringify(id)} failed unexpectedly: ${String(error)}`))
      .finally(() => {
        if (this.calls.get(id) === call) this.calls.delete(id)
      })
  }

  /** Cancels a call: its signal aborts and nothing more is sent for it. False if it was not in flight. */
  cancel(id: string): boolean {
    const call = this.calls.get(id)
    if (!call) {
      this.earlyCancels.add(id)
      if (this.earlyCancels.size > REMEMBERED_CANCELS) {
        const oldest = this.earlyCancels.values().next().value
        if (oldest !== undefined) this.earlyCancels.delete(oldest)
      }
      return false
    }
    call.open = false
    this.calls.delete(id)
    call.controller.abort(new DOMException('The call was cancelled', 'AbortError'))
    return true
  }

  /** Settles once no call is in flight (calls started meanwhile are waited for too). */
  async idle(): Promise<void> {
    while (this.calls.size > 0) {
      await Promise.all([...this.calls.values()].map((call) => call.settled))
    }
  }

  /**
   * Refuses new calls, gives the ones in flight `graceMs` to finish, then ends the rest: each gets
   * an `unavailable` error response and its signal aborts.
   */
  async close(graceMs: number): Promise<void> {
    this.closed = true
    if (this.calls.size > 0 && graceMs > 0) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        this.idle(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, graceMs)
        }),
      ])
      clearTimeout(timer)
    }
    for (const [id, call] of [...this.calls]) {
      if (call.open) this.safeSend(id, call.send, SHUTDOWN_ERROR)
      call.open = false
      this.calls.delete(id)
      call.controller.abort(new DOMException('The tool service is closing', 'AbortError'))
    }
  }

  private safeSend(id: string, send: Send, response: ServiceResponse): void {
    try {
      send(response)
    } catch (error) {
      this.log(`Could not send a response for ${JSON.stringify(id)}: ${String(error)}`)
    }
  }

  private async run(id: string, call: Call, request: ParsedRequest): Promise<void> {
    const { signal } = call.controller
    const emit = (response: ServiceResponse) => {
      if (!call.open) return
      if (response.end_of_stream) call.open = false
      this.safeSend(id, call.send, response)
    }
    try {
      const result = await untilAborted(
        Promise.resolve().then(() => this.invoke(request.user, request.config, request.args, { id, signal })),
        signal,
      )
      if (result === ABORTED) return
      if (isAsyncIterable(result)) await this.stream(result, signal, emit)
      else emit({ error: null, response: encodeResult(result), end_of_stream: true })
    } catch (error) {
      emit(errorResponse(error))
    }
  }

  /**
   * One response per item (`end_of_stream: false`), then a final empty one with `end_of_stream:
   * true`. On cancel the iterator is told to stop (`return()`) and nothing more is sent.
   */
  private async stream(iterable: AsyncIterable<unknown>, signal: AbortSignal, emit: Send): Promise<void> {
    const iterator = iterable[Symbol.asyncIterator]()
    let exhausted = false
    try {
      for (;;) {
        let next: IteratorResult<unknown> | typeof ABORTED
        try {
          next = await untilAborted(iterator.next(), signal)
        } catch (error) {
          exhausted = true
          throw error
        }
        if (next === ABORTED) return
        if (next.done) {
          exhausted = true
          break
        }
        emit({ error: null, response: encodeResult(next.value), end_of_stream: false })
      }
    } finally {
      if (!exhausted) this.stopIterator(iterator)
    }
    emit({ error: null, response: '', end_of_stream: true })
  }

  /** Asks an iterator to finish (its `finally` blocks run) without waiting on it. */
  private stopIterator(iterator: AsyncIterator<unknown>): void {
    try {
      const returned = iterator.return?.()
      returned?.catch((error: unknown) => this.log(`A stream failed while stopping: ${String(error)}`))
    } catch (error) {
      this.log(`A stream failed while stopping: ${String(error)}`)
    }
  }
}
