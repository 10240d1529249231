import { useEffect, useId, useState } from 'react'
import type {
  Checkpoint,
  ConflictChoice,
  FileChangeDiff,
  RestoreConflict,
  RestoreOutcome,
} from '../../../../src-shared/checkpoints'
import { errorMessage } from '../../errors'
import { useApi } from './api-context'
import { ChangedFileItem } from './ChangedFileItem'
import { ChatIcon } from './ChatIcon'
import { changesLine, outcomeSentences } from './checkpoint-words'
import { useCheckpointsContext } from './checkpoints-context'
import { RestoreConflictsDialog } from './RestoreConflictsDialog'

type Action = 'Undo' | 'Redo'

/** The restore the person asked for, waiting on their choice for the files in conflict. */
interface PendingRestore {
  id: string
  action: Action
  conflicts: RestoreConflict[]
}

/**
 * What a turn changed in the folder, under its last message: one line of counts that opens the
 * list of files (each with its call and diff), and Undo — or, once undone, Redo. A restore is
 * previewed first: files changed since the turn are put to the person before anything is written.
 */
export function ChangesSummary({ turnId }: { turnId: string }) {
  const { byTurn, running } = useCheckpointsContext()
  const checkpoint = byTurn.get(turnId)
  return checkpoint ? <TurnChanges checkpoint={checkpoint} running={running} /> : null
}

function TurnChanges({ checkpoint, running }: { checkpoint: Checkpoint; running: boolean }) {
  const api = useApi()
  const listId = useId()
  const [open, setOpen] = useState(false)
  const [files, setFiles] = useState<FileChangeDiff[]>()
  const [loadError, setLoadError] = useState<string>()
  const [busy, setBusy] = useState(false)
  const [pending, setPending] = useState<PendingRestore>()
  const [done, setDone] = useState<{ action: Action; outcome: RestoreOutcome }>()
  const [failure, setFailure] = useState<string>()

  // What a turn changed never changes: it is asked for once, when first shown.
  useEffect(() => {
    if (!open || files) return
    api.checkpoints.changes({ id: checkpoint.id }).then(
      (changes) => setFiles(changes.files),
      (error) => setLoadError(errorMessage(error)),
    )
  }, [api, checkpoint.id, open, files])

  const restore = async (id: string, action: Action, choices?: ConflictChoice[]) => {
    setBusy(true)
    setFailure(undefined)
    setDone(undefined)
    try {
      if (!choices) {
        const preview = await api.checkpoints.undo({ id, preview: true })
        if (preview.conflicts.length > 0) {
          setPending({ id, action, conflicts: preview.conflicts })
          return
        }
      }
      const outcome = await api.checkpoints.undo({ id, ...(choices && { choices }) })
      setDone({ action, outcome })
    } catch (error) {
      setFailure(errorMessage(error))
    } finally {
      setBusy(false)
    }
  }

  const undone = checkpoint.undoneBy !== null
  const action: Action = undone ? 'Redo' : 'Undo'
  // Redo is the undo of the restore that undid the turn.
  const target = checkpoint.undoneBy ?? checkpoint.id
  return (
    <section className={`changes-summary${undone ? ' changes-summary--undone' : ''}`} aria-label="Changes">
      <div className="changes-summary-head">
        <button
          type="button"
          className="changes-summary-toggle"
          aria-expanded={open}
          aria-controls={listId}
          onClick={() => setOpen((shown) => !shown)}
        >
          <ChatIcon name={open ? 'chevron-up' : 'chevron-down'} size={14} />
          {changesLine(checkpoint)}
        </button>
        {undone && <span className="changes-summary-undone">Undone</span>}
        <button
          type="button"
          className="changes-summary-action"
          disabled={busy || running}
          title={
            running
              ? 'Wait for the turn to end'
              : undone
                ? 'Put back the changes the undo took away'
                : 'Set these files back to how they were before this turn; the conversation stays'
          }
          onClick={() => void restore(target, action)}
        >
          <ChatIcon name="retry" size={13} />
          {action}
        </button>
      </div>
      {done && (
        <p className="changes-summary-outcome" role="status">
          {done.action === 'Undo' ? 'Undone.' : 'Redone.'} {outcomeSentences(done.outcome).join(' ')}
        </p>
      )}
      {failure && (
        <p className="inline-error" role="alert">
          {action} failed: {failure}
        </p>
      )}
      <div id={listId} hidden={!open}>
        {loadError && (
          <p className="inline-error" role="alert">
            The changes could not be read: {loadError}
          </p>
        )}
        {open && !files && !loadError && <p className="changes-summary-loading">Reading the changes…</p>}
        {files && (
          <ul className="changed-files" aria-label="Changed files">
            {files.map((file) => (
              <ChangedFileItem key={file.path} file={file} />
            ))}
          </ul>
        )}
      </div>
      {pending && (
        <RestoreConflictsDialog
          title={`${pending.action}: files changed since`}
          conflicts={pending.conflicts}
          confirmLabel={pending.action === 'Undo' ? 'Undo changes' : 'Redo changes'}
          onCancel={() => setPending(undefined)}
          onConfirm={(choices) => {
            setPending(undefined)
            void restore(pending.id, pending.action, choices)
          }}
        />
      )}
    </section>
  )
}
