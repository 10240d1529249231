import type { Ref } from 'react'

interface SwitchProps {
  ref?: Ref<HTMLButtonElement>
  checked: boolean
  onChange(checked: boolean): void
  /** The id of the element that names the switch (a tool's title, a field's label). */
  labelledBy?: string
  /** A name of its own when nothing visible names it. */
  label?: string
  describedBy?: string
  /** Cannot be changed; stays focusable so its explanation can be reached. */
  locked?: boolean
  busy?: boolean
  id?: string
}

/** An on/off switch: a button with role="switch", its state also written out so colour is not the only cue. */
export function Switch(props: SwitchProps) {
  const { ref, checked, onChange, labelledBy, label, describedBy, locked, busy, id } = props
  return (
    <button
      ref={ref}
      type="button"
      role="switch"
      id={id}
      className="toggle"
      aria-checked={checked}
      aria-labelledby={labelledBy}
      aria-label={labelledBy ? undefined : label}
      aria-describedby={describedBy}
      aria-disabled={locked || busy ? true : undefined}
      aria-busy={busy || undefined}
      onClick={() => {
        if (!locked && !busy) onChange(!checked)
      }}
    >
      <span className="toggle-track" aria-hidden="true">
        <span className="toggle-thumb" />
      </span>
      <span className="toggle-state" aria-hidden="true">
        {checked ? 'On' : 'Off'}
      </span>
    </button>
  )
}
