import type { ReactNode } from 'react'

export const menuOptionId = (listId: string, index: number) => `${listId}-option-${index}`

export interface MenuOption {
  key: string
  /** The option's content; its text is the option's accessible name. */
  content: ReactNode
}

/**
 * A listbox under the composer (the `/` prompts, the `@` files). The textarea keeps focus and drives
 * it (↑/↓ move, Enter chooses, Escape closes), pointing at the active option with
 * `aria-activedescendant`.
 */
export function ComposerMenu({
  id,
  label,
  options,
  active,
  status,
  onChoose,
}: {
  id: string
  label: string
  options: readonly MenuOption[]
  active: number
  /** Said instead of options while they load, when they could not, or when none match. */
  status: string | null
  onChoose(index: number): void
}) {
  return (
    <div className="prompt-menu">
      {status && (
        <p className="prompt-menu-status" role="status">
          {status}
        </p>
      )}
      <div id={id} role="listbox" aria-label={label} className="prompt-menu-list">
        {options.map((option, index) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the textarea drives the listbox from the keyboard
          <div
            key={option.key}
            id={menuOptionId(id, index)}
            role="option"
            // Focus stays in the textarea (aria-activedescendant); -1 only makes the option focusable.
            tabIndex={-1}
            aria-selected={index === active}
            className="prompt-menu-option"
            // The textarea keeps focus, so the keyboard goes on working after a click.
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => onChoose(index)}
          >
            {option.content}
          </div>
        ))}
      </div>
    </div>
  )
}
