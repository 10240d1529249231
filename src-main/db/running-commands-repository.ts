import { type Database, withoutSync } from './database'

/** A shell command as recorded while it runs. */
export interface RunningCommand {
  chatId: string
  /** The call that runs it. */
  callId: string
  /** Its process, the leader of its process group (outside Windows). */
  pid: number
  /** When that process started, where the system says (see `processStartTime`). */
  processStarted?: string
  /** The end of each stream, as last saved. */
  stdout: string
  stderr: string
  startedAt: number
}

/** A recorded command whose call was cut off: Atelier went away while it ran. */
export interface InterruptedCommand extends RunningCommand {
  turnId: string
  /** The tool's name as the model called it. */
  name: string
}

interface RunningCommandRow {
  chat_id: string
  call_id: string
  pid: number
  process_started: string | null
  stdout: string
  stderr: string
  started_at: number
}

/**
 * The shell commands running now, as a later open needs them when Atelier dies under one. Writes
 * are not synced on their own (see `withoutSync`): a kill of Atelier cannot lose them, and a
 * command costs no more disk flushes than it did. After the database is closed (Atelier closing
 * while a command still ends) nothing is written: the record stays, and the next open tells of it.
 */
export class RunningCommandsRepository {
  private readonly statements

  constructor(private readonly db: Database) {
    this.statements = {
      begin: db.prepare(
        `INSERT OR REPLACE INTO running_commands (chat_id, call_id, pid, process_started, started_at)
         VALUES (?, ?, ?, ?, ?)`,
      ),
      saveOutput: db.prepare(
        'UPDATE running_commands SET stdout = ?, stderr = ? WHERE chat_id = ? AND call_id = ?',
      ),
      end: db.prepare('DELETE FROM running_commands WHERE chat_id = ? AND call_id = ?'),
      // A model may give the same call id in more than one turn: the command is the newest call's.
      interrupted: db.prepare<[], RunningCommandRow & { turn_id: string; name: string }>(
        `SELECT r.*, c.turn_id, c.name FROM running_commands r
         JOIN tool_calls c ON c.chat_id = r.chat_id AND c.id = r.call_id
         WHERE c.status = 'failed' AND c.error_type = 'interrupted'
           AND c.created_at = (SELECT max(created_at) FROM tool_calls WHERE chat_id = r.chat_id AND id = r.call_id)
         ORDER BY r.started_at`,
      ),
    }
  }

  begin(command: Omit<RunningCommand, 'stdout' | 'stderr'>): void {
    this.write(() =>
      this.statements.begin.run(
        command.chatId,
        command.callId,
        command.pid,
        command.processStarted ?? null,
        command.startedAt,
      ),
    )
  }

  saveOutput(chatId: string, callId: string, output: Pick<RunningCommand, 'stdout' | 'stderr'>): void {
    this.write(() => this.statements.saveOutput.run(output.stdout, output.stderr, chatId, callId))
  }

  /** The command ended (or was told of): its record goes. */
  end(chatId: string, callId: string): void {
    this.write(() => this.statements.end.run(chatId, callId))
  }

  /** Recorded commands whose call has been marked interrupted (see ConversationRepository.markInterrupted). */
  interrupted(): InterruptedCommand[] {
    return this.statements.interrupted.all().map((row) => ({
      chatId: row.chat_id,
      callId: row.call_id,
      pid: row.pid,
      ...(row.process_started !== null && { processStarted: row.process_started }),
      stdout: row.stdout,
      stderr: row.stderr,
      startedAt: row.started_at,
      turnId: row.turn_id,
      name: row.name,
    }))
  }

  private write(statement: () => unknown): void {
    if (!this.db.open) return
    // Within a transaction the transaction's commit decides; SQLite refuses the pragma there.
    if (this.db.inTransaction) statement()
    else withoutSync(this.db, statement)
  }
}
