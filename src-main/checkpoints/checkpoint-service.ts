/**
 * Checkpoints of the folders bound to chats: the folder snapshotted before the first call of a
 * turn that may change it, around each such call, and after the turn; what changed and which call
 * changed it; undo, rewind and redo. One store per folder, shared by its chats, in the data folder
 * (0700) — nothing is ever written into the folder or its `.git` but by a restore.
 */
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import type { AttachmentPart } from '../../src-shared/agent'
import type {
  ChangedBy,
  Checkpoint,
  CheckpointChanges,
  CheckpointSettings,
  ConflictChoice,
  FileChangeDiff,
  FileState,
  RestoreOutcome,
  RestoreScope,
  SnapshotProgress,
} from '../../src-shared/checkpoints'
import type { Chat, MethodRequest } from '../../src-shared/contract'
import { AtelierError } from '../../src-shared/errors'
import type { ChatService } from '../chats/chat-service'
import { untilAborted } from '../core/abort'
import type { AtelierEvents } from '../core/events'
import type { CheckpointRecord, CheckpointsRepository, RestoreStep } from '../db/checkpoints-repository'
import type { ConversationForks } from '../db/conversation-forks'
import { unifiedDiff } from '../tools/diff'
import type { CheckpointedCall } from '../tools/scheduler/scheduler'
import { applySteps } from './apply-steps'
import { FolderSnapshots, type SnapshotCount } from './folder-snapshots'
import { ObjectStore, type TreeEntry } from './object-store'
import { diffSnapshots, type SnapshotChange } from './snapshot-diff'

/** The folder under the data folder that holds every folder's store. */
export const CHECKPOINTS_FOLDER = 'checkpoints'
/** A restore that had nothing to set back. */
const NOTHING_RESTORED: RestoreOutcome = {
  preview: false,
  checkpointId: null,
  restored: [],
  conflicts: [],
  notRestorable: [],
}
/** Diffs past this are not shown: the file is listed, with why. */
const DIFF_MAX_BYTES = 1024 * 1024

export interface CheckpointServiceDeps {
  dataDir: string
  repository: CheckpointsRepository
  forks: ConversationForks
  chats: ChatService
  settings: () => CheckpointSettings
  events: AtelierEvents
}

interface OpenFolder {
  store: ObjectStore
  snapshots: FolderSnapshots
  /** The first snapshot, taken when the folder was bound. */
  first?: Promise<string>
}

/** Whether a call may change the folder: edits and commands, and any tool from outside not marked read. */
export function mayChangeFolder(call: Pick<CheckpointedCall, 'kind' | 'source'>): boolean {
  if (call.source.kind === 'builtin') return call.kind === 'edit' || call.kind === 'execute'
  return call.kind !== 'read'
}

export class CheckpointService {
  private readonly open = new Map<string, OpenFolder>()
  private resuming: Promise<number> | undefined
  /** Atelier is closing: no snapshot is taken from now on. */
  closed = false

  constructor(private readonly deps: CheckpointServiceDeps) {}

  /** Whether checkpoints are on for this folder. */
  isOn(folder: string | null): folder is string {
    const settings = this.deps.settings()
    return folder !== null && settings.enabled && !settings.offFolders.includes(folder)
  }

  /**
   * Takes the folder's first snapshot in the background (a chat was bound to it), telling how far
   * it has got: later snapshots cost what changed.
   */
  warm(folder: string | null): void {
    if (!this.isOn(folder) || !existsSync(folder)) return
    this.first(folder).catch(() => {})
  }

  /** A turn's recorder, or undefined when the chat's folder has no checkpoints. */
  forTurn(chat: Chat, turnId: string): TurnCheckpoints | undefined {
    const folder = chat.mode === 'agent' ? chat.workingDir : null
    if (!this.isOn(folder)) return undefined
    return new TurnCheckpoints(this, chat.id, turnId, folder)
  }

  list({ chatId }: { chatId: string }): { checkpoints: Checkpoint[] } {
    this.deps.chats.get(chatId)
    return { checkpoints: this.deps.repository.ofChat(chatId).map(toCheckpoint) }
  }

