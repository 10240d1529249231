import { type KeyboardEvent, useId } from 'react'
import type { ArgumentDrafts, ArgumentField } from './argument-fields'

interface ArgumentsFormProps {
  fields: ArgumentField[]
  drafts: ArgumentDrafts
  onChange(drafts: ArgumentDrafts): void
  /** Ctrl/Cmd+Enter in a multi-line field (Enter there is a new line; in a one-line field it submits). */
  onRun(): void
}

/** "required" is part of the field's name, so a screen reader says it as a sighted person sees it. */
function FieldLabel({ field, htmlFor }: { field: ArgumentField; htmlFor: string }) {
  return (
    <label className="field-label" htmlFor={htmlFor}>
      <code>{field.name}</code>
      {field.required && <span className="argument-required"> required</span>}
    </label>
  )
}

/** A tool's arguments as fields generated from its schema: one per property, its description below. */
export function ArgumentsForm({ fields, drafts, onChange, onRun }: ArgumentsFormProps) {
  const id = useId()
  if (fields.length === 0) return <p className="muted">This tool takes no arguments.</p>
  const set = (name: string, value: string | boolean) => onChange({ ...drafts, [name]: value })
  const runOnCtrlEnter = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault()
      onRun()
    }
  }

  return (
    <div className="arguments-form">
      {fields.map((field) => {
        const inputId = `${id}-${field.name}`
        const hintId = `${inputId}-hint`
        const described = field.description ? hintId : undefined
        const draft = drafts[field.name]
        const text = typeof draft === 'string' ? draft : ''
        const hint = field.description && (
          <p className="field-hint" id={hintId}>
            {field.description}
            {field.kind === 'lines' && ' One per line.'}
          </p>
        )
        if (field.kind === 'boolean') {
          return (
            <div className="field" key={field.name}>
              <label className="choice">
                <input
                  type="checkbox"
                  checked={draft === true}
                  aria-describedby={described}
                  onChange={(event) => set(field.name, event.target.checked)}
                />
                <code>{field.name}</code>
              </label>
              {hint}
            </div>
          )
        }
        return (
          <div className="field" key={field.name}>
            <FieldLabel field={field} htmlFor={inputId} />
            {field.kind === 'choice' ? (
              <select
                id={inputId}
                value={text}
                required={field.required}
                aria-describedby={described}
                onChange={(event) => set(field.name, event.target.value)}
              >
                {!field.required && <option value="">(not set)</option>}
                {field.options?.map((option) => (
                  <option key={option} value={option}>
                    {option}
                  </option>
                ))}
              </select>
            ) : field.kind === 'lines' || field.kind === 'json' ? (
              <textarea
                id={inputId}
                className="code-input"
                rows={field.kind === 'json' ? 4 : 3}
                value={text}
                spellCheck={false}
                required={field.required}
                aria-describedby={described}
                onChange={(event) => set(field.name, event.target.value)}
                onKeyDown={runOnCtrlEnter}
              />
            ) : (
              <input
                id={inputId}
                type="text"
                inputMode={field.kind === 'number' ? 'decimal' : undefined}
                value={text}
                spellCheck={false}
                required={field.required}
                aria-describedby={described}
                onChange={(event) => set(field.name, event.target.value)}
              />
            )}
            {hint}
          </div>
        )
      })}
    </div>
  )
}
