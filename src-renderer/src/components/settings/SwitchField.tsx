import { type ReactNode, useId } from 'react'
import { Switch } from './Switch'

interface SwitchFieldProps {
  label: string
  hint?: ReactNode
  checked: boolean
  onChange(checked: boolean): void
  /** Cannot be changed yet (what it edits is still loading). */
  locked?: boolean
}

/** One on/off setting: its label, the switch that it names, and what turning it on means. */
export function SwitchField({ label, hint, checked, onChange, locked }: SwitchFieldProps) {
  const id = useId()
  return (
    <div className="field field-boolean">
      <span className="field-label" id={`${id}-label`}>
        {label}
      </span>
      <Switch
        checked={checked}
        onChange={onChange}
        labelledBy={`${id}-label`}
        describedBy={hint ? `${id}-hint` : undefined}
        locked={locked}
      />
      {hint && (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  )
}
