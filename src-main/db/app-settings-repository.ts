import type { Database } from './database'

/** Key/value app settings stored as JSON text; callers decode and fall back to defaults. */
export class AppSettingsRepository {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      get: db.prepare<[string], { value: string }>('SELECT value FROM app_settings WHERE key = ?'),
      set: db.prepare(
        `INSERT INTO app_settings (key, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      ),
    }
  }

  /** The stored text, or undefined when the key was never written. */
  getRaw(key: string): string | undefined {
    return this.statements.get.get(key)?.value
  }

  set(key: string, value: unknown, now: number): void {
    this.statements.set.run(key, JSON.stringify(value), now)
  }
}
