import { useEffect, useId, useState } from 'react'

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
export function NumberSetting({ label, saved, min, max, hint, onSave }: NumberSettingProps) {
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
