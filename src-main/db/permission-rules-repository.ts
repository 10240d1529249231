import type { PermissionRule, RuleAction, RuleScope, RuleSource } from '../../src-shared/approvals'
import type { Database } from './database'

interface RuleRow {
  id: string
  rule: string
  action: RuleAction
  scope: RuleScope
  chat_id: string | null
  folder: string | null
  source: RuleSource
  created_at: number
  last_used_at: number | null
}

function toRule(row: RuleRow): PermissionRule {
  return {
    id: row.id,
    rule: row.rule,
    action: row.action,
    scope: row.scope,
    chatId: row.chat_id,
    folder: row.folder,
    source: row.source,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  }
}

/** The person's saved approval rules; a chat's own rules go with the chat. */
export class PermissionRulesRepository {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      list: db.prepare<[], RuleRow>('SELECT * FROM permission_rules ORDER BY created_at, rowid'),
      applicable: db.prepare<[string | null, string | null], RuleRow>(
        `SELECT * FROM permission_rules
         WHERE scope = 'global' OR (scope = 'chat' AND chat_id = ?) OR (scope = 'project' AND folder = ?)
         ORDER BY created_at, rowid`,
      ),
      get: db.prepare<[string], RuleRow>('SELECT * FROM permission_rules WHERE id = ?'),
      insert: db.prepare(
        `INSERT INTO permission_rules (id, rule, action, scope, chat_id, folder, source, created_at)
         VALUES (@id, @rule, @action, @scope, @chatId, @folder, @source, @createdAt)`,
      ),
      update: db.prepare('UPDATE permission_rules SET rule = @rule, action = @action WHERE id = @id'),
      used: db.prepare('UPDATE permission_rules SET last_used_at = ? WHERE id = ?'),
      delete: db.prepare('DELETE FROM permission_rules WHERE id = ?'),
    }
  }

  list(): PermissionRule[] {
    return this.statements.list.all().map(toRule)
  }

  /** The rules that hold for a call in this chat and folder. */
  applicable(chatId: string | null, folder: string | null): PermissionRule[] {
    return this.statements.applicable.all(chatId, folder).map(toRule)
  }

  get(id: string): PermissionRule | undefined {
    const row = this.statements.get.get(id)
    return row && toRule(row)
  }

  insert(rule: Omit<PermissionRule, 'lastUsedAt'>): void {
    this.statements.insert.run(rule)
  }

  update(rule: Pick<PermissionRule, 'id' | 'rule' | 'action'>): boolean {
    return this.statements.update.run(rule).changes > 0
  }

  markUsed(ids: readonly string[], now: number): void {
    for (const id of ids) this.statements.used.run(now, id)
  }

  delete(id: string): boolean {
    return this.statements.delete.run(id).changes > 0
  }
}
