import { randomUUID } from 'node:crypto'
import type {
  ChatMessage,
  Compaction,
  CompactionReason,
  MessagePart,
  MessageRole,
  ToolResultPart,
  Turn,
  TurnError,
  TurnStatus,
} from '../../src-shared/agent'
import { AtelierError, type ErrorCode } from '../../src-shared/errors'
import type { CallDecision } from '../../src-shared/questions'
import type { ToolCallState, ToolCallStatus } from '../../src-shared/tool-calls'
import type { ToolCallDescription, ToolErrorType } from '../../src-shared/tools'
import type { Usage } from '../../src-shared/usage'
import { ownerIsAlive, thisProcess } from '../core/process-owner'
import { type Database, withoutSync } from './database'

/** What an interrupted turn says happened. */
export const INTERRUPTED: TurnError = {
  code: 'interrupted',
  message: 'Atelier closed before this turn finished.',
}

interface TurnRow {
  id: string
  chat_id: string
  status: TurnStatus
  error: string | null
  error_code: ErrorCode | null
  pid: number
  owner_start: string | null
  started_at: number
  ended_at: number | null
  /** Not a column: read from the turn's calls (see TURN_COLUMNS). */
  tool_error: 0 | 1
}

/**
 * A turn with whether any of its calls ended in error (failed or stopped), read from its stored
 * calls so it can never disagree with them.
 */
const TURN_COLUMNS = `t.*, EXISTS (SELECT 1 FROM tool_calls c WHERE c.turn_id = t.id
  AND c.status IN ('failed', 'cancelled')) AS tool_error`

type RunningRow = Pick<TurnRow, 'id' | 'pid' | 'owner_start'>

function ownerOf(row: RunningRow) {
  return { pid: row.pid, start: row.owner_start }
}

interface MessageRow {
  id: string
  chat_id: string
  turn_id: string
  role: MessageRole
  parts: string
  usage: string | null
  created_at: number
}

interface CompactionRow {
  id: string
  chat_id: string
  turn_id: string | null
  reason: CompactionReason
  after_message_id: string
  elided_through: string | null
  summarized_through: string | null
  summary: string | null
  tokens_before: number
  tokens_after: number
  created_at: number
}

interface CallRow {
  turn_id: string
  id: string
  chat_id: string
  name: string
  title: string | null
  call_index: number
  status: ToolCallStatus
  error_type: ToolErrorType | null
  description: string | null
  decisions: string
  created_at: number
  started_at: number | null
  ended_at: number | null
  waited_ms: number
}

/** A call's stored state; its result is the tool message's, joined by the caller. */
function toCall(row: CallRow): ToolCallState {
  const description = parseJson<ToolCallDescription>(row.description)
  return {
    id: row.id,
    chatId: row.chat_id,
    turnId: row.turn_id,
    name: row.name,
    ...(row.title !== null && { title: row.title }),
    index: row.call_index,
    status: row.status,
    ...(row.error_type !== null && { errorType: row.error_type }),
    ...(description && { description }),
    decisions: parseJson<CallDecision[]>(row.decisions) ?? [],
    createdAt: row.created_at,
    ...(row.started_at !== null && { startedAt: row.started_at }),
    ...(row.ended_at !== null && { endedAt: row.ended_at }),
    waitedMs: row.waited_ms,
  }
}

/** A call's state as the `tool_calls` statements bind it. */
export function callParameters(call: ToolCallState) {
  return {
    turnId: call.turnId,
    id: call.id,
    chatId: call.chatId,
    name: call.name,
    title: call.title ?? null,
    index: call.index,
    status: call.status,
    errorType: call.errorType ?? null,
    description: call.description ? JSON.stringify(call.description) : null,
    decisions: JSON.stringify(call.decisions),
    createdAt: call.createdAt,
    startedAt: call.startedAt ?? null,
    endedAt: call.endedAt ?? null,
    waitedMs: Math.round(call.waitedMs),
  }
}

/** Stored JSON that no longer parses reads as absent: it only informs. */
function parseJson<T>(text: string | null): T | undefined {
  if (text === null) return undefined
  try {
    return JSON.parse(text) as T
  } catch {
    return undefined
  }
}

function toCompaction(row: CompactionRow): Compaction {
  return {
    id: row.id,
    chatId: row.chat_id,
    turnId: row.turn_id,
    reason: row.reason,
    afterMessageId: row.after_message_id,
    elidedThrough: row.elided_through,
    summarizedThrough: row.summarized_through,
    summary: row.summary,
    tokensBefore: row.tokens_before,
    tokensAfter: row.tokens_after,
    createdAt: row.created_at,
  }
}

function toTurn(row: TurnRow): Turn {
  return {
    id: row.id,
    chatId: row.chat_id,
    status: row.status,
    error: row.error,
    errorCode: row.error_code,
    toolError: row.tool_error === 1,
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
    ...(row.usage && { usage: parseUsage(row.usage) }),
  }
}

