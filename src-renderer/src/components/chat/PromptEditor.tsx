import { type KeyboardEvent, useEffect, useRef, useState } from 'react'
import { errorMessage } from '../../errors'

interface PromptEditorProps {
  /** The prompt as it was sent. */
  initial: string
  /** Sends the edited prompt; rejects with why it was refused (the editor stays open). */
  onSend(prompt: string): Promise<void>
  onCancel(): void
}

/**
 * Edit and resend, in place of the prompt's bubble: Enter sends (Shift+Enter a new line), Escape
 * gives the prompt back as it was.
 */
export function PromptEditor({ initial, onSend, onCancel }: PromptEditorProps) {
  const [text, setText] = useState(initial)
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string>()
  const area = useRef<HTMLTextAreaElement>(null)

  useEffect(() => {
    const element = area.current
    element?.focus()
    element?.setSelectionRange(element.value.length, element.value.length)
  }, [])

  const send = async () => {
    const prompt = text.trim()
    if (!prompt || busy) return
    setBusy(true)
    setFailure(undefined)
    try {
      await onSend(prompt)
    } catch (error) {
      setFailure(errorMessage(error))
      setBusy(false)
    }
  }

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape') {
      // Not the conversation's Escape (stop, or Esc Esc's rewind list): only the edit ends.
      event.preventDefault()
      onCancel()
    } else if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      void send()
    }
  }

  return (
    <div className="prompt-editor">
      <textarea
        ref={area}
        className="prompt-editor-input"
        aria-label="Edit prompt"
        value={text}
        rows={Math.min(12, Math.max(2, text.split('\n').length))}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {failure && (
        <p className="inline-error" role="alert">
          {failure}
        </p>
      )}
      <div className="prompt-editor-actions">
        <span className="prompt-editor-hint">The earlier version is kept in a new chat.</span>
        <button type="button" className="message-action" onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className="primary prompt-editor-send"
          disabled={busy || text.trim() === ''}
          onClick={() => void send()}
        >
          Send edited prompt
        </button>
      </div>
    </div>
  )
}
