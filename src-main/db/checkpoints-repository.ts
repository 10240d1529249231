import { randomUUID } from 'node:crypto'
import type { ChangedBy, Checkpoint, RestoreScope } from '../../src-shared/checkpoints'
import type { Database } from './database'

/** What a restore checkpoint restored, as stored. */
export interface RestoredRecord {
  checkpointId: string
  scope: RestoreScope
  forkChatId?: string
  /** A rewind: the turn it cut the conversation before. */
  turnId?: string
}

/** A checkpoint with the snapshots it joins. */
export interface CheckpointRecord extends Omit<Checkpoint, 'restored'> {
  beforeRoot: string
  afterRoot: string | null
  restored?: RestoredRecord
}

/** One path-setting step of a restore: the path, and the entry to give it (null: remove it). */
export interface RestoreStep {
  path: string
  /** A blob or link target's hash, the type and the mode; null removes the path. */
  to: { type: 'file' | 'symlink' | 'folder'; hash: string; mode: number } | null
}

interface CheckpointRow {
  id: string
  chat_id: string
  turn_id: string | null
  kind: 'turn' | 'restore'
  folder: string
  before_root: string
  after_root: string | null
  added: number
  modified: number
  deleted: number
  undone_by: string | null
  restored: string | null
  untold: string | null
  created_at: number
  ended_at: number | null
}

function toRecord(row: CheckpointRow): CheckpointRecord {
  return {
    id: row.id,
    chatId: row.chat_id,
    turnId: row.turn_id,
    kind: row.kind,
    folder: row.folder,
    createdAt: row.created_at,
    endedAt: row.ended_at,
    added: row.added,
    modified: row.modified,
    deleted: row.deleted,
    undoneBy: row.undone_by,
    beforeRoot: row.before_root,
    afterRoot: row.after_root,
    ...(row.restored && { restored: JSON.parse(row.restored) as RestoredRecord }),
  }
}

