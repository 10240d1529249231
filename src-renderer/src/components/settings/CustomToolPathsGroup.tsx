import { useEffect, useId, useState } from 'react'
import type { Preferences } from '../../../../src-shared/contract'
import { StringListField } from './StringListField'

interface CustomToolPathsGroupProps {
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
}

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, index) => value === b[index])

/** Tool files or folders beyond the usual ones (`Preferences.customToolPaths`). */
export function CustomToolPathsGroup({ preferences, onChange }: CustomToolPathsGroupProps) {
  const id = useId()
  const saved = preferences?.customToolPaths
  const [draft, setDraft] = useState<string[]>(saved ?? [])

  // The saved list (from here, or another window) replaces the draft.
  useEffect(() => {
    if (saved) setDraft(saved)
  }, [saved])

  const cleaned = draft.map((path) => path.trim()).filter(Boolean)
  const changed = saved !== undefined && !same(cleaned, saved)

  return (
    <section className="setting-group" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>More tool paths</h3>
      <p className="muted" id={`${id}-hint`}>
        Tool module files or folders to load besides <code>~/.atelier/tools</code> and a trusted project’s{' '}
        <code>.atelier/tools</code>. <code>~</code> is your home folder; a relative path is read against the
        chat’s project folder, and one inside a project runs only once that project is trusted.
      </p>
      <StringListField
        label="Custom tool paths"
        values={draft}
        onChange={setDraft}
        describedBy={`${id}-hint`}
        placeholder="~/tools/my-tool.ts"
      />
      <div className="form-actions">
        <button
          type="button"
          className="primary"
          disabled={!changed}
          onClick={() => onChange({ customToolPaths: cleaned })}
        >
          Save tool paths
        </button>
        {changed && <span className="form-status">Not saved yet.</span>}
      </div>
    </section>
  )
}