  checkpoint(id: string): Checkpoint {
    return toCheckpoint(this.get(id))
  }

  changes({ id }: { id: string }): CheckpointChanges {
    const checkpoint = this.get(id)
    const files = this.changesOf(checkpoint).map((change) =>
      withDiff(this.folder(checkpoint.folder).store, change),
    )
    return { checkpoint: toCheckpoint(checkpoint), files }
  }

  /**
   * Undoes a turn's changes (the conversation stays), or a restore (redo). Paths changed since are
   * conflicts: `choices` settle them; unsettled, the person's version stays.
   */
  async undo(request: {
    id: string
    choices?: ConflictChoice[]
    preview?: boolean
  }): Promise<RestoreOutcome> {
    const checkpoint = this.ended(request.id)
    const redo = checkpoint.kind === 'restore' ? checkpoint.restored : undefined
    const rejoin = redo && redo.scope !== 'files' ? this.movedTurns(checkpoint) : undefined
    // Only the agent's changes are undone; what someone else did during the turn stays.
    const touched = new Map<string, string>()
    for (const change of this.changesOf(checkpoint)) {
      if (redo || change.by.length > 0) touched.set(change.path, checkpoint.afterRoot)
    }
    return this.restore({
      chatId: checkpoint.chatId,
      folder: checkpoint.folder,
      from: checkpoint.id,
      base: checkpoint.beforeRoot,
      touched,
      scope: redo?.scope ?? 'files',
      choices: request.choices ?? [],
      preview: request.preview === true,
      ...(rejoin && {
        conversation: () => {
          this.deps.forks.join(checkpoint.chatId, rejoin.forkChatId, rejoin.turns)
          this.deps.chats.touch(checkpoint.chatId)
          return undefined
        },
      }),
      done: (restoreId) => {
        // Redo: what the undone restore had undone counts as done again.
        if (redo)
          for (const undid of this.undoneBy(checkpoint.id)) this.deps.repository.setUndoneBy(undid, null)
        this.deps.repository.setUndoneBy(checkpoint.id, restoreId)
      },
    })
  }

  /**
   * Rewinds the chat to before the prompt of `turnId`: the folder to before that turn's first
   * change, the conversation cut before the prompt (the later turns moved to a fork), or both.
   */
  async rewind(request: {
    chatId: string
    turnId: string
    scope: RestoreScope
    choices?: ConflictChoice[]
    preview?: boolean
  }): Promise<RestoreOutcome> {
    const chat = this.deps.chats.get(request.chatId)
    if (this.deps.forks.isRunning(chat.id)) {
      throw new AtelierError(
        'turn_running',
        'This chat is still working: stop the turn before rewinding it.',
        {
          chatId: chat.id,
        },
      )
    }
    const later = new Set(this.deps.forks.turnsFrom(chat.id, request.turnId))
    if (later.size === 0) {
      throw new AtelierError('not_found', 'This chat has no such prompt to rewind to.', {
        turnId: request.turnId,
      })
    }
    const all = this.deps.repository.ofChat(chat.id)
    const first = all.find((checkpoint) => checkpoint.turnId !== null && later.has(checkpoint.turnId))
    const since = first ? all.filter((checkpoint) => checkpoint.createdAt >= first.createdAt) : []
    // Each path the agent changed since, with the snapshot of the state it was last left in.
    const touched = new Map<string, string>()
    if (request.scope !== 'conversation') {
      for (const checkpoint of since) {
        const afterRoot = this.ended(checkpoint.id).afterRoot
        for (const change of this.changesOf(checkpoint)) {
          if (checkpoint.kind === 'restore' || change.by.length > 0) touched.set(change.path, afterRoot)
        }
      }
    }
    return this.restore({
      chatId: chat.id,
      folder: first?.folder ?? (chat.mode === 'agent' ? chat.workingDir : null),
      from: first?.id ?? null,
      base: first?.beforeRoot ?? '',
      touched,
      scope: request.scope,
      choices: request.choices ?? [],
      preview: request.preview === true,
      rewindTurn: request.turnId,
      ...(request.scope !== 'files' && {
        conversation: (restore) => this.splitConversation(restore, request.turnId),
      }),
      done: (restoreId) => {
        if (touched.size === 0) return
        for (const checkpoint of since)
          if (!checkpoint.undoneBy) this.deps.repository.setUndoneBy(checkpoint.id, restoreId)
      },
    })
  }

