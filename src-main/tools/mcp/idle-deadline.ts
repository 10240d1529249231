/**
 * An MCP call's idle deadline: the call fails after so long without a sign of life from the server
 * (its progress restarts the clock), but the clock stands still while the call waits on the person
 * (a server's question): how long someone takes to fill in a form is theirs, not the server's.
 *
 * Its signal is the one the call is sent with: it also aborts when the call is stopped. Not an
 * `AbortSignal.any` of the two: the SDK never takes its listener off the signal of a request, and
 * Node keeps a combined signal that has a listener (and all it holds) until it aborts — about 8 KB
 * a call, never freed.
 */
export class IdleDeadline {
  private readonly controller = new AbortController()
  private timer: ReturnType<typeof setTimeout> | undefined
  private waiting = 0

  constructor(
    private readonly ms: number,
    /** The reason the call fails with when the deadline passes. */
    private readonly expired: () => Error,
    /** The call's own stop (the person's, the executor's budget). */
    private readonly stop: AbortSignal,
  ) {
    if (stop.aborted) this.controller.abort(stop.reason)
    else stop.addEventListener('abort', this.stopped, { once: true })
    this.restart()
  }

  /** Aborted when the deadline passes or the call is stopped. */
  get signal(): AbortSignal {
    return this.controller.signal
  }

  private readonly stopped = () => {
    clearTimeout(this.timer)
    this.controller.abort(this.stop.reason)
  }

  /** A sign of life: the clock starts again (unless the person is being asked). */
  restart(): void {
    clearTimeout(this.timer)
    if (this.waiting > 0 || this.controller.signal.aborted) return
    this.timer = setTimeout(() => this.controller.abort(this.expired()), this.ms)
  }

  /** Waits on the person with the clock stopped; it starts afresh once they have answered. */
  async pausedWhile<T>(wait: () => Promise<T>): Promise<T> {
    this.waiting++
    clearTimeout(this.timer)
    try {
      return await wait()
    } finally {
      this.waiting--
      this.restart()
    }
  }

  dispose(): void {
    clearTimeout(this.timer)
    this.stop.removeEventListener('abort', this.stopped)
  }
}
