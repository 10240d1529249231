/**
 * Checkpoints as every layer sees them: snapshots of a chat's bound folder around the turns and
 * calls that may change it, what changed between them, and undoing it. The store and the recording
 * live in `src-main/checkpoints/`.
 */
import { type Static, Type } from '@sinclair/typebox'

const MIB = 1024 * 1024

export const CheckpointSettings = Type.Object({
  /** Folders are snapshotted around the calls that may change them. */
  enabled: Type.Boolean(),
  /** Folders where they are off although `enabled` is on (real paths, as bound). */
  offFolders: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 500 }),
  /** Files larger than this are recorded by hash and size only: a restore cannot bring them back. */
  maxFileBytes: Type.Integer({ minimum: 1024, maximum: 1024 * MIB }),
  /** Checkpoints older than this are dropped. */
  retentionDays: Type.Integer({ minimum: 1, maximum: 3650 }),
  /** Past this much stored per folder, the oldest checkpoints are dropped first. */
  retentionBytes: Type.Integer({ minimum: 16 * MIB, maximum: 1024 * 1024 * MIB }),
})
export type CheckpointSettings = Static<typeof CheckpointSettings>

export const DEFAULT_CHECKPOINT_SETTINGS: CheckpointSettings = {
  enabled: true,
  offFolders: [],
  maxFileBytes: 5 * MIB,
  retentionDays: 30,
  retentionBytes: 2048 * MIB,
}

/** One side of a change: what was at a path. `stored: false` when it was too large to keep. */
export const FileState = Type.Object({
  type: Type.Union([Type.Literal('file'), Type.Literal('symlink'), Type.Literal('folder')]),
  size: Type.Number(),
  /** Permission bits (0o755 …). */
  mode: Type.Integer(),
  stored: Type.Boolean(),
})
export type FileState = Static<typeof FileState>

/** A call of the turn that changed a path. */
export const ChangedBy = Type.Object({ callId: Type.String(), tool: Type.String() })
export type ChangedBy = Static<typeof ChangedBy>

/** One path a turn changed: added, modified (content, mode or type) or deleted. */
export const FileChange = Type.Object({
  /** Relative to the folder, with `/`. */
  path: Type.String(),
  change: Type.Union([Type.Literal('added'), Type.Literal('modified'), Type.Literal('deleted')]),
  before: Type.Union([FileState, Type.Null()]),
  after: Type.Union([FileState, Type.Null()]),
  /** The calls that changed it; empty when someone else did (the person's editor) during the turn. */
  by: Type.Array(ChangedBy),
})
export type FileChange = Static<typeof FileChange>

/** A file change with its unified diff, when both sides are stored text and the diff is not too long. */
export const FileChangeDiff = Type.Composite([
  FileChange,
  Type.Object({
    diff: Type.Optional(Type.String()),
    /** Why there is no diff: binary, too large, a folder or link, too long to show. */
    noDiff: Type.Optional(Type.String()),
  }),
])
export type FileChangeDiff = Static<typeof FileChangeDiff>

/**
 * A checkpoint: the folder before and after a turn that may have changed it (`turn`), or before and
 * after a restore (`restore`), which is how a restore is undone (redo).
 */
export const Checkpoint = Type.Object({
  id: Type.String(),
  chatId: Type.String(),
  /** The turn it records; for a restore, null. */
  turnId: Type.Union([Type.String(), Type.Null()]),
  kind: Type.Union([Type.Literal('turn'), Type.Literal('restore')]),
  folder: Type.String(),
  createdAt: Type.Number(),
  /** Null while the turn (or the restore) runs. */
  endedAt: Type.Union([Type.Number(), Type.Null()]),
  /** How many paths changed in all, by anyone. */
  added: Type.Integer(),
  modified: Type.Integer(),
  deleted: Type.Integer(),
  /** The restore that undid it, if one did and was not itself undone. */
  undoneBy: Type.Union([Type.String(), Type.Null()]),
  /** A restore: which checkpoint it went back to, and what it did. */
  restored: Type.Optional(
    Type.Object({
      checkpointId: Type.String(),
      scope: Type.Union([Type.Literal('files'), Type.Literal('conversation'), Type.Literal('both')]),
      /** The chat holding the conversation as it was before a rewind. */
      forkChatId: Type.Optional(Type.String()),
    }),
  ),
})
export type Checkpoint = Static<typeof Checkpoint>

export const CheckpointChanges = Type.Object({
  checkpoint: Checkpoint,
  files: Type.Array(FileChangeDiff),
})
export type CheckpointChanges = Static<typeof CheckpointChanges>

export const RestoreScope = Type.Union([
  Type.Literal('files'),
  Type.Literal('conversation'),
  Type.Literal('both'),
])
export type RestoreScope = Static<typeof RestoreScope>

/** For a path in conflict: keep the person's version, or take the checkpoint's. */
export const ConflictChoice = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 4096 }),
    take: Type.Union([Type.Literal('mine'), Type.Literal('checkpoint')]),
  },
  { additionalProperties: false },
)
export type ConflictChoice = Static<typeof ConflictChoice>

/** A path that changed after the checkpoint: restoring it would lose someone's later work. */
export const RestoreConflict = Type.Object({
  path: Type.String(),
  /** What was decided: unresolved conflicts keep the person's version. */
  kept: Type.Union([Type.Literal('mine'), Type.Literal('checkpoint')]),
})
export type RestoreConflict = Static<typeof RestoreConflict>

/** What a restore did — or, previewed, would do. */
export const RestoreOutcome = Type.Object({
  preview: Type.Boolean(),
  /** The restore's own checkpoint: undoing it is redo. Null for a preview or when nothing changed. */
  checkpointId: Type.Union([Type.String(), Type.Null()]),
  /** Paths set back to the checkpoint's version (written, removed or created). */
  restored: Type.Array(Type.String()),
  conflicts: Type.Array(RestoreConflict),
  /** Paths it could not bring back, and why (recorded by hash and size only). */
  notRestorable: Type.Array(Type.Object({ path: Type.String(), reason: Type.String() })),
  /** A rewind of the conversation: the later turns now live in this chat. */
  forkChatId: Type.Optional(Type.String()),
})
export type RestoreOutcome = Static<typeof RestoreOutcome>

/** The first snapshot of a folder, taken in the background when it is bound. */
export const SnapshotProgress = Type.Object({
  folder: Type.String(),
  files: Type.Integer(),
  bytes: Type.Number(),
  done: Type.Boolean(),
})
export type SnapshotProgress = Static<typeof SnapshotProgress>