  /**
   * Fork from here (see `ChatService.fork`), and with `restoreFiles` the folder set back to how it
   * was when the forked turn ended: what the agent changed in the later turns is undone, as a rewind
   * of the files to the next prompt would. That restore belongs to the chat forked from — its folder
   * changed under it, so its next prompt is told, and it is undone (redone) from there. Conflicts
   * keep the person's version, as headless restores do.
   */
  async fork({
    restoreFiles,
    ...request
  }: MethodRequest<'chats.fork'>): Promise<{ chat: Chat; restore?: RestoreOutcome }> {
    if (!restoreFiles) return { chat: this.deps.chats.fork(request) }
    if (this.deps.forks.isRunning(request.id)) {
      throw new AtelierError(
        'turn_running',
        'This chat is still working: stop the turn before forking it with its files.',
        {
          chatId: request.id,
        },
      )
    }
    const chat = this.deps.chats.fork(request)
    const through = this.deps.forks.turnIds(chat.id).length
    const next = this.deps.forks.turnIds(request.id)[through]
    if (next === undefined) return { chat, restore: NOTHING_RESTORED }
    try {
      return { chat, restore: await this.rewind({ chatId: request.id, turnId: next, scope: 'files' }) }
    } catch (error) {
      this.deps.chats.delete({ id: chat.id })
      throw error
    }
  }

  /**
   * What the model is told with the next prompt of a chat: the restores since its last turn and the
   * paths they set back. Told once.
   */
  takeNotice(chatId: string): AttachmentPart | undefined {
    const untold = this.deps.repository.untold(chatId)
    if (untold.length === 0) return undefined
    const paths = [...new Set(untold.flatMap((restore) => restore.paths))].sort()
    for (const restore of untold) this.deps.repository.setUntold(restore.id, null)
    const text = [
      'Since your last turn the person restored files of the folder from a checkpoint, undoing changes made there.',
      'These paths are now as they were before those changes; read them again before relying on what you knew of them:',
      ...paths.map((path) => `- ${path}`),
    ].join('\n')
    return {
      type: 'attachment',
      attachment: { kind: 'notice', name: `${paths.length} files restored`, text },
    }
  }

  /**
   * Restores a crash cut short are finished; resolves with how many. Their writes are done at once,
   * before this returns; recording the folder after them is what may wait. Asked again, the same work.
   */
  resumeRestores(): Promise<number> {
    this.resuming ??= this.resume()
    return this.resuming
  }

  private async resume(): Promise<number> {
    const { repository } = this.deps
    const journals = repository.journals()
    for (const journal of journals) {
      const checkpoint = repository.get(journal.checkpointId)
      if (!checkpoint) continue
      applySteps(checkpoint.folder, this.folder(checkpoint.folder).store, journal.steps, checkpoint.id)
      await this.endRestore(checkpoint)
    }
    for (const checkpoint of repository.unendedTurns()) {
      if (checkpoint.turnId && this.deps.forks.isTurnRunning(checkpoint.turnId)) continue
      if (!existsSync(checkpoint.folder)) continue
      await this.endInterrupted(checkpoint)
    }
    return journals.length
  }

  /**
   * A turn Atelier went away from (a crash, a kill) left its checkpoint open: it ends with the
   * folder as it is now, and what no finished call accounts for is put down to the calls that were
   * cut off — what they did, and whatever else changed before this start.
   */
  private async endInterrupted(checkpoint: CheckpointRecord): Promise<void> {
    const { repository } = this.deps
    const after = await this.snapshot(checkpoint.folder)
    const accounted = new Set(repository.calls(checkpoint.id).flatMap((call) => call.paths))
    const rest = this.paths(checkpoint.folder, checkpoint.beforeRoot, after).filter(
      (path) => !accounted.has(path),
    )
    for (const call of repository.interruptedCalls(checkpoint.turnId ?? ''))
      repository.saveCall(checkpoint.id, call, rest)
    this.endTurn(checkpoint, after)
  }

