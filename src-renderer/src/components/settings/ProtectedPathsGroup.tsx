import { useEffect, useId, useState } from 'react'
import { DEFAULT_PROTECTED_PATHS } from '../../../../src-shared/approvals'
import type { Preferences } from '../../../../src-shared/contract'
import { StringListField } from './StringListField'

interface ProtectedPathsGroupProps {
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
}

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, index) => value === b[index])

/** The globs inside a bound folder whose edits ask in every mode, unless a rule names them. */
export function ProtectedPathsGroup({ preferences, onChange }: ProtectedPathsGroupProps) {
  const id = useId()
  const saved = preferences?.protectedPaths
  const [draft, setDraft] = useState<string[]>(saved ?? [])

  // The saved list (from here, or another window) replaces the draft.
  useEffect(() => {
    if (saved) setDraft(saved)
  }, [saved])

  const cleaned = draft.map((path) => path.trim()).filter(Boolean)
  const changed = saved !== undefined && !same(cleaned, saved)

  return (
    <section className="setting-group" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>Protected paths</h3>
      <p className="muted" id={`${id}-hint`}>
        Changing one of these can run code later (a git hook, an <code>.envrc</code>, a package script, CI) or
        changes how an agent or editor behaves, so an edit to it asks first in every mode, Full auto included,
        unless a rule names it. Globs relative to the bound folder; any file with an executable bit is
        protected too.
      </p>
      <StringListField
        label="Protected paths"
        values={draft}
        onChange={setDraft}
        describedBy={`${id}-hint`}
        placeholder=".git/**"
      />
      <div className="form-actions">
        <button
          type="button"
          className="primary"
          disabled={!changed}
          onClick={() => onChange({ protectedPaths: cleaned })}
        >
          Save protected paths
        </button>
        <button
          type="button"
          disabled={saved === undefined || same(draft, DEFAULT_PROTECTED_PATHS)}
          onClick={() => setDraft([...DEFAULT_PROTECTED_PATHS])}
        >
          Restore defaults
        </button>
        {changed && <span className="form-status">Not saved yet.</span>}
      </div>
    </section>
  )
}