/** Usage that no longer parses is left out: it only informs. */
function parseUsage(text: string): Usage | undefined {
  try {
    const usage = JSON.parse(text) as Usage
    return typeof usage?.inputTokens === 'number' && typeof usage.outputTokens === 'number'
      ? usage
      : undefined
  } catch {
    return undefined
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
        `INSERT INTO turns (id, chat_id, status, error, pid, owner_start, started_at, ended_at)
         VALUES (?, ?, 'running', NULL, ?, ?, ?, NULL)`,
      ),
      endTurn: db.prepare(
        `UPDATE turns SET status = ?, error = ?, error_code = ?, ended_at = ? WHERE id = ? AND status = 'running'`,
      ),
      reopenTurn: db.prepare(
        `UPDATE turns SET status = 'running', error = NULL, error_code = NULL, ended_at = NULL, pid = ?,
           owner_start = ?
         WHERE id = ? AND status IN ('failed', 'interrupted')`,
      ),
      saveCall: db.prepare(
        `INSERT INTO tool_calls (turn_id, id, chat_id, name, title, call_index, status, error_type,
           description, decisions, created_at, started_at, ended_at, waited_ms)
         VALUES (@turnId, @id, @chatId, @name, @title, @index, @status, @errorType, @description,
           @decisions, @createdAt, @startedAt, @endedAt, @waitedMs)
         ON CONFLICT (turn_id, id) DO UPDATE SET title = excluded.title, call_index = excluded.call_index,
           status = excluded.status, error_type = excluded.error_type,
           description = excluded.description, decisions = excluded.decisions,
           started_at = excluded.started_at, ended_at = excluded.ended_at,
           waited_ms = excluded.waited_ms`,
      ),
      // Only a call that had begun to run is stored before its end: cut off, it failed.
      interruptCalls: db.prepare(
        `UPDATE tool_calls SET status = 'failed', error_type = 'interrupted', ended_at = ?
         WHERE turn_id = ? AND status NOT IN ('succeeded', 'failed', 'cancelled')`,
      ),
      calls: db.prepare<[string], CallRow>(
        'SELECT * FROM tool_calls WHERE chat_id = ? ORDER BY created_at, call_index, rowid',
      ),
      running: db.prepare<[], RunningRow>(`SELECT id, pid, owner_start FROM turns WHERE status = 'running'`),
      runningIn: db.prepare<[string], RunningRow>(
        `SELECT id, pid, owner_start FROM turns WHERE chat_id = ? AND status = 'running'`,
      ),
      turns: db.prepare<[string], TurnRow>(
        `SELECT ${TURN_COLUMNS} FROM turns t WHERE chat_id = ? ORDER BY started_at, t.rowid`,
      ),
      turn: db.prepare<[string], TurnRow>(`SELECT ${TURN_COLUMNS} FROM turns t WHERE id = ?`),
      append: db.prepare(
        `INSERT INTO messages (id, chat_id, turn_id, seq, role, parts, usage, created_at)
         VALUES (?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE chat_id = ?), ?, ?, ?, ?)`,
      ),
      messages: db.prepare<[string], MessageRow>('SELECT * FROM messages WHERE chat_id = ? ORDER BY seq'),
      addCompaction: db.prepare(
        `INSERT INTO compactions (id, chat_id, turn_id, reason, after_message_id, elided_through,
           summarized_through, summary, tokens_before, tokens_after, created_at)
         VALUES (@id, @chatId, @turnId, @reason, @afterMessageId, @elidedThrough, @summarizedThrough,
           @summary, @tokensBefore, @tokensAfter, @createdAt)`,
      ),
      compactions: db.prepare<[string], CompactionRow>(
        'SELECT * FROM compactions WHERE chat_id = ? ORDER BY created_at, rowid',
      ),
    }
  }

  /**
   * A new running turn and its prompt, committed together: no turn exists without what started it.
   * What was attached to the prompt comes before its typed text. Refused with `turn_running` while
   * the chat runs a turn, in this process or another (see `refuseIfRunning`).
   */
  beginTurn(
    chatId: string,
    prompt: string,
    attached: MessagePart[] = [],
  ): { turn: Turn; prompt: ChatMessage } {
    return this.db
      .transaction(() => {
        this.refuseIfRunning(chatId)
        const id = randomUUID()
        const owner = thisProcess()
        this.statements.beginTurn.run(id, chatId, owner.pid, owner.start, this.now())
        return {
          turn: this.turn(id),
          prompt: this.append(chatId, id, 'user', [...attached, { type: 'text', text: prompt }]),
        }
      })
      .immediate()
  }

  /** Ends a running turn; an interrupted one takes its unfinished calls with it. */
  endTurn(id: string, status: Exclude<TurnStatus, 'running'>, error: TurnError | null = null): Turn {
    this.db.transaction(() => {
      this.statements.endTurn.run(status, error?.message ?? null, error?.code ?? null, this.now(), id)
      if (status === 'interrupted') this.statements.interruptCalls.run(this.now(), id)
    })()
    return this.turn(id)
  }

  /**
   * A failed or interrupted turn running again (Retry): its prompt and what it stored stay, its
   * error goes. A turn in any other state is refused, so two windows retrying start it once; so is
   * one whose chat runs another turn meanwhile (`turn_running`).
   */
  reopenTurn(id: string): Turn {
    return this.db
      .transaction(() => {
        const { status, chatId } = this.turn(id)
        if (status !== 'failed' && status !== 'interrupted') {
          throw new AtelierError('nothing_to_retry', 'This turn did not fail, so it cannot run again.', {
            turnId: id,
          })
        }
        this.refuseIfRunning(chatId)
        const owner = thisProcess()
        this.statements.reopenTurn.run(owner.pid, owner.start, id)
        return this.turn(id)
      })
      .immediate()
  }

  /**
   * One turn per chat, across processes: a running turn whose process is alive refuses with
   * `turn_running`, naming where it runs; one whose process is gone died with it and is marked
   * interrupted here. Starting a turn checks again in the transaction that writes it, which holds
   * the database's write lock (`immediate`), so two processes starting one at once see each other.
   */
  refuseIfRunning(chatId: string): void {
    for (const running of this.statements.runningIn.all(chatId)) {
      if (!ownerIsAlive(ownerOf(running))) {
        this.endTurn(running.id, 'interrupted', INTERRUPTED)
        continue
      }
      const here = running.pid === thisProcess().pid
      throw new AtelierError(
        'turn_running',
        here
          ? 'This chat is still working on the last prompt. Stop it first.'
          : `This chat is running a turn in another Atelier process (pid ${running.pid}). Stop it there, or wait for it to end.`,
        { chatId, turnId: running.id, pid: running.pid },
      )
    }
  }

  turn(id: string): Turn {
    const row = this.statements.turn.get(id)
    if (!row) throw new AtelierError('not_found', `No turn with id "${id}".`, { id })
    return toTurn(row)
  }

  turns(chatId: string): Turn[] {
    return this.statements.turns.all(chatId).map(toTurn)
  }

  /**
   * Marks turns whose process is gone as interrupted: it crashed or was killed. A turn another live
   * process is running (the desktop app while the CLI opens the same data) is left alone; one that
   * names this process's PID but not its start is not ours (see `ownerIsAlive`).
   */
  markInterrupted(): number {
    const orphans = this.statements.running.all().filter((turn) => !ownerIsAlive(ownerOf(turn)))
    this.db.transaction(() => {
      for (const turn of orphans) this.endTurn(turn.id, 'interrupted', INTERRUPTED)
    })()
    return orphans.length
  }

  append(
    chatId: string,
    turnId: string,
    role: MessageRole,
    parts: MessagePart[],
    usage?: Usage,
  ): ChatMessage {
    const message: ChatMessage = {
      id: randomUUID(),
      chatId,
      turnId,
      role,
      parts,
      createdAt: this.now(),
      ...(usage && { usage }),
    }
    this.statements.append.run(
      message.id,
      chatId,
      turnId,
      chatId,
      role,
      JSON.stringify(parts),
      usage ? JSON.stringify(usage) : null,
      message.createdAt,
    )
    return message
  }

  /**
   * Keeps a call's state as it changes. Not synced to the disk on its own (see `withoutSync`): it
   * must survive Atelier dying, which it does, and it is written on every call.
   */
  saveCall(call: ToolCallState): void {
    withoutSync(this.db, () => this.statements.saveCall.run(callParameters(call)))
  }

  /** A call's end: its result, as a tool message, and its final state, committed together. */
  finishCall(call: ToolCallState, result: ToolResultPart): ChatMessage {
    return this.db.transaction(() => {
      this.statements.saveCall.run(callParameters(call))
      return this.append(call.chatId, call.turnId, 'tool', [result])
    })()
  }

  /** The chat's calls as last stored, oldest first, without their results (those are in the messages). */
  calls(chatId: string): ToolCallState[] {
    return this.statements.calls.all(chatId).map(toCall)
  }

  messages(chatId: string): ChatMessage[] {
    return this.statements.messages.all(chatId).map(toMessage)
  }

  addCompaction(compaction: Omit<Compaction, 'id' | 'createdAt'>): Compaction {
    const stored: Compaction = { ...compaction, id: randomUUID(), createdAt: this.now() }
    this.statements.addCompaction.run(stored)
    return stored
  }

  /** The chat's compactions, oldest first: the last one says what the model sees now. */
  compactions(chatId: string): Compaction[] {
    return this.statements.compactions.all(chatId).map(toCompaction)
  }
}
