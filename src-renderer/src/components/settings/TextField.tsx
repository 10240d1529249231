import type { InputHTMLAttributes, ReactNode } from 'react'
import type { FieldErrors } from './field-errors'

type InputProps = Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'id' | 'value' | 'onChange' | 'aria-invalid' | 'aria-describedby'
>

interface TextFieldProps<Field extends string> extends InputProps {
  fields: FieldErrors<Field>
  field: Field
  label: string
  value: string
  onChange(value: string): void
  hint?: ReactNode
  /** Spans the form's two columns. */
  wide?: boolean
  /** A text area of this many rows instead of a one-line input. */
  rows?: number
}

/** A labelled text input (or text area) of a settings form, with its error and hint tied to it. */
export function TextField<Field extends string>({
  fields,
  field,
  label,
  value,
  onChange,
  hint,
  wide,
  rows,
  ...input
}: TextFieldProps<Field>) {
  const id = fields.idOf(field)
  const hintId = hint ? `${id}-hint` : undefined
  const shared = {
    id,
    value,
    className: input.className,
    placeholder: input.placeholder,
    spellCheck: input.spellCheck,
    'aria-invalid': fields.invalid(field),
    'aria-describedby': fields.described(field, hintId),
  }
  return (
    <div className={wide ? 'field field-wide' : 'field'}>
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {rows ? (
        <textarea {...shared} rows={rows} onChange={(event) => onChange(event.target.value)} />
      ) : (
        <input type="text" {...input} {...shared} onChange={(event) => onChange(event.target.value)} />
      )}
      {fields.errorOf(field)}
      {hint && (
        <p className="field-hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  )
}