  /**
   * Drops checkpoints past the retention (older than its days, or the oldest while a folder's
   * store is past its size), then the objects no checkpoint needs any more.
   */
  prune(now = Date.now()): { removed: number; freedBytes: number } {
    const { retentionDays, retentionBytes } = this.deps.settings()
    const { repository } = this.deps
    let removed = 0
    let freedBytes = 0
    for (const folder of repository.folders()) {
      const open = this.folder(folder)
      let checkpoints = repository.ofFolder(folder)
      for (const checkpoint of checkpoints) {
        if (checkpoint.createdAt >= now - retentionDays * 86_400_000 || checkpoint.endedAt === null) continue
        repository.remove(checkpoint.id)
        removed++
      }
      checkpoints = repository.ofFolder(folder)
      freedBytes += open.store.sweep(open.store.reachable(this.rootsOf(folder)))
      let size = open.store.size()
      while (size > retentionBytes && checkpoints.length > 1) {
        const oldest = checkpoints.shift() as CheckpointRecord
        if (oldest.endedAt === null) break
        repository.remove(oldest.id)
        removed++
        const freed = open.store.sweep(open.store.reachable(this.rootsOf(folder)))
        freedBytes += freed
        size -= freed
      }
    }
    return { removed, freedBytes }
  }

  /** Every folder's store checked: what is broken, by folder (empty when all is sound). */
  check(): { folder: string; object: string; problem: string }[] {
    return this.deps.repository.folders().flatMap((folder) =>
      this.folder(folder)
        .store.check(this.rootsOf(folder))
        .map((problem) => ({ folder, ...problem })),
    )
  }

  close(): void {
    this.closed = true
    for (const open of this.open.values()) open.snapshots.close()
    this.open.clear()
  }

  /** The folder's snapshot as it is now (after its first, in the background, if that is running). */
  async snapshot(folder: string): Promise<string> {
    if (this.closed) throw new AtelierError('interrupted', 'Atelier is closing.')
    const open = this.folder(folder)
    await this.first(folder)
    return open.snapshots.snapshot()
  }

  /** @internal for TurnCheckpoints */
  record(): CheckpointsRepository {
    return this.deps.repository
  }

  /** @internal for TurnCheckpoints: a turn's checkpoint ended, with its counts. */
  endTurn(checkpoint: CheckpointRecord, afterRoot: string): void {
    const { store } = this.folder(checkpoint.folder)
    this.deps.repository.end(
      checkpoint.id,
      afterRoot,
      count(diffSnapshots(store, checkpoint.beforeRoot, afterRoot)),
    )
    this.changed(checkpoint.chatId)
  }

  /** @internal */
  paths(folder: string, before: string, after: string): string[] {
    return diffSnapshots(this.folder(folder).store, before, after).map((change) => change.path)
  }

  /** @internal */
  changed(chatId: string): void {
    this.deps.events.emit('checkpoints.changed', { chatId })
  }

  private first(folder: string): Promise<string> {
    const open = this.folder(folder)
    if (!open.first) {
      let last = 0
      const progress = (count: SnapshotCount, done: boolean) => {
        const now = performance.now()
        if (!done && now - last < 250) return
        last = now
        const event: SnapshotProgress = { folder, files: count.files, bytes: count.bytes, done }
        this.deps.events.emit('checkpoints.progress', event)
      }
      let latest: SnapshotCount = { files: 0, bytes: 0 }
      open.first = open.snapshots.snapshot((count) => {
        latest = count
        progress(count, false)
      })
      open.first.then(
        () => progress(latest, true),
        () => {
          open.first = undefined
        },
      )
    }
    return open.first
  }

