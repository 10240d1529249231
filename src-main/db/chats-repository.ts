import type { ApprovalMode } from '../../src-shared/approvals'
import type { Chat, ChatMode } from '../../src-shared/contract'
import type { Database } from './database'

interface ChatRow {
  id: string
  title: string
  mode: ChatMode
  working_dir: string | null
  provider: string | null
  model: string | null
  agent: string | null
  approval_mode: ApprovalMode | null
  created_at: number
  updated_at: number
  parent_chat_id: string | null
  parent_call_id: string | null
}

function toChat(row: ChatRow): Chat {
  return {
    id: row.id,
    title: row.title,
    mode: row.mode,
    workingDir: row.working_dir,
    provider: row.provider,
    model: row.model,
    agent: row.agent,
    approvalMode: row.approval_mode,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.parent_chat_id !== null && { parentChatId: row.parent_chat_id }),
    ...(row.parent_call_id !== null && { parentCallId: row.parent_call_id }),
  }
}

export class ChatsRepository {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      // A subagent's chat is reached from its parent's task card, not listed.
      list: db.prepare<[], ChatRow>(
        'SELECT * FROM chats WHERE parent_chat_id IS NULL ORDER BY created_at DESC, rowid DESC',
      ),
      get: db.prepare<[string], ChatRow>('SELECT * FROM chats WHERE id = ?'),
      insert: db.prepare(
        `INSERT INTO chats (id, title, mode, working_dir, provider, model, agent, approval_mode, created_at,
           updated_at, parent_chat_id, parent_call_id)
         VALUES (@id, @title, @mode, @workingDir, @provider, @model, @agent, @approvalMode, @createdAt,
           @updatedAt, @parentChatId, @parentCallId)`,
      ),
      insertIfAbsent: db.prepare(
        `INSERT INTO chats (id, title, mode, working_dir, provider, model, agent, approval_mode, created_at,
           updated_at)
         VALUES (@id, @title, @mode, @workingDir, @provider, @model, @agent, @approvalMode, @createdAt,
           @updatedAt)
         ON CONFLICT (id) DO NOTHING`,
      ),
      rename: db.prepare('UPDATE chats SET title = ?, updated_at = ? WHERE id = ?'),
      configure: db.prepare(
        `UPDATE chats SET mode = @mode, working_dir = @workingDir, provider = @provider, model = @model,
         agent = @agent, approval_mode = @approvalMode, updated_at = @updatedAt WHERE id = @id`,
      ),
      delete: db.prepare('DELETE FROM chats WHERE id = ?'),
      deleteIfEmpty: db.prepare(
        `DELETE FROM chats WHERE id = ? AND title = ?
           AND NOT EXISTS (SELECT 1 FROM turns WHERE turns.chat_id = chats.id)`,
      ),
    }
  }

  list(): Chat[] {
    return this.statements.list.all().map(toChat)
  }

  get(id: string): Chat | undefined {
    const row = this.statements.get.get(id)
    return row && toChat(row)
  }

  insert(chat: Chat): void {
    this.statements.insert.run({ parentChatId: null, parentCallId: null, ...chat })
  }

  /** Inserts unless a chat with that id exists (another process may have just made it); true if inserted. */
  insertIfAbsent(chat: Chat): boolean {
    return this.statements.insertIfAbsent.run(chat).changes > 0
  }

  /** Returns false when no chat has that id. */
  rename(id: string, title: string, now: number): boolean {
    return this.statements.rename.run(title, now, id).changes > 0
  }

  /** Writes the chat's folder, mode, provider, model, agent and approval mode; false when no chat has that id. */
  configure(chat: Chat): boolean {
    return this.statements.configure.run(chat).changes > 0
  }

  delete(id: string): boolean {
    return this.statements.delete.run(id).changes > 0
  }

  /** Deletes the chat if it has no turn and still has this title; true if it was deleted. */
  deleteIfEmpty(id: string, title: string): boolean {
    return this.statements.deleteIfEmpty.run(id, title).changes > 0
  }
}
