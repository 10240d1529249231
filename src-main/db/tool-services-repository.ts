import type { ServiceDescriptor, ToolDescriptor } from '../../src-shared/tool-services'
import type { Database } from './database'

export interface StoredService {
  descriptor: ServiceDescriptor
  enabled: boolean
}

/** One version of an announced service: its descriptor and tools as canonical JSON, and their sha256. */
export interface ServiceVersion {
  /** The sha256 of `descriptor`, hex. */
  version: string
  /** `{"service", "tools"}`, canonical JSON. */
  descriptor: string
}

/**
 * The services and tools the person configured (announced ones live only while announced), and
 * the version of each announced service the person enabled. A row whose descriptor no longer
 * parses is skipped: what is left still works.
 */
export class ToolServicesRepository {
  private readonly statements

  constructor(private readonly db: Database) {
    this.statements = {
      services: db.prepare<[], { descriptor: string; enabled: number }>(
        'SELECT descriptor, enabled FROM tool_services ORDER BY created_at, rowid',
      ),
      tools: db.prepare<[], { descriptor: string }>(
        'SELECT descriptor FROM tools ORDER BY created_at, rowid',
      ),
      saveService: db.prepare(
        `INSERT INTO tool_services (id, descriptor, enabled, created_at, updated_at) VALUES (?, ?, 1, ?, ?)
         ON CONFLICT (id) DO UPDATE SET descriptor = excluded.descriptor, updated_at = excluded.updated_at`,
      ),
      saveTool: db.prepare(
        `INSERT INTO tools (name, service, descriptor, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET service = excluded.service, descriptor = excluded.descriptor,
           updated_at = excluded.updated_at`,
      ),
      setEnabled: db.prepare('UPDATE tool_services SET enabled = ?, updated_at = ? WHERE id = ?'),
      deleteService: db.prepare('DELETE FROM tool_services WHERE id = ?'),
      deleteTool: db.prepare('DELETE FROM tools WHERE name = ?'),
      enabledVersions: db.prepare<[], { id: string; version: string; descriptor: string }>(
        'SELECT id, version, descriptor FROM enabled_announced_services',
      ),
      enableVersion: db.prepare(
        `INSERT INTO enabled_announced_services (id, version, descriptor, enabled_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET version = excluded.version, descriptor = excluded.descriptor,
           enabled_at = excluded.enabled_at`,
      ),
      disableVersion: db.prepare('DELETE FROM enabled_announced_services WHERE id = ?'),
      addError: db.prepare('INSERT INTO tool_service_errors (source, at, message) VALUES (?, ?, ?)'),
      // The newest `kept` of a source stay; the rest go.
      pruneErrors: db.prepare(
        `DELETE FROM tool_service_errors WHERE source = @source AND id NOT IN
           (SELECT id FROM tool_service_errors WHERE source = @source ORDER BY id DESC LIMIT @kept)`,
      ),
      deleteErrors: db.prepare('DELETE FROM tool_service_errors WHERE source = ?'),
      errors: db.prepare<[string], { at: number; message: string }>(
        'SELECT at, message FROM tool_service_errors WHERE source = ? ORDER BY id',
      ),
    }
  }

  services(): StoredService[] {
    return this.statements.services.all().flatMap(({ descriptor, enabled }) => {
      const parsed = parse<ServiceDescriptor>(descriptor)
      return parsed ? [{ descriptor: parsed, enabled: enabled === 1 }] : []
    })
  }

  tools(): ToolDescriptor[] {
    return this.statements.tools.all().flatMap(({ descriptor }) => parse<ToolDescriptor>(descriptor) ?? [])
  }

  /** Saves services, then tools, in one transaction: a file adds all it holds or nothing. */
  save(services: ServiceDescriptor[], tools: ToolDescriptor[], now: number): void {
    this.db.transaction(() => {
      for (const service of services)
        this.statements.saveService.run(service.id, JSON.stringify(service), now, now)
      for (const tool of tools)
        this.statements.saveTool.run(tool.name, tool.service, JSON.stringify(tool), now, now)
    })()
  }

  setEnabled(id: string, enabled: boolean, now: number): boolean {
    return this.statements.setEnabled.run(enabled ? 1 : 0, now, id).changes > 0
  }

  /** The enabled version of each announced service the person turned on, by service id. */
  enabledVersions(): Map<string, ServiceVersion> {
    return new Map(
      this.statements.enabledVersions
        .all()
        .map(({ id, version, descriptor }) => [id, { version, descriptor }]),
    )
  }

  /** Pins the version of an announced service the person enabled, replacing the one before. */
  enableVersion(id: string, enabled: ServiceVersion, now: number): void {
    this.statements.enableVersion.run(id, enabled.version, enabled.descriptor, now)
  }

  /** The person turned an announced service off: no version of it is enabled any more. */
  disableVersion(id: string): void {
    this.statements.disableVersion.run(id)
  }

  /** Keeps a failure of `source` (a service's id, or the broker's log), and only the newest `kept` of it. */
  addError(source: string, message: string, at: number, kept: number): void {
    this.db.transaction(() => {
      this.statements.addError.run(source, at, message)
      this.statements.pruneErrors.run({ source, kept })
    })()
  }

  /** The failures kept of `source`, oldest first. */
  errors(source: string): { at: number; message: string }[] {
    return this.statements.errors.all(source)
  }

  /** Removes a service (with its tools and its errors) or a tool; false when neither has that id. */
  remove(id: string): boolean {
    return this.db.transaction(() => {
      const service = this.statements.deleteService.run(id).changes
      if (service > 0) this.statements.deleteErrors.run(id)
      return service + this.statements.deleteTool.run(id).changes > 0
    })()
  }
}

function parse<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T
  } catch {
    return undefined
  }
}
