import { useEffect, useId, useState } from 'react'
import type { AppInfo, Preferences, Theme } from '../../../../src-shared/contract'

const THEMES: { value: Theme; label: string }[] = [
  { value: 'system', label: 'System' },
  { value: 'dark', label: 'Dark' },
  { value: 'light', label: 'Light' },
]

interface AppearanceSectionProps {
  info: AppInfo | undefined
  preferences: Preferences | undefined
  onChange(changes: Partial<Preferences>): void
}

interface NumberSettingProps {
  label: string
  /** The saved value; undefined while the preferences load. */
  saved: number | undefined
  min: number
  max: number
  hint: string
  onSave(value: number): void
}

/** A whole-number preference, saved when the field is left (or on Enter) if it is in range. */
function NumberSetting({ label, saved, min, max, hint, onSave }: NumberSettingProps) {
  const id = useId()
  const [draft, setDraft] = useState(saved === undefined ? '' : String(saved))
  const [error, setError] = useState<string>()

  // The saved value (from here, or another window) replaces the draft.
  useEffect(() => {
    if (saved !== undefined) setDraft(String(saved))
  }, [saved])

  function commit() {
    const value = Number(draft.trim())
    if (draft.trim() === '' || !Number.isInteger(value) || value < min || value > max) {
      setError(`Enter a whole number from ${min} to ${max}.`)
      return
    }
    setError(undefined)
    if (value !== saved) onSave(value)
  }

  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <span className="number-field">
        <input
          id={id}
          type="number"
          inputMode="numeric"
          min={min}
          max={max}
          step={1}
          value={draft}
          disabled={saved === undefined}
          aria-invalid={error ? true : undefined}
          aria-describedby={[error && `${id}-error`, `${id}-hint`].filter(Boolean).join(' ')}
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
        <p className="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
      <p className="field-hint" id={`${id}-hint`}>
        {hint}
      </p>
    </div>
  )
}

/** Theme, how long a turn may run and when its context is compacted, and what this installation is. */
export function AppearanceSection({ info, preferences, onChange }: AppearanceSectionProps) {
  const id = useId()
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
        <NumberSetting
          label="Max model responses per turn"
          saved={preferences?.maxIterations}
          min={1}
          max={500}
          hint="Each tool round-trip takes one response. When a turn reaches this many, it stops and says so. 1 to 500; saved when you leave the field."
          onSave={(maxIterations) => onChange({ maxIterations })}
        />
        <NumberSetting
          label="Compact at (% of the context window)"
          saved={preferences?.compactionThresholdPercent}
          min={10}
          max={95}
          hint="When the next request would fill more than this share of the model’s context window, older tool outputs are elided and, if that is not enough, earlier messages summarized first. 10 to 95; saved when you leave the field."
          onSave={(compactionThresholdPercent) => onChange({ compactionThresholdPercent })}
        />
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