  private folder(folder: string): OpenFolder {
    let open = this.open.get(folder)
    if (!open) {
      const root = join(this.deps.dataDir, CHECKPOINTS_FOLDER)
      mkdirSync(root, { recursive: true, mode: 0o700 })
      chmodSync(root, 0o700)
      const key = createHash('sha256').update(folder).digest('hex').slice(0, 24)
      const store = new ObjectStore(join(root, key))
      const previous = this.deps.repository.latestRoot(folder)
      const snapshots = new FolderSnapshots(folder, store, {
        maxFileBytes: this.deps.settings().maxFileBytes,
        exclude: [this.deps.dataDir],
        ...(previous && { previous }),
      })
      open = { store, snapshots }
      this.open.set(folder, open)
    }
    return open
  }

  private get(id: string): CheckpointRecord {
    const checkpoint = this.deps.repository.get(id)
    if (!checkpoint) throw new AtelierError('not_found', `No checkpoint with id "${id}".`, { id })
    return checkpoint
  }

  /** A checkpoint whose turn or restore has ended: one still running cannot be undone. */
  private ended(id: string): CheckpointRecord & { afterRoot: string } {
    const checkpoint = this.get(id)
    if (checkpoint.afterRoot === null) {
      throw new AtelierError(
        'turn_running',
        'This turn is still running: stop it or wait for it to end first.',
        {
          id,
        },
      )
    }
    return checkpoint as CheckpointRecord & { afterRoot: string }
  }

  /** What a checkpoint changed, each path with the calls that changed it. */
  private changesOf(checkpoint: CheckpointRecord): (SnapshotChange & { by: ChangedBy[] })[] {
    // A rewind of a chat without a folder changed its conversation only.
    if (checkpoint.afterRoot === null || !checkpoint.folder) return []
    const { store } = this.folder(checkpoint.folder)
    const calls = this.deps.repository.calls(checkpoint.id)
    return diffSnapshots(store, checkpoint.beforeRoot, checkpoint.afterRoot).map((change) => ({
      ...change,
      by: calls.filter((call) => call.paths.includes(change.path)).map((call) => call.by),
    }))
  }

  /** The checkpoints a restore undid. */
  private undoneBy(restoreId: string): string[] {
    return this.deps.repository.undoneByRestore(restoreId)
  }

  private rootsOf(folder: string): string[] {
    return this.deps.repository
      .ofFolder(folder)
      .flatMap((checkpoint) => [
        checkpoint.beforeRoot,
        ...(checkpoint.afterRoot ? [checkpoint.afterRoot] : []),
      ])
  }

  /**
   * Sets each touched path back to `base`, unless it changed since the state it was left in (its
   * expected root): then it is a conflict, kept as the person has it unless they chose otherwise.
   * The restore is journaled before the first write, and is itself a checkpoint (redo undoes it).
   */
  private async restore(plan: {
    chatId: string
    /** Null for a chat without a folder: only its conversation can be rewound. */
    folder: string | null
    /** The checkpoint it goes back to (or undoes). */
    from: string | null
    base: string
    /** Path → the snapshot holding the state it was last left in. */
    touched: Map<string, string>
    scope: RestoreScope
    choices: ConflictChoice[]
    preview: boolean
    rewindTurn?: string
    /** The conversation's part (a rewind's split, a redo's join); returns the fork chat, if any. */
    conversation?: (restore: CheckpointRecord) => string | undefined
    done: (restoreId: string) => void
  }): Promise<RestoreOutcome> {
    const { folder } = plan
    const outcome: RestoreOutcome = {
      preview: plan.preview,
      checkpointId: null,
      restored: [],
      conflicts: [],
      notRestorable: [],
    }
    const steps: RestoreStep[] = []
    const current = folder ? await this.snapshot(folder) : ''
    if (folder && plan.touched.size > 0) {
      const { store } = this.folder(folder)
      const choices = new Map(plan.choices.map((choice) => [choice.path, choice.take]))
      for (const [path, expectedRoot] of [...plan.touched].sort(([a], [b]) => a.localeCompare(b))) {
        const target = store.entryAt(plan.base, path)
        const now = store.entryAt(current, path)
        if (sameState(now, target)) continue
        if (!sameState(now, store.entryAt(expectedRoot, path))) {
          const kept = choices.get(path) ?? 'mine'
          outcome.conflicts.push({ path, kept })
          if (kept === 'mine') continue
        }
        if (target && !target.stored) {
          outcome.notRestorable.push({
            path,
            reason: 'It was larger than the size limit when recorded: only its hash and size were kept.',
          })
          continue
        }
        steps.push({ path, to: target ? { type: target.type, hash: target.hash, mode: target.mode } : null })
        outcome.restored.push(path)
      }
    }
    if (plan.preview || (steps.length === 0 && !plan.conversation)) return outcome
    const record = this.deps.repository.begin({
      chatId: plan.chatId,
      turnId: null,
      kind: 'restore',
      folder: folder ?? '',
      beforeRoot: current,
      restored: {
        checkpointId: plan.from ?? '',
        scope: plan.scope,
        ...(plan.rewindTurn && { turnId: plan.rewindTurn }),
      },
    })
    outcome.checkpointId = record.id
    if (folder && steps.length > 0) {
      this.deps.repository.journal(record.id, steps)
      applySteps(folder, this.folder(folder).store, steps, record.id)
      this.deps.repository.setUntold(record.id, outcome.restored)
    }
    const forkChatId = plan.conversation?.(record)
    if (forkChatId) outcome.forkChatId = forkChatId
    plan.done(record.id)
    await this.endRestore(record)
    return outcome
  }

