import { randomUUID } from 'node:crypto'
import type { Database } from './database'

type Row = Record<string, unknown>

/**
 * Splitting a chat's conversation at a turn (a rewind) and joining it back (its redo). The turns
 * from that one on move to a fork chat, which also gets copies of the turns before, so it reads as
 * the whole conversation as it was; the chat itself goes on from before the turn.
 */
export class ConversationForks {
  private readonly statements

  constructor(private readonly db: Database) {
    this.statements = {
      turns: db.prepare<[string], Row>('SELECT * FROM turns WHERE chat_id = ? ORDER BY started_at, rowid'),
      messages: db.prepare<[string], Row>('SELECT * FROM messages WHERE turn_id = ? ORDER BY seq'),
      calls: db.prepare<[string], Row>('SELECT * FROM tool_calls WHERE turn_id = ?'),
      compactions: db.prepare<[string], Row>('SELECT * FROM compactions WHERE chat_id = ?'),
      deleteChat: db.prepare('DELETE FROM chats WHERE id = ?'),
      compactionsBack: db.prepare(
        `UPDATE compactions SET chat_id = ? WHERE chat_id = ? AND turn_id IS NULL
           AND after_message_id IN (SELECT id FROM messages WHERE chat_id = ?)`,
      ),
      moveCompaction: db.prepare('UPDATE compactions SET chat_id = ? WHERE id = ?'),
    }
  }

  /** The ids of the chat's turns from `turnId` on, in order; empty when the chat has no such turn. */
  turnsFrom(chatId: string, turnId: string): string[] {
    const ids = this.statements.turns.all(chatId).map((turn) => turn.id as string)
    const at = ids.indexOf(turnId)
    return at < 0 ? [] : ids.slice(at)
  }

  /** Whether the chat has a turn begun after `time`. */
  hasTurnsAfter(chatId: string, time: number): boolean {
    return this.statements.turns.all(chatId).some((turn) => (turn.started_at as number) > time)
  }

  /**
   * Moves the turns from `turnId` on to `forkChatId` (a chat already inserted), after copies of the
   * turns before it. Returns the moved turns' ids.
   */
  split(chatId: string, turnId: string, forkChatId: string): string[] {
    return this.db.transaction(() => {
      const turns = this.statements.turns.all(chatId)
      const at = turns.findIndex((turn) => turn.id === turnId)
      if (at < 0) return []
      const startedAt = turns[at]?.started_at as number
      const messageIds = new Map<string, string>()
      for (const turn of turns.slice(0, at)) {
        const copy = randomUUID()
        this.insert('turns', { ...turn, id: copy, chat_id: forkChatId })
        for (const message of this.statements.messages.all(turn.id as string)) {
          const id = randomUUID()
          messageIds.set(message.id as string, id)
          this.insert('messages', { ...message, id, chat_id: forkChatId, turn_id: copy })
        }
        for (const call of this.statements.calls.all(turn.id as string)) {
          this.insert('tool_calls', { ...call, chat_id: forkChatId, turn_id: copy })
        }
      }
      const moved = turns.slice(at).map((turn) => turn.id as string)
      const movedSet = new Set(moved)
      for (const compaction of this.statements.compactions.all(chatId)) {
        const later =
          movedSet.has(compaction.turn_id as string) ||
          (compaction.turn_id === null && (compaction.created_at as number) >= startedAt)
        if (later) {
          this.statements.moveCompaction.run(forkChatId, compaction.id)
          continue
        }
        const mapped = (id: unknown) => (typeof id === 'string' ? (messageIds.get(id) ?? id) : id)
        this.insert('compactions', {
          ...compaction,
          id: randomUUID(),
          chat_id: forkChatId,
          turn_id: null,
          after_message_id: mapped(compaction.after_message_id),
          elided_through: mapped(compaction.elided_through),
          summarized_through: mapped(compaction.summarized_through),
        })
      }
      this.move(moved, forkChatId)
      return moved
    })()
  }

  /** Moves the turns back from the fork, and removes the fork with its copies. */
  join(chatId: string, forkChatId: string, turnIds: readonly string[]): void {
    this.db.transaction(() => {
      this.move(turnIds, chatId)
      // "Compact now" between the moved turns: its marker follows the messages it comes after.
      this.statements.compactionsBack.run(chatId, forkChatId, chatId)
      this.statements.deleteChat.run(forkChatId)
    })()
  }

  private move(turnIds: readonly string[], chatId: string): void {
    for (const table of ['turns', 'messages', 'tool_calls', 'compactions', 'checkpoints']) {
      const column = table === 'turns' ? 'id' : 'turn_id'
      const update = this.db.prepare(`UPDATE ${table} SET chat_id = ? WHERE ${column} = ?`)
      for (const id of turnIds) update.run(chatId, id)
    }
  }

  private insert(table: string, row: Row): void {
    const columns = Object.keys(row)
    this.db
      .prepare(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
      )
      .run(row)
  }
}
