/**
 * An MCP call's idle deadline: the call fails after so long without a sign of life from the server
 * (its progress restarts the clock), but the clock stands still while the call waits on the person
 * (a server's question): how long someone takes to fill in a form is theirs, not the server's.
 */
export class IdleDeadline {
  private readonly controller = new AbortController()
  private timer: ReturnType<typeof setTimeout> | undefined
  private waiting = 0

  constructor(
    private readonly ms: number,
    /** The reason the call fails with when the deadline passes. */
    private readonly expired: () => Error,
  ) {
    this.restart()
  }

  /** Aborted when the deadline passes. */
  get signal(): AbortSignal {
    return this.controller.signal
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
  }
}
