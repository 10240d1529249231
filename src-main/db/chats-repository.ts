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
  pinned: number
  archived: number
  forked_from_chat_id: string | null
  forked_from_message_id: string | null
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
    pinned: row.pinned === 1,
    archived: row.archived === 1,
    ...(row.forked_from_chat_id !== null && {
      forkedFrom: {
        chatId: row.forked_from_chat_id,
        ...(row.forked_from_message_id !== null && { messageId: row.forked_from_message_id }),
      },
    }),
  }
}

/** A chat as the insert statements bind it: SQLite has no booleans, and absent fields are NULL. */
function chatParameters({ forkedFrom, ...chat }: Chat) {
  return {
    parentChatId: null,
    parentCallId: null,
    ...chat,
    pinned: chat.pinned ? 1 : 0,
    archived: chat.archived ? 1 : 0,
    forkedFromChatId: forkedFrom?.chatId ?? null,
    forkedFromMessageId: forkedFrom?.messageId ?? null,
  }
}

export class ChatsRepository {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      // A subagent's chat is reached from its parent's task card, not listed.
      list: db.prepare<[], ChatRow>(
        'SELECT * FROM chats WHERE parent_chat_id IS NULL ORDER BY pinned DESC, created_at DESC, rowid DESC',
      ),
      forksOf: db.prepare<[string], ChatRow>(
        'SELECT * FROM chats WHERE forked_from_chat_id = ? ORDER BY created_at, rowid',
      ),
      get: db.prepare<[string], ChatRow>('SELECT * FROM chats WHERE id = ?'),
      insert: db.prepare(
        `INSERT INTO chats (id, title, mode, working_dir, provider, model, agent, approval_mode, created_at,
           updated_at, parent_chat_id, parent_call_id, pinned, archived, forked_from_chat_id,
           forked_from_message_id)
         VALUES (@id, @title, @mode, @workingDir, @provider, @model, @agent, @approvalMode, @createdAt,
           @updatedAt, @parentChatId, @parentCallId, @pinned, @archived, @forkedFromChatId,
           @forkedFromMessageId)`,
      ),
      insertIfAbsent: db.prepare(
        `INSERT INTO chats (id, title, mode, working_dir, provider, model, agent, approval_mode, created_at,
           updated_at)
         VALUES (@id, @title, @mode, @workingDir, @provider, @model, @agent, @approvalMode, @createdAt,
           @updatedAt)
         ON CONFLICT (id) DO NOTHING`,
      ),
      rename: db.prepare('UPDATE chats SET title = ?, updated_at = ? WHERE id = ?'),
      pin: db.prepare('UPDATE chats SET pinned = ? WHERE id = ?'),
      archive: db.prepare('UPDATE chats SET archived = ? WHERE id = ?'),
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
    this.statements.insert.run(chatParameters(chat))
  }

  /** The chats forked from this one, oldest first. */
  forksOf(id: string): Chat[] {
    return this.statements.forksOf.all(id).map(toChat)
  }

  /** Inserts unless a chat with that id exists (another process may have just made it); true if inserted. */
  insertIfAbsent(chat: Chat): boolean {
    return this.statements.insertIfAbsent.run(chatParameters(chat)).changes > 0
  }

  /** Returns false when no chat has that id. */
  pin(id: string, pinned: boolean): boolean {
    return this.statements.pin.run(pinned ? 1 : 0, id).changes > 0
  }

  /** Returns false when no chat has that id. */
  archive(id: string, archived: boolean): boolean {
    return this.statements.archive.run(archived ? 1 : 0, id).changes > 0
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
