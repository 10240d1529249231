import type { ChatMode } from '../../src-shared/agent'
import type { ApprovalMode } from '../../src-shared/approvals'
import type { AgentProfile } from '../../src-shared/providers'
import type { Database } from './database'

interface ProfileRow {
  id: string
  name: string
  system_prompt: string
  tools: string | null
  default_mode: ChatMode
  approval_mode: ApprovalMode
  description: string
  delegable: number
}

/** A tool list that no longer parses means "every enabled tool", the profile's safe default. */
function parseTools(text: string | null): string[] | null {
  if (text === null) return null
  try {
    const tools = JSON.parse(text) as unknown
    return Array.isArray(tools) && tools.every((name) => typeof name === 'string') ? tools : null
  } catch {
    return null
  }
}

function toProfile(row: ProfileRow): AgentProfile {
  return {
    id: row.id,
    name: row.name,
    systemPrompt: row.system_prompt,
    tools: parseTools(row.tools),
    defaultMode: row.default_mode,
    approvalMode: row.approval_mode,
    builtin: false,
    description: row.description,
    delegable: row.delegable === 1,
  }
}

/** The person's own agent profiles; the built-in one lives in code. */
export class AgentProfilesRepository {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      list: db.prepare<[], ProfileRow>('SELECT * FROM agent_profiles ORDER BY created_at, rowid'),
      get: db.prepare<[string], ProfileRow>('SELECT * FROM agent_profiles WHERE id = ?'),
      upsert: db.prepare(
        `INSERT INTO agent_profiles (id, name, system_prompt, tools, default_mode, approval_mode, description,
           delegable, created_at, updated_at)
         VALUES (@id, @name, @systemPrompt, @tools, @defaultMode, @approvalMode, @description, @delegable, @now,
           @now)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, system_prompt = excluded.system_prompt,
           tools = excluded.tools, default_mode = excluded.default_mode,
           approval_mode = excluded.approval_mode, description = excluded.description,
           delegable = excluded.delegable, updated_at = excluded.updated_at`,
      ),
      delete: db.prepare('DELETE FROM agent_profiles WHERE id = ?'),
    }
  }

  list(): AgentProfile[] {
    return this.statements.list.all().map(toProfile)
  }

  get(id: string): AgentProfile | undefined {
    const row = this.statements.get.get(id)
    return row && toProfile(row)
  }

  save(profile: AgentProfile, now: number): void {
    this.statements.upsert.run({
      ...profile,
      tools: profile.tools === null ? null : JSON.stringify(profile.tools),
      delegable: profile.delegable ? 1 : 0,
      now,
    })
  }

  delete(id: string): boolean {
    return this.statements.delete.run(id).changes > 0
  }
}
