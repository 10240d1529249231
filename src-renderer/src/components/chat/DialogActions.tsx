interface DialogActionsProps {
  /** The action's label: what pressing it does. */
  action: string
  onAction(): void
  onCancel(): void
  /** The action cannot be taken yet (what it needs is loading, or it is under way). */
  disabled?: boolean
}

/** A dialog's footer: Cancel, and the one action the dialog is for. */
export function DialogActions({ action, onAction, onCancel, disabled = false }: DialogActionsProps) {
  return (
    <>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      <button type="button" className="primary" disabled={disabled} onClick={onAction}>
        {action}
      </button>
    </>
  )
}
