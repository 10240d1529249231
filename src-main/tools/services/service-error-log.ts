/**
 * The latest failures of each tool service, and of the broker connection, kept for the panel: a
 * bad response, a process that died, an announcement or a tool that did not fit.
 */

/** How many failures each service keeps for the panel. */
const KEPT_ERRORS = 10

export class ServiceErrorLog {
  private readonly errors = new Map<string, string[]>()

  constructor(
    private readonly now: () => number,
    /** A failure was kept: the panel follows. */
    private readonly onRecord: () => void,
  ) {}

  /** Keeps a failure of `id` (a service's id, or `BROKER_LOG`), timestamped; the oldest beyond ten go. */
  record(id: string, message: string): void {
    const kept = [...(this.errors.get(id) ?? []), `${new Date(this.now()).toISOString()} ${message}`]
    this.errors.set(id, kept.slice(-KEPT_ERRORS))
    this.onRecord()
  }

  /** The failures of `id`, newest last. */
  of(id: string): string[] {
    return this.errors.get(id) ?? []
  }
}

/** Where what the broker connection ignored is kept, beside each service's own failures. */
export const BROKER_LOG = 'broker'
