import { useEffect, useId, useState } from 'react'
import type { AppInfo, Preferences, Theme } from '../../../../src-shared/contract'

const THEMES: { value: Theme; label: string }[] = [
  { value: 'system', label: 'System' },
  { value: 'dark', label: 'Dark' },
  { value: 'light', label: 'Light' },
]

const MIN_ITERATIONS = 1
const MAX_ITERATIONS = 500

interface AppearanceSectionProps {
  info: AppInfo | undefined
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
}

/** Theme, how long a turn may run, and what this installation is. */
export function AppearanceSection({ info, preferences, onChange }: AppearanceSectionProps) {
  const id = useId()
  const saved = preferences?.maxIterations
  const [draft, setDraft] = useState(saved === undefined ? '' : String(saved))
  const [error, setError] = useState<string>()

  // The saved value (from here, or another window) replaces the draft.
  useEffect(() => {
    if (saved !== undefined) setDraft(String(saved))
  }, [saved])

  function commit() {
    const value = Number(draft.trim())
    if (draft.trim() === '' || !Number.isInteger(value) || value < MIN_ITERATIONS || value > MAX_ITERATIONS) {
      setError(`Enter a whole number from ${MIN_ITERATIONS} to ${MAX_ITERATIONS}.`)
      return
    }
    setError(undefined)
    if (value !== saved) onChange({ maxIterations: value })
  }

  return (
    <div className="settings-section">
      <header className="section-intro">
        <h2>Appearance</h2>
        <p className="muted">How Atelier looks, and how long the agent may work on its own.</p>
      </header>
      <fieldset className="setting-group">
        <legend>Theme</legend>
        <div role="radiogroup" aria-label="Theme" className="segmented">
          {THEMES.map(({ value, label }) => (
            <label key={value}>
              <input
                type="radio"
                name="theme"
                value={value}
                checked={preferences?.theme === value}
                onChange={() => onChange({ theme: value })}
              />
              {label}
            </label>
          ))}
        </div>
        <p className="muted">System follows your operating system’s light or dark setting.</p>
      </fieldset>
      <section className="setting-group" aria-labelledby={`${id}-turns`}>
        <h3 id={`${id}-turns`}>Turns</h3>
        <div className={`field${error ? ' field-invalid' : ''}`}>
          <label className="field-label" htmlFor={`${id}-iterations`}>
            Max model responses per turn
          </label>
          <span className="number-field">
            <input
              id={`${id}-iterations`}
              type="number"
              inputMode="numeric"
              min={MIN_ITERATIONS}
              max={MAX_ITERATIONS}
              step={1}
              value={draft}
              disabled={!preferences}
              aria-invalid={error ? true : undefined}
              aria-describedby={[error && `${id}-iterations-error`, `${id}-iterations-hint`]
                .filter(Boolean)
                .join(' ')}
              onChange={(event) => {
                setDraft(event.target.value)
                setError(undefined)
              }}
              onBlur={commit}
              onKeyDown={(event) => {
                if (event.key === 'Enter') commit()
              }}
            />
          </span>
          {error && (
            <p className="field-error" id={`${id}-iterations-error`} role="alert">
              {error}
            </p>
          )}
          <p className="field-hint" id={`${id}-iterations-hint`}>
            Each tool round-trip takes one response. When a turn reaches this many, it stops and says so. 1 to
            500; saved when you leave the field.
          </p>
        </div>
      </section>
      {info && (
        <section className="setting-group about" aria-labelledby={`${id}-about`}>
          <h3 id={`${id}-about`}>About</h3>
          <p>
            {info.name} {info.version}
          </p>
          <p className="muted">
            Data folder: <code>{info.dataDir}</code>
          </p>
        </section>
      )}
    </div>
  )
}
