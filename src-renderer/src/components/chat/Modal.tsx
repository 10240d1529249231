import { type ReactNode, useEffect, useId, useRef } from 'react'
import { ChatIcon } from './ChatIcon'

interface ModalProps {
  title: string
  description?: ReactNode
  onClose(): void
  children: ReactNode
  footer?: ReactNode
  className?: string
}

/** A native modal dialog: focus is trapped, Escape closes, and focus goes back to where it was. */
export function Modal({ title, description, onClose, children, footer, className }: ModalProps) {
  const dialog = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const descriptionId = useId()
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    const element = dialog.current
    if (element && !element.open) element.showModal()
    return () => {
      if (element?.open) element.close()
      opener?.focus()
    }
  }, [])
  return (
    <dialog
      ref={dialog}
      className={`chat-dialog${className ? ` ${className}` : ''}`}
      aria-labelledby={titleId}
      aria-describedby={description ? descriptionId : undefined}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
    >
      <header className="chat-dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
          <ChatIcon name="close" />
        </button>
      </header>
      {description && (
        <p id={descriptionId} className="chat-dialog-description">
          {description}
        </p>
      )}
      <div className="chat-dialog-body">{children}</div>
      {footer && <footer className="chat-dialog-foot">{footer}</footer>}
    </dialog>
  )
}
