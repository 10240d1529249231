/**
 * The order in which a response's calls run. Calls that only read share the folder and run side by
 * side; any other call — one that edits, executes, reaches the network or does what Atelier cannot
 * tell — runs alone: after every call before it has finished, and before any call after it starts.
 * So a response's calls end as if run one after another in call order, except that reads in a row
 * overlap. (codex orders calls with a read/write lock the same way.)
 *
 * The lock is per turn, not per path: a shell command can touch any path, so finer locks would not
 * be sound, and a turn is the only writer of its chat's folder.
 */
export interface CallSlot {
  /** Resolves when the call may start. */
  ready: Promise<void>
  /** The call is over (or will never run): the calls after it may go on. */
  release(): void
}

export class CallOrder {
  /** When the latest call that runs alone, and everything before it, will have finished. */
  private lastAlone: Promise<unknown> = Promise.resolve()
  /** When each reading call since then will have finished. */
  private readsSince: Promise<unknown>[] = []

  /** A place in line for the next call, taken in call order: `alone` for any call but a read. */
  slot(alone: boolean): CallSlot {
    const after = alone ? Promise.all([this.lastAlone, ...this.readsSince]) : this.lastAlone
    let release = () => {}
    const over = new Promise<void>((done) => {
      release = done
    })
    // Over only once everything it waited for is over too: a call that gives up while it waits
    // (stopped) must not let the calls behind it past the ones before it.
    const finished = Promise.all([after, over])
    if (alone) {
      this.lastAlone = finished
      this.readsSince = []
    } else {
      this.readsSince.push(finished)
    }
    return { ready: after.then(() => undefined), release }
  }
}
