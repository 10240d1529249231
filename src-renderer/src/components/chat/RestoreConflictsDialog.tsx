import { useState } from 'react'
import type { ConflictChoice, RestoreConflict } from '../../../../src-shared/checkpoints'
import { ConflictChoices, type ConflictDecisions } from './ConflictChoices'
import { choicesOf } from './checkpoint-words'
import { DialogActions } from './DialogActions'
import { Modal } from './Modal'

interface RestoreConflictsDialogProps {
  title: string
  conflicts: readonly RestoreConflict[]
  /** The button that restores with the choices made. */
  confirmLabel: string
  onConfirm(choices: ConflictChoice[]): void
  onCancel(): void
}

/** Before an undo (or redo) that would overwrite later work: the person settles each file in conflict. */
export function RestoreConflictsDialog({
  title,
  conflicts,
  confirmLabel,
  onConfirm,
  onCancel,
}: RestoreConflictsDialogProps) {
  const [decisions, setDecisions] = useState<ConflictDecisions>({})
  return (
    <Modal
      title={title}
      description="The other changed files are restored either way."
      onClose={onCancel}
      footer={
        <DialogActions
          action={confirmLabel}
          onAction={() => onConfirm(choicesOf(conflicts, decisions))}
          onCancel={onCancel}
        />
      }
    >
      <ConflictChoices conflicts={conflicts} decisions={decisions} onChange={setDecisions} />
    </Modal>
  )
}
