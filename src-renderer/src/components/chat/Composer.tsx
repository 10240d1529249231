import { type FormEvent, type KeyboardEvent, type RefObject, useId } from 'react'
import { ChatIcon } from './ChatIcon'

interface ComposerProps {
  value: string
  onChange(value: string): void
  onSend(): void
  onStop(): void
  running: boolean
  textarea: RefObject<HTMLTextAreaElement | null>
  placeholder: string
}

/**
 * Where the person writes. Enter sends, Shift+Enter breaks the line, Esc stops a running turn.
 * While a turn runs, Stop takes Send's place and the box stays open for the next prompt.
 */
export function Composer({ value, onChange, onSend, onStop, running, textarea, placeholder }: ComposerProps) {
  const hintId = useId()
  const empty = value.trim() === ''

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      if (!running && !empty) onSend()
    } else if (event.key === 'Escape' && running) {
      event.preventDefault()
      onStop()
    }
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    if (!running && !empty) onSend()
  }

  return (
    <form className="composer" onSubmit={onSubmit} aria-label="Compose a message">
      <div className="composer-box">
        <textarea
          ref={textarea}
          className="composer-input"
          aria-label="Message"
          aria-describedby={hintId}
          placeholder={placeholder}
          rows={1}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <div className="composer-actions">
          {running ? (
            <button type="button" className="composer-stop" onClick={onStop} title="Stop (Esc)">
              <ChatIcon name="stop" size={14} />
              Stop
            </button>
          ) : (
            <button type="submit" className="composer-send" disabled={empty} title="Send (Enter)">
              Send
              <ChatIcon name="send" size={14} />
            </button>
          )}
        </div>
      </div>
      <p id={hintId} className="composer-hint">
        <kbd>Enter</kbd> to send · <kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line
        {running ? (
          <>
            {' '}
            · <kbd>Esc</kbd> to stop
          </>
        ) : null}
      </p>
    </form>
  )
}
