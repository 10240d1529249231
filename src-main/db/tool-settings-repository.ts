import type { Database } from './database'

/** A saved row as stored: `parameters` is JSON text that may be damaged, so callers decode it. */
export interface ToolSettingsRow {
  enabled: boolean | null
  parameters: string | null
}

export class ToolSettingsRepository {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      get: db.prepare<[string, string], { enabled: number | null; parameters: string | null }>(
        'SELECT enabled, parameters FROM user_tool_settings WHERE user_id = ? AND tool_name = ?',
      ),
      upsert: db.prepare(
        `INSERT INTO user_tool_settings (user_id, tool_name, enabled, parameters, updated_at)
         VALUES (@user, @tool, @enabled, @parameters, @now)
         ON CONFLICT (user_id, tool_name) DO UPDATE SET
           enabled = excluded.enabled, parameters = excluded.parameters, updated_at = excluded.updated_at`,
      ),
    }
  }

  get(user: string, tool: string): ToolSettingsRow | undefined {
    const row = this.statements.get.get(user, tool)
    return row && { enabled: row.enabled === null ? null : row.enabled === 1, parameters: row.parameters }
  }

  save(
    user: string,
    tool: string,
    settings: { enabled: boolean | null; parameters: Record<string, unknown> },
    now: number,
  ) {
    this.statements.upsert.run({
      user,
      tool,
      enabled: settings.enabled === null ? null : settings.enabled ? 1 : 0,
      parameters: JSON.stringify(settings.parameters),
      now,
    })
  }
}
