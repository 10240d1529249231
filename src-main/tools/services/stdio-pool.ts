/**
 * The processes of the local stdio services: one per service, started by its first call, and ended
 * — its whole process tree — when the service is edited, turned off or removed, or Atelier closes.
 */
import type { ServiceDescriptor, StdioServiceDescriptor } from '../../../src-shared/tool-services'
import type { ConfineServer } from '../sandbox/command-sandbox'
import { StdioService } from './stdio-service'

export interface StdioPoolOptions {
  /** Where a service's relative `cwd` starts. */
  baseDir: string
  /** A service's failures: ignored lines, a process that exited or could not start. */
  log(id: string, message: string): void
  /** Confines the services set to run in the sandbox. */
  confine?: ConfineServer
}

export class StdioPool {
  private readonly services = new Map<string, StdioService>()

  constructor(private readonly options: StdioPoolOptions) {}

  /** The service's transport; its process starts at the first call, not here. */
  transportFor(service: StdioServiceDescriptor): StdioService {
    let running = this.services.get(service.id)
    if (!running) {
      running = new StdioService(service, {
        baseDir: this.options.baseDir,
        log: (message: string) => this.options.log(service.id, message),
        ...(this.options.confine && { confine: this.options.confine }),
      })
      this.services.set(service.id, running)
    }
    return running
  }

  /** Services edited since they started run their new command from the next call on. */
  restartChanged(services: readonly ServiceDescriptor[]): void {
    for (const service of services) {
      const running = this.services.get(service.id)
      if (running && JSON.stringify(running.descriptor) !== JSON.stringify(service))
        void this.stop(service.id)
    }
  }

  /** Whether the service's process runs now. */
  running(id: string): boolean {
    return this.services.get(id)?.running ?? false
  }

  /** The running process's id, or null. */
  pid(id: string): number | null {
    return this.services.get(id)?.pid ?? null
  }

  /** What the service's process wrote to stderr lately. */
  stderr(id: string): string {
    return this.services.get(id)?.stderr ?? ''
  }

  /** Ends the service's process tree; the next call starts it again. */
  async stop(id: string): Promise<void> {
    const running = this.services.get(id)
    this.services.delete(id)
    await running?.close()
  }

  async close(): Promise<void> {
    await Promise.all([...this.services.keys()].map((id) => this.stop(id)))
  }
}
