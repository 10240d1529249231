import { Notice } from './Notice'

/** A settings form's end: the error that stopped the save, then submit and Cancel. */
export function FormFooter({
  error,
  saving,
  submitLabel,
  onCancel,
}: {
  error: string | undefined
  saving: boolean
  submitLabel: string
  onCancel(): void
}) {
  return (
    <>
      {error && (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      )}
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving} aria-busy={saving || undefined}>
          {submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </>
  )
}
