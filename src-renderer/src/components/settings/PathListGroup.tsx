import { type ReactNode, useEffect, useId, useState } from 'react'
import type { Preferences } from '../../../../src-shared/contract'
import { StringListField } from './StringListField'

/** The preferences that hold a list of paths or globs. */
type PathListKey = 'customToolPaths' | 'protectedPaths'

interface PathListGroupProps {
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
  /** Which preference the list edits. */
  preference: PathListKey
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

/** A settings group editing one list of paths in the preferences, saved with its own button. */
export function PathListGroup({
  preferences,
  onChange,
  preference,
  title,
  hint,
  label,
  placeholder,
  saveLabel,
  defaults,
}: PathListGroupProps) {
  const id = useId()
  const saved = preferences?.[preference]
  const [draft, setDraft] = useState<string[]>(saved ?? [])

  // The saved list (from here, or another window) replaces the draft.
  useEffect(() => {
    if (saved) setDraft(saved)
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
        <button
          type="button"
          className="primary"
          disabled={!changed}
          onClick={() => onChange({ [preference]: cleaned })}
        >
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
