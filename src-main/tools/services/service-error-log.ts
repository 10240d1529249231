/**
 * The latest failures of each tool service, and of the broker connection, kept for the panel and
 * the CLI: a bad response, a process that died, an announcement or a tool that did not fit. They
 * are kept in the database, so a process shows what another one met (`atelier services list`
 * what the desktop app's broker connection ignored, and the other way round).
 */
import type { ToolServicesRepository } from '../../db/tool-services-repository'

/** How many failures each service keeps for the panel. */
const KEPT_ERRORS = 10

export class ServiceErrorLog {
  constructor(
    private readonly repository: ToolServicesRepository,
    private readonly now: () => number,
    /** A failure was kept: the panel follows. */
    private readonly onRecord: () => void,
  ) {}

  /** Keeps a failure of `id` (a service's id, or `BROKER_LOG`), timestamped; the oldest beyond ten go. */
  record(id: string, message: string): void {
    this.repository.addError(id, message, this.now(), KEPT_ERRORS)
    this.onRecord()
  }

  /** The failures of `id`, newest last. */
  of(id: string): string[] {
    return this.repository.errors(id).map(({ at, message }) => `${new Date(at).toISOString()} ${message}`)
  }
}

/** Where what the broker connection ignored is kept, beside each service's own failures. */
export const BROKER_LOG = 'broker'
