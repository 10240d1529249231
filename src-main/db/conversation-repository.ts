import { randomUUID } from 'node:crypto'
import type { ChatMessage, MessagePart, MessageRole, Turn, TurnStatus } from '../../src-shared/agent'
import type { Database } from './database'

interface TurnRow {
  id: string
  chat_id: string
  status: TurnStatus
  error: string | null
  pid: number
  started_at: number
  ended_at: number | null
}

interface MessageRow {
  id: string
  chat_id: string
  turn_id: string
  role: MessageRole
  parts: string
  created_at: number
}

function toTurn(row: TurnRow): Turn {
  return {
    id: row.id,
    chatId: row.chat_id,
    status: row.status,
    error: row.error,
    startedAt: row.started_at,
    endedAt: row.ended_at,
  }
}

function toMessage(row: MessageRow): ChatMessage {
  return {
    id: row.id,
    chatId: row.chat_id,
    turnId: row.turn_id,
    role: row.role,
    parts: parseParts(row.parts),
    createdAt: row.created_at,
  }
}

/** A row that no longer parses shows as a note rather than hiding the rest of the conversation. */
function parseParts(text: string): MessagePart[] {
  try {
    const parts = JSON.parse(text) as unknown
    if (Array.isArray(parts)) return parts as MessagePart[]
  } catch {}
  return [{ type: 'text', text: '[This message could not be read from the database.]' }]
}

/**
 * Turns and their messages. Every write is its own committed statement, so a crash loses at most
 * the message being streamed, never one already shown as complete.
 */
export class ConversationRepository {
  private readonly statements

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.statements = {
      beginTurn: db.prepare(
        `INSERT INTO turns (id, chat_id, status, error, pid, started_at, ended_at)
         VALUES (?, ?, 'running', NULL, ?, ?, NULL)`,
      ),
      endTurn: db.prepare(
        `UPDATE turns SET status = ?, error = ?, ended_at = ? WHERE id = ? AND status = 'running'`,
      ),
      running: db.prepare<[], Pick<TurnRow, 'id' | 'pid'>>(
        `SELECT id, pid FROM turns WHERE status = 'running'`,
      ),
      turns: db.prepare<[string], TurnRow>(
        'SELECT * FROM turns WHERE chat_id = ? ORDER BY started_at, rowid',
      ),
      turn: db.prepare<[string], TurnRow>('SELECT * FROM turns WHERE id = ?'),
      append: db.prepare(
        `INSERT INTO messages (id, chat_id, turn_id, seq, role, parts, created_at)
         VALUES (?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE chat_id = ?), ?, ?, ?)`,
      ),
      messages: db.prepare<[string], MessageRow>('SELECT * FROM messages WHERE chat_id = ? ORDER BY seq'),
    }
  }

  /** A new running turn and its prompt, committed together: no turn exists without what started it. */
  beginTurn(chatId: string, prompt: string): { turn: Turn; prompt: ChatMessage } {
    return this.db.transaction(() => {
      const id = randomUUID()
      this.statements.beginTurn.run(id, chatId, process.pid, this.now())
      return {
        turn: this.turn(id),
        prompt: this.append(chatId, id, 'user', [{ type: 'text', text: prompt }]),
      }
    })()
  }

  endTurn(id: string, status: Exclude<TurnStatus, 'running'>, error: string | null = null): Turn {
    this.statements.endTurn.run(status, error, this.now(), id)
    return this.turn(id)
  }

  turn(id: string): Turn {
    const row = this.statements.turn.get(id)
    if (!row) throw new Error(`No turn with id "${id}".`)
    return toTurn(row)
  }

  turns(chatId: string): Turn[] {
    return this.statements.turns.all(chatId).map(toTurn)
  }

  /**
   * Marks turns whose process is gone as interrupted: it crashed or was killed. A turn another live
   * process is running (the desktop app while the CLI opens the same data) is left alone.
   */
  markInterrupted(isAlive: (pid: number) => boolean = processIsAlive): number {
    const orphans = this.statements.running.all().filter((turn) => !isAlive(turn.pid))
    const mark = this.db.transaction(() => {
      for (const turn of orphans) {
        this.statements.endTurn.run(
          'interrupted',
          'Atelier closed before this turn finished.',
          this.now(),
          turn.id,
        )
      }
    })
    mark()
    return orphans.length
  }

  append(chatId: string, turnId: string, role: MessageRole, parts: MessagePart[]): ChatMessage {
    const message: ChatMessage = { id: randomUUID(), chatId, turnId, role, parts, createdAt: this.now() }
    this.statements.append.run(
      message.id,
      chatId,
      turnId,
      chatId,
      role,
      JSON.stringify(parts),
      message.createdAt,
    )
    return message
  }

  messages(chatId: string): ChatMessage[] {
    return this.statements.messages.all(chatId).map(toMessage)
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
