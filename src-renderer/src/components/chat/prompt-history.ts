import { useRef, useState } from 'react'
import type { ChatMessage } from '../../../../src-shared/agent'

/** A prompt's text as typed (its attachments aside). */
export function promptText(message: ChatMessage): string {
  return message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
}

/** The chat's prompts as typed, oldest first, each once in a row (a retried prompt is not two). */
export function promptsOf(messages: readonly ChatMessage[]): string[] {
  const prompts: string[] = []
  for (const message of messages) {
    if (message.role !== 'user') continue
    const text = promptText(message)
    if (text.trim() && prompts.at(-1) !== text) prompts.push(text)
  }
  return prompts
}

/**
 * ↑/↓ through the chat's earlier prompts, as a shell does: ↑ from the first line recalls the
 * previous one (newest first), ↓ from the last line goes forward and, past the newest, gives back
 * what was being written. Escape gives it back too; typing edits the recalled prompt and leaves
 * history.
 */
export function usePromptHistory(
  history: readonly string[],
  value: string,
  onChange: (value: string) => void,
) {
  // Which prompt is shown, counted back from the newest (0); null when not in history.
  const [back, setBack] = useState<number | null>(null)
  const draft = useRef('')

  const show = (index: number | null) => {
    setBack(index)
    onChange(index === null ? draft.current : (history[history.length - 1 - index] ?? ''))
  }

  return {
    browsing: back !== null,
    /** Handles ↑/↓ at the caret's position; true when it did. */
    move(direction: 'up' | 'down', textarea: HTMLTextAreaElement): boolean {
      const { selectionStart, selectionEnd } = textarea
      if (selectionStart !== selectionEnd) return false
      if (direction === 'up') {
        const onFirstLine = !value.slice(0, selectionStart).includes('\n')
        const next = back === null ? 0 : back + 1
        if (!onFirstLine || next >= history.length) return false
        if (back === null) draft.current = value
        show(next)
        return true
      }
      const onLastLine = !value.slice(selectionEnd).includes('\n')
      if (back === null || !onLastLine) return false
      show(back === 0 ? null : back - 1)
      return true
    },
    /** Escape: back to what was being written. */
    leave(): boolean {
      if (back === null) return false
      show(null)
      return true
    },
    /** The person typed: the recalled prompt is now theirs to edit. */
    typed(): void {
      setBack(null)
    },
  }
}