  /** A restore's writes are done: the folder after it is recorded and its journal closed. */
  private async endRestore(record: CheckpointRecord): Promise<void> {
    const after = record.folder ? await this.folder(record.folder).snapshots.snapshot() : ''
    const counts = record.folder
      ? count(diffSnapshots(this.folder(record.folder).store, record.beforeRoot, after))
      : { added: 0, modified: 0, deleted: 0 }
    this.deps.repository.transaction(() => {
      this.deps.repository.end(record.id, after, counts)
      this.deps.repository.journalDone(record.id)
    })
    this.changed(record.chatId)
  }

  /** The chat's turns from `turnId` on move to a fork chat; returns its id. */
  private splitConversation(record: CheckpointRecord, turnId: string): string {
    const fork = this.deps.chats.branch(record.chatId, 'before rewind')
    this.deps.forks.split(record.chatId, turnId, fork.id)
    const restored = {
      ...(record.restored as NonNullable<CheckpointRecord['restored']>),
      forkChatId: fork.id,
    }
    this.deps.repository.setRestored(record.id, restored)
    record.restored = restored
    this.deps.chats.touch(record.chatId)
    return fork.id
  }

  /**
   * Redo of a rewind: the turns its fork holds, which come back to the chat — refused, before
   * anything is written, when the chat has gone on since.
   */
  private movedTurns(restore: CheckpointRecord): { forkChatId: string; turns: string[] } | undefined {
    const restored = restore.restored
    if (!restored?.forkChatId || !restored.turnId) return undefined
    const turns = this.deps.forks.turnsFrom(restored.forkChatId, restored.turnId)
    if (turns.length === 0 || this.deps.forks.hasTurnsAfter(restore.chatId, restore.createdAt)) {
      throw new AtelierError(
        'checkpoint_conflict',
        'The chat has gone on since the rewind: its later turns stay in the fork chat.',
        { forkChatId: restored.forkChatId },
      )
    }
    return { forkChatId: restored.forkChatId, turns }
  }
}

/**
 * One turn's checkpoint: begun with the snapshot before its first call that may change the
 * folder, and the paths each such call changed (a snapshot before and after it).
 */
export class TurnCheckpoints {
  private checkpoint: CheckpointRecord | undefined
  /** A snapshot failed: the turn goes on without checkpoints. */
  private broken = false

  constructor(
    private readonly service: CheckpointService,
    private readonly chatId: string,
    private readonly turnId: string,
    private readonly folder: string,
  ) {}

