import { type ReactNode, useEffect, useId, useState } from 'react'
import { StringListField } from './StringListField'

interface PathListGroupProps {
  /** The list as saved; undefined while the preferences load. */
  saved: readonly string[] | undefined
  /** Saves the list, cleaned of blank rows. */
  onSave(values: string[]): void
  title: string
  hint: ReactNode
  /** The list's own label. */
  label: string
  placeholder: string
  /** The save button's text. */
  saveLabel: string
  /** When given, a "Restore defaults" button puts this list back in the draft. */
  defaults?: readonly string[]
}

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, index) => value === b[index])

/** A settings group editing one list of paths or globs, saved with its own button. */
export function PathListGroup({
  saved,
  onSave,
  title,
  hint,
  label,
  placeholder,
  saveLabel,
  defaults,
}: PathListGroupProps) {
  const id = useId()
  const [draft, setDraft] = useState<string[]>(saved ? [...saved] : [])

  // The saved list (from here, or another window) replaces the draft.
  useEffect(() => {
    if (saved) setDraft([...saved])
  }, [saved])

  const cleaned = draft.map((path) => path.trim()).filter(Boolean)
  const changed = saved !== undefined && !same(cleaned, saved)

  return (
    <section className="setting-group" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      <p className="muted" id={`${id}-hint`}>
        {hint}
      </p>
      <StringListField
        label={label}
        values={draft}
        onChange={setDraft}
        describedBy={`${id}-hint`}
        placeholder={placeholder}
      />
      <div className="form-actions">
        <button type="button" className="primary" disabled={!changed} onClick={() => onSave(cleaned)}>
          {saveLabel}
        </button>
        {defaults && (
          <button
            type="button"
            disabled={saved === undefined || same(draft, defaults)}
            onClick={() => setDraft([...defaults])}
          >
            Restore defaults
          </button>
        )}
        {changed && <span className="form-status">Not saved yet.</span>}
      </div>
    </section>
  )
}
