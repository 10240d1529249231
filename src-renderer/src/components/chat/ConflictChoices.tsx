import { useId } from 'react'
import type { ConflictChoice, RestoreConflict } from '../../../../src-shared/checkpoints'

/** The person's choice per path in conflict; a path not in it keeps theirs. */
export type ConflictDecisions = Readonly<Record<string, ConflictChoice['take']>>

interface ConflictChoicesProps {
  conflicts: readonly RestoreConflict[]
  decisions: ConflictDecisions
  onChange(decisions: ConflictDecisions): void
}

const OPTIONS: { take: ConflictChoice['take']; label: string }[] = [
  { take: 'mine', label: 'Keep mine' },
  { take: 'checkpoint', label: 'Take checkpoint' },
]

/**
 * The paths that changed after the checkpoint — restoring them would lose that later work — each
 * with its own choice: keep the version in the folder now, or take the checkpoint's. Keeping is the
 * default, so nothing is lost unless the person says so.
 */
export function ConflictChoices({ conflicts, decisions, onChange }: ConflictChoicesProps) {
  const id = useId()
  return (
    <div className="conflict-choices">
      <p className="conflict-choices-intro">
        {conflicts.length === 1 ? 'This file has' : 'These files have'} changed since then. For each, keep
        your version or take the checkpoint’s:
      </p>
      <ul>
        {conflicts.map(({ path }) => {
          const chosen = decisions[path] ?? 'mine'
          return (
            <li key={path}>
              <fieldset className="conflict-choice">
                <legend>
                  <code>{path}</code>
                </legend>
                {OPTIONS.map(({ take, label }) => (
                  <label key={take} className="conflict-choice-option">
                    <input
                      type="radio"
                      name={`${id}:${path}`}
                      checked={chosen === take}
                      onChange={() => onChange({ ...decisions, [path]: take })}
                    />
                    {label}
                  </label>
                ))}
              </fieldset>
            </li>
          )
        })}
      </ul>
    </div>
  )
}