  /**
   * Runs a call, snapshotting the folder around it when it may change it. A stop while the folder's
   * first snapshot is still being taken stops the call before it runs (the snapshot goes on).
   */
  async around<T>(call: CheckpointedCall, signal: AbortSignal, run: () => Promise<T>): Promise<T> {
    if (this.broken || !mayChangeFolder(call)) return run()
    const before = await untilAborted(this.snap(), signal)
    if (before === undefined) return run()
    this.checkpoint ??= this.service.record().begin({
      chatId: this.chatId,
      turnId: this.turnId,
      kind: 'turn',
      folder: this.folder,
      beforeRoot: before,
    })
    if (this.checkpoint) this.service.changed(this.chatId)
    try {
      return await run()
    } finally {
      const after = await this.snap()
      if (after !== undefined && this.checkpoint) {
        let paths = this.service.paths(this.folder, before, after)
        // A file tool changes the files it names; anything else changed meanwhile was someone else.
        if (call.source.kind === 'builtin' && call.kind === 'edit') {
          const own = new Set(call.locations.map((location) => toRelative(this.folder, location)))
          paths = paths.filter((path) => own.has(path))
        }
        this.service.record().saveCall(this.checkpoint.id, { callId: call.id, tool: call.tool }, paths)
      }
    }
  }

  /**
   * The turn has ended: the folder after it is recorded. When it cannot be (Atelier is closing),
   * the checkpoint stays open and the next start ends it (see `resumeRestores`).
   */
  async finish(): Promise<void> {
    if (!this.checkpoint) return
    const after = await this.snap()
    if (after !== undefined) this.service.endTurn(this.checkpoint, after)
  }

  private async snap(): Promise<string | undefined> {
    try {
      return await this.service.snapshot(this.folder)
    } catch (error) {
      this.broken = true
      // Closing, the next start ends the checkpoint; any other failure is worth a word.
      if (!this.service.closed) console.warn(`Checkpoints are off for this turn: ${(error as Error).message}`)
      return undefined
    }
  }
}

function toRelative(folder: string, path: string): string {
  return relative(folder, path).split(sep).join('/')
}

function sameState(a: TreeEntry | undefined, b: TreeEntry | undefined): boolean {
  if (!a || !b) return a === b
  return a.type === b.type && a.mode === b.mode && (a.type === 'folder' || a.hash === b.hash)
}

function count(changes: readonly SnapshotChange[]) {
  const counts = { added: 0, modified: 0, deleted: 0 }
  for (const change of changes) {
    if ((change.after ?? change.before)?.type === 'folder') continue
    if (!change.before) counts.added++
    else if (!change.after) counts.deleted++
    else counts.modified++
  }
  return counts
}

function toCheckpoint(record: CheckpointRecord): Checkpoint {
  const { beforeRoot: _before, afterRoot: _after, restored, ...rest } = record
  return {
    ...rest,
    ...(restored && {
      restored: {
        checkpointId: restored.checkpointId,
        scope: restored.scope,
        ...(restored.forkChatId && { forkChatId: restored.forkChatId }),
      },
    }),
  }
}

function stateOf(entry: TreeEntry | null): FileState | null {
  return entry && { type: entry.type, size: entry.size, mode: entry.mode, stored: entry.stored }
}

function withDiff(store: ObjectStore, change: SnapshotChange & { by: ChangedBy[] }): FileChangeDiff {
  const { before, after, path, by } = change
  const base = {
    path,
    change: before ? (after ? 'modified' : 'deleted') : 'added',
    before: stateOf(before),
    after: stateOf(after),
    by,
  } as const
  const sides = [before, after].filter((entry): entry is TreeEntry => entry !== null)
  if (sides.some((entry) => entry.type !== 'file')) return { ...base, noDiff: 'not a file' }
  if (sides.some((entry) => !entry.stored)) return { ...base, noDiff: 'too large to keep' }
  if (before && after && before.hash === after.hash) return { ...base, noDiff: 'only its mode changed' }
  const read = (entry: TreeEntry | null) => (entry ? store.get(entry.hash) : Buffer.alloc(0))
  const diff = unifiedDiff(path, read(before), read(after), DIFF_MAX_BYTES)
  return diff === undefined ? { ...base, noDiff: 'binary or too large to show' } : { ...base, diff }
}
