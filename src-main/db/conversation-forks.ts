import { randomUUID } from 'node:crypto'
import { copiedDecisions, copiedUsage } from './copied-usage'
import type { Database } from './database'

type Row = Record<string, unknown>

/**
 * Splitting a chat's conversation at a turn (a rewind, an edited prompt, a regenerated answer) and
 * joining it back (a rewind's redo), and copying it up to a turn (Fork from here). The turns from
 * that one on move to a fork chat, which also gets copies of the turns before, so it reads as the
 * whole conversation as it was; the chat itself goes on from before the turn.
 */
export class ConversationForks {
  private readonly statements

  constructor(private readonly db: Database) {
    this.statements = {
      turns: db.prepare<[string], Row>('SELECT * FROM turns WHERE chat_id = ? ORDER BY started_at, rowid'),
      messages: db.prepare<[string], Row>('SELECT * FROM messages WHERE turn_id = ? ORDER BY seq'),
      turnStatus: db.prepare<[string], Row>('SELECT status FROM turns WHERE id = ?'),
      turnOfMessage: db.prepare<[string, string], Row>(
        'SELECT turn_id FROM messages WHERE chat_id = ? AND id = ?',
      ),
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

  /** The ids of the chat's turns, in order. */
  turnIds(chatId: string): string[] {
    return this.statements.turns.all(chatId).map((turn) => turn.id as string)
  }

  /** The turn of the chat's message `messageId`; undefined when the chat has no such message. */
  turnOfMessage(chatId: string, messageId: string): string | undefined {
    return this.statements.turnOfMessage.get(chatId, messageId)?.turn_id as string | undefined
  }

  /** The id of the turn's last message; undefined for a turn without any. */
  lastMessageOf(turnId: string): string | undefined {
    return this.statements.messages.all(turnId).at(-1)?.id as string | undefined
  }

  /** Whether this turn is running (here or in another process). */
  isTurnRunning(turnId: string): boolean {
    return this.statements.turnStatus.get(turnId)?.status === 'running'
  }

  /** The ids of the chat's turns from `turnId` on, in order; empty when the chat has no such turn. */
  turnsFrom(chatId: string, turnId: string): string[] {
    const ids = this.turnIds(chatId)
    const at = ids.indexOf(turnId)
    return at < 0 ? [] : ids.slice(at)
  }

  /** Whether a turn of the chat is running (here or in another process). */
  isRunning(chatId: string): boolean {
    return this.statements.turns.all(chatId).some((turn) => turn.status === 'running')
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
      for (const compaction of this.copy(chatId, turns.slice(0, at), turns.slice(at), forkChatId)) {
        this.statements.moveCompaction.run(forkChatId, compaction.id)
      }
      const moved = turns.slice(at).map((turn) => turn.id as string)
      this.move(moved, forkChatId)
      return moved
    })()
  }

  /**
   * Copies the chat's turns through `turnId` (that one included) into `forkChatId` (a chat already
   * inserted); the chat itself is untouched. False when the chat has no such turn.
   */
  copyThrough(chatId: string, turnId: string, forkChatId: string): boolean {
    return this.db.transaction(() => {
      const turns = this.statements.turns.all(chatId)
      const at = turns.findIndex((turn) => turn.id === turnId)
      if (at < 0) return false
      this.copy(chatId, turns.slice(0, at + 1), turns.slice(at + 1), forkChatId)
      return true
    })()
  }

  /**
   * Copies `copied` (the chat's first turns, with their messages and calls) and the compactions among
   * them into `forkChatId`. Returns the compactions that belong with `rest`, the turns after them.
   * The copies' usage is marked copied: the originals, kept or moved, stay the ones that count.
   */
  private copy(chatId: string, copied: Row[], rest: Row[], forkChatId: string): Row[] {
    const messageIds = new Map<string, string>()
    for (const turn of copied) {
      const copy = randomUUID()
      this.insert('turns', { ...turn, id: copy, chat_id: forkChatId })
      for (const message of this.statements.messages.all(turn.id as string)) {
        const id = randomUUID()
        messageIds.set(message.id as string, id)
        const usage = typeof message.usage === 'string' ? copiedUsage(JSON.parse(message.usage)) : undefined
        this.insert('messages', {
          ...message,
          id,
          chat_id: forkChatId,
          turn_id: copy,
          usage: usage ? JSON.stringify(usage) : null,
        })
      }
      for (const call of this.statements.calls.all(turn.id as string)) {
        const decisions = copiedDecisions(JSON.parse(call.decisions as string))
        this.insert('tool_calls', {
          ...call,
          chat_id: forkChatId,
          turn_id: copy,
          decisions: JSON.stringify(decisions),
        })
      }
    }
    const restStartedAt = (rest[0]?.started_at as number | undefined) ?? Number.POSITIVE_INFINITY
    const restIds = new Set(rest.map((turn) => turn.id as string))
    const later: Row[] = []
    for (const compaction of this.statements.compactions.all(chatId)) {
      if (
        restIds.has(compaction.turn_id as string) ||
        (compaction.turn_id === null && (compaction.created_at as number) >= restStartedAt)
      ) {
        later.push(compaction)
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
    return later
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
