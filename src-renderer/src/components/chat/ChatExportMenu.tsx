import { useEffect, useId, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { ChatExportFile, ChatExportFormat } from '../../../../src-shared/contract'
import { errorMessage } from '../../errors'
import { ChatIcon } from './ChatIcon'

const FORMATS: [ChatExportFormat, string][] = [
  ['markdown', 'Export as Markdown'],
  ['json', 'Export as JSON'],
]

/**
 * Export in the chat's header: the chat as Markdown (to read) or JSON (to import again), saved
 * as a download — the browser's and Electron's alike, so no host needs a file API of its own.
 */
export function ChatExportMenu({
  api,
  chatId,
  onError,
}: {
  api: AtelierApi
  chatId: string
  onError(message: string): void
}) {
  const [open, setOpen] = useState(false)
  const menuId = useId()
  const button = useRef<HTMLButtonElement>(null)
  const menu = useRef<HTMLDivElement>(null)

  // The menu folds when the person clicks elsewhere, or presses Escape (focus goes back to Export).
  useEffect(() => {
    if (!open) return
    const outside = (event: Event) => {
      const target = event.target as Node | null
      if (target && (menu.current?.contains(target) || button.current?.contains(target))) return
      setOpen(false)
    }
    const onEscape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return
      event.preventDefault()
      setOpen(false)
      button.current?.focus()
    }
    document.addEventListener('pointerdown', outside)
    document.addEventListener('keydown', onEscape)
    return () => {
      document.removeEventListener('pointerdown', outside)
      document.removeEventListener('keydown', onEscape)
    }
  }, [open])

  const exportAs = async (format: ChatExportFormat) => {
    setOpen(false)
    try {
      download(await api.chats.export({ id: chatId, format }))
    } catch (failure) {
      onError(errorMessage(failure))
    }
  }

  return (
    <span className="chat-export">
      <button
        ref={button}
        type="button"
        className="head-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        title="Export this chat as a file"
        onClick={() => setOpen((shown) => !shown)}
      >
        <ChatIcon name="down" size={14} />
        <span className="head-button-label">Export</span>
      </button>
      {open && (
        <div ref={menu} id={menuId} role="menu" aria-label="Export chat" className="chat-export-menu">
          {FORMATS.map(([format, label]) => (
            <button key={format} type="button" role="menuitem" onClick={() => void exportAs(format)}>
              {label}
            </button>
          ))}
        </div>
      )}
    </span>
  )
}

/** Saves the file as the browser saves any download (Electron asks where). */
function download(file: ChatExportFile): void {
  const url = URL.createObjectURL(new Blob([file.text], { type: file.mimeType }))
  const link = document.createElement('a')
  link.href = url
  link.download = file.filename
  link.click()
  // The click has started the download by the time this runs.
  setTimeout(() => URL.revokeObjectURL(url), 0)
}
