import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react'
import { ChatIcon } from './ChatIcon'

/** One thing the paperclip can attach; a disabled one says why in its hint. */
export interface AttachChoice {
  label: string
  hint: string
  disabled?: boolean
  onChoose(): void
}

/**
 * The paperclip and its menu: files of the folder, images from disk, MCP resources. A menu button
 * as ARIA draws it: Enter, Space or ↓ open it on the first item, ↑/↓/Home/End move, Escape closes
 * it back onto the paperclip, Tab leaves it.
 */
export function AttachMenu({ choices }: { choices: readonly AttachChoice[] }) {
  const [open, setOpen] = useState(false)
  const button = useRef<HTMLButtonElement>(null)
  const menu = useRef<HTMLDivElement>(null)
  const menuId = useId()

  const items = () => [...(menu.current?.querySelectorAll<HTMLElement>('[role=menuitem]') ?? [])]
  const focusItem = (index: number) => {
    const all = items()
    all[(index + all.length) % all.length]?.focus()
  }

  // Opened, the first item takes focus; a click anywhere else closes the menu.
  useEffect(() => {
    if (!open) return
    menu.current?.querySelector<HTMLElement>('[role=menuitem]')?.focus()
    const outside = (event: PointerEvent) => {
      const target = event.target as Node | null
      if (target && (menu.current?.contains(target) || button.current?.contains(target))) return
      setOpen(false)
    }
    document.addEventListener('pointerdown', outside)
    return () => document.removeEventListener('pointerdown', outside)
  }, [open])

  const close = (refocus: boolean) => {
    setOpen(false)
    if (refocus) button.current?.focus()
  }

  const onMenuKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const current = items().indexOf(document.activeElement as HTMLElement)
    const moves: Record<string, number> = {
      ArrowDown: current + 1,
      ArrowUp: current - 1,
      Home: 0,
      End: -1,
    }
    if (event.key in moves) {
      event.preventDefault()
      focusItem(moves[event.key] ?? 0)
    } else if (event.key === 'Escape') {
      // The chat's own Escape (stop, rewind) is not this one.
      event.preventDefault()
      event.stopPropagation()
      close(true)
    } else if (event.key === 'Tab') {
      close(false)
    }
  }

  return (
    <div className="attach-menu">
      <button
        ref={button}
        type="button"
        className="icon-button composer-attach"
        aria-label="Attach"
        title="Attach a file, an image or an MCP resource"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={() => setOpen((was) => !was)}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault()
            setOpen(true)
          }
        }}
      >
        <ChatIcon name="paperclip" />
      </button>
      {open && (
        <div
          ref={menu}
          id={menuId}
          role="menu"
          aria-label="Attach"
          className="attach-menu-list"
          onKeyDown={onMenuKeyDown}
        >
          {choices.map((choice) => (
            <button
              key={choice.label}
              type="button"
              role="menuitem"
              tabIndex={-1}
              className="attach-menu-item"
              aria-disabled={choice.disabled || undefined}
              onClick={() => {
                if (choice.disabled) return
                close(false)
                choice.onChoose()
              }}
            >
              <span className="attach-menu-label">{choice.label}</span>
              <span className="attach-menu-hint">{choice.hint}</span>
            </button>
          ))}
        </div>
      )}
    </div>
  )
}
