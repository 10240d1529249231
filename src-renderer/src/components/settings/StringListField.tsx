import { useEffect, useRef, useState } from 'react'
import { TrashIcon } from '../icons'

interface StringListFieldProps {
  label: string
  values: string[]
  onChange(values: string[]): void
  describedBy?: string
  invalid?: boolean
  placeholder?: string
}

/** An editable list of text values: one input a row, rows added and removed with buttons. */
export function StringListField({
  label,
  values,
  onChange,
  describedBy,
  invalid,
  placeholder,
}: StringListFieldProps) {
  const list = useRef<HTMLUListElement>(null)
  const add = useRef<HTMLButtonElement>(null)
  const [focusRow, setFocusRow] = useState<number>()

  // A new row takes focus, so adding and typing is one motion for the keyboard; removing the last
  // row hands focus to Add rather than losing it.
  useEffect(() => {
    if (focusRow === undefined) return
    const row = list.current?.querySelectorAll('input')[focusRow]
    ;(row ?? add.current)?.focus()
    setFocusRow(undefined)
  }, [focusRow])

  return (
    <fieldset className="string-list" aria-describedby={describedBy} aria-invalid={invalid || undefined}>
      <legend className="field-label">{label}</legend>
      {values.length === 0 ? (
        <p className="muted string-list-empty">None.</p>
      ) : (
        <ul ref={list}>
          {values.map((value, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows are positions; values may repeat or be blank
            <li key={index}>
              <input
                type="text"
                value={value}
                aria-label={`${label} ${index + 1}`}
                placeholder={placeholder}
                spellCheck={false}
                onChange={(event) => onChange(values.map((v, i) => (i === index ? event.target.value : v)))}
              />
              <button
                type="button"
                className="icon"
                aria-label={`Remove ${value.trim() || `row ${index + 1}`} from ${label}`}
                title="Remove"
                onClick={() => {
                  onChange(values.filter((_, i) => i !== index))
                  setFocusRow(Math.max(0, Math.min(index, values.length - 2)))
                }}
              >
                <TrashIcon />
              </button>
            </li>
          ))}
        </ul>
      )}
      <button
        ref={add}
        type="button"
        className="small"
        aria-label={`Add to ${label}`}
        onClick={() => {
          onChange([...values, ''])
          setFocusRow(values.length)
        }}
      >
        + Add
      </button>
    </fieldset>
  )
}