/** Checkpoints, the paths each call changed, and restores under way. */
export class CheckpointsRepository {
  private readonly statements

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {
    this.statements = {
      insert: db.prepare(
        `INSERT INTO checkpoints (id, chat_id, turn_id, kind, folder, before_root, restored, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      end: db.prepare(
        `UPDATE checkpoints SET after_root = ?, added = ?, modified = ?, deleted = ?, ended_at = ?
         WHERE id = ?`,
      ),
      get: db.prepare<[string], CheckpointRow>('SELECT * FROM checkpoints WHERE id = ?'),
      ofChat: db.prepare<[string], CheckpointRow>(
        'SELECT * FROM checkpoints WHERE chat_id = ? ORDER BY created_at, rowid',
      ),
      ofTurn: db.prepare<[string], CheckpointRow>(
        `SELECT * FROM checkpoints WHERE turn_id = ? AND kind = 'turn'`,
      ),
      ofFolder: db.prepare<[string], CheckpointRow>(
        'SELECT * FROM checkpoints WHERE folder = ? ORDER BY created_at, rowid',
      ),
      latestOfFolder: db.prepare<[string], { root: string }>(
        `SELECT coalesce(after_root, before_root) AS root FROM checkpoints WHERE folder = ?
         ORDER BY created_at DESC, rowid DESC LIMIT 1`,
      ),
      unendedTurns: db.prepare<[], CheckpointRow>(
        `SELECT * FROM checkpoints WHERE kind = 'turn' AND ended_at IS NULL ORDER BY created_at, rowid`,
      ),
      interruptedCalls: db.prepare<[string], { id: string; name: string }>(
        `SELECT id, name FROM tool_calls WHERE turn_id = ? AND error_type = 'interrupted' ORDER BY call_index`,
      ),
      folders: db.prepare<[], { folder: string }>(
        `SELECT DISTINCT folder FROM checkpoints WHERE folder != ''`,
      ),
      undoneBy: db.prepare('UPDATE checkpoints SET undone_by = ? WHERE id = ?'),
      remove: db.prepare('DELETE FROM checkpoints WHERE id = ?'),
      setRestored: db.prepare('UPDATE checkpoints SET restored = ? WHERE id = ?'),
      undoneByRestore: db.prepare<[string], { id: string }>('SELECT id FROM checkpoints WHERE undone_by = ?'),
      moveTurn: db.prepare('UPDATE checkpoints SET chat_id = ? WHERE turn_id = ?'),
      saveCall: db.prepare(
        `INSERT OR REPLACE INTO checkpoint_calls (checkpoint_id, call_id, tool, paths) VALUES (?, ?, ?, ?)`,
      ),
      calls: db.prepare<[string], { call_id: string; tool: string; paths: string }>(
        'SELECT call_id, tool, paths FROM checkpoint_calls WHERE checkpoint_id = ? ORDER BY rowid',
      ),
      untold: db.prepare<[string], { id: string; untold: string }>(
        `SELECT id, untold FROM checkpoints WHERE chat_id = ? AND untold IS NOT NULL ORDER BY created_at, rowid`,
      ),
      setUntold: db.prepare('UPDATE checkpoints SET untold = ? WHERE id = ?'),
      journal: db.prepare('INSERT INTO restore_journal (checkpoint_id, steps) VALUES (?, ?)'),
      journalDone: db.prepare('DELETE FROM restore_journal WHERE checkpoint_id = ?'),
      journals: db.prepare<[], { checkpoint_id: string; steps: string }>('SELECT * FROM restore_journal'),
    }
  }

  /** A checkpoint begun: the folder as it was before. */
  begin(input: {
    chatId: string
    turnId: string | null
    kind: 'turn' | 'restore'
    folder: string
    beforeRoot: string
    restored?: RestoredRecord
  }): CheckpointRecord {
    const id = randomUUID()
    this.statements.insert.run(
      id,
      input.chatId,
      input.turnId,
      input.kind,
      input.folder,
      input.beforeRoot,
      input.restored ? JSON.stringify(input.restored) : null,
      this.now(),
    )
    return this.get(id) as CheckpointRecord
  }

  end(id: string, afterRoot: string, counts: { added: number; modified: number; deleted: number }): void {
    this.statements.end.run(afterRoot, counts.added, counts.modified, counts.deleted, this.now(), id)
  }

  get(id: string): CheckpointRecord | undefined {
    const row = this.statements.get.get(id)
    return row && toRecord(row)
  }

  ofChat(chatId: string): CheckpointRecord[] {
    return this.statements.ofChat.all(chatId).map(toRecord)
  }

  ofTurn(turnId: string): CheckpointRecord | undefined {
    const row = this.statements.ofTurn.get(turnId)
    return row && toRecord(row)
  }

  ofFolder(folder: string): CheckpointRecord[] {
    return this.statements.ofFolder.all(folder).map(toRecord)
  }

  /** The newest snapshot recorded of a folder, to start the next from. */
  latestRoot(folder: string): string | undefined {
    return this.statements.latestOfFolder.get(folder)?.root
  }

  /** Turn checkpoints never ended: their turn runs, or Atelier went away from it. */
  unendedTurns(): CheckpointRecord[] {
    return this.statements.unendedTurns.all().map(toRecord)
  }

  /** The calls of a turn that were cut off when Atelier went away. */
  interruptedCalls(turnId: string): ChangedBy[] {
    return this.statements.interruptedCalls.all(turnId).map((row) => ({ callId: row.id, tool: row.name }))
  }

  /** The folders checkpoints were taken of (a chat without one rewinds its conversation only). */
  folders(): string[] {
    return this.statements.folders.all().map((row) => row.folder)
  }

  setUndoneBy(id: string, by: string | null): void {
    this.statements.undoneBy.run(by, id)
  }

  setRestored(id: string, restored: RestoredRecord): void {
    this.statements.setRestored.run(JSON.stringify(restored), id)
  }

  /** The checkpoints a restore undid. */
  undoneByRestore(restoreId: string): string[] {
    return this.statements.undoneByRestore.all(restoreId).map((row) => row.id)
  }

  remove(id: string): void {
    this.statements.remove.run(id)
  }

  /** A turn moved to another chat (a rewind's fork) takes its checkpoint along. */
  moveTurn(turnId: string, chatId: string): void {
    this.statements.moveTurn.run(chatId, turnId)
  }

  saveCall(checkpointId: string, by: ChangedBy, paths: readonly string[]): void {
    this.statements.saveCall.run(checkpointId, by.callId, by.tool, JSON.stringify(paths))
  }

  calls(checkpointId: string): { by: ChangedBy; paths: string[] }[] {
    return this.statements.calls.all(checkpointId).map((row) => ({
      by: { callId: row.call_id, tool: row.tool },
      paths: JSON.parse(row.paths) as string[],
    }))
  }

  /** Restores the model has not been told of, and the paths each set back. */
  untold(chatId: string): { id: string; paths: string[] }[] {
    return this.statements.untold.all(chatId).map((row) => ({ id: row.id, paths: JSON.parse(row.untold) }))
  }

  setUntold(id: string, paths: readonly string[] | null): void {
    this.statements.setUntold.run(paths ? JSON.stringify(paths) : null, id)
  }

  journal(checkpointId: string, steps: readonly RestoreStep[]): void {
    this.statements.journal.run(checkpointId, JSON.stringify(steps))
  }

  journalDone(checkpointId: string): void {
    this.statements.journalDone.run(checkpointId)
  }

  /** Restores a crash cut short. */
  journals(): { checkpointId: string; steps: RestoreStep[] }[] {
    return this.statements.journals.all().map((row) => ({
      checkpointId: row.checkpoint_id,
      steps: JSON.parse(row.steps) as RestoreStep[],
    }))
  }

  transaction<T>(work: () => T): T {
    return this.db.transaction(work)()
  }
}
