import type { ReactNode } from 'react'
import type { ToolParameterDescriptor } from '../../../../src-shared/tools'
import { StringListField } from './StringListField'
import { Switch } from './Switch'
import { type DraftValue, formatBytes, rangeText } from './tool-values'

interface ParameterFieldProps {
  descriptor: ToolParameterDescriptor
  value: DraftValue
  onChange(value: DraftValue): void
  /** The refusal for this field, shown next to it. */
  error?: string
  /** Prefix for the ids of the input, its hint and its error. */
  id: string
}

/** One input generated from a parameter descriptor, labelled with the descriptor's label. */
export function ParameterField({ descriptor, value, onChange, error, id }: ParameterFieldProps) {
  const { type, label, description } = descriptor
  const inputId = `${id}-input`
  const labelId = `${id}-label`
  const hintId = `${id}-hint`
  const errorId = `${id}-error`
  const range = type === 'integer' || type === 'number' ? rangeText(descriptor) : undefined
  const hint = [description, range && `${range}.`].filter(Boolean).join(' ')
  const describedBy = [error && errorId, hint && hintId].filter(Boolean).join(' ') || undefined
  const invalid = error ? true : undefined

  let control: ReactNode
  switch (type) {
    case 'boolean':
      control = (
        <Switch
          id={inputId}
          checked={value === true}
          onChange={onChange}
          labelledBy={labelId}
          describedBy={describedBy}
        />
      )
      break
    case 'string-list':
      control = (
        <StringListField
          label={label}
          values={Array.isArray(value) ? value : []}
          onChange={onChange}
          describedBy={describedBy}
          invalid={invalid}
          placeholder={/path/i.test(descriptor.name) ? '~/folder or /absolute/path' : undefined}
        />
      )
      break
    case 'enum':
      control = (
        <select
          id={inputId}
          value={String(value)}
          aria-describedby={describedBy}
          aria-invalid={invalid}
          onChange={(event) => onChange(event.target.value)}
        >
          {(descriptor.allowedValues ?? []).map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      )
      break
    case 'integer':
    case 'number': {
      const numeric = Number(value)
      control = (
        <span className="number-field">
          <input
            id={inputId}
            type="number"
            inputMode={type === 'integer' ? 'numeric' : 'decimal'}
            step={type === 'integer' ? 1 : 'any'}
            min={descriptor.min}
            max={descriptor.max}
            value={String(value)}
            aria-describedby={describedBy}
            aria-invalid={invalid}
            onChange={(event) => onChange(event.target.value)}
          />
          {descriptor.unit && (
            <span className="unit" aria-hidden="true">
              {descriptor.unit}
            </span>
          )}
          {descriptor.unit === 'bytes' && String(value).trim() !== '' && numeric >= 1024 && (
            <span className="muted unit-readable">≈ {formatBytes(numeric)}</span>
          )}
        </span>
      )
      break
    }
    default:
      control = (
        <input
          id={inputId}
          // A secret comes to the form as the mask; a new one is typed unseen.
          type={type === 'secret' ? 'password' : 'text'}
          autoComplete={type === 'secret' ? 'off' : undefined}
          value={String(value)}
          spellCheck={false}
          aria-describedby={describedBy}
          aria-invalid={invalid}
          onChange={(event) => onChange(event.target.value)}
        />
      )
  }

  return (
    <div className={`field field-${type}${error ? ' field-invalid' : ''}`}>
      {type === 'string-list' ? null : type === 'boolean' ? (
        <span className="field-label" id={labelId}>
          {label}
        </span>
      ) : (
        <label className="field-label" id={labelId} htmlFor={inputId}>
          {label}
        </label>
      )}
      {control}
      {error && (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      )}
      {hint && (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  )
}
