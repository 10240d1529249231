import { useEffect, useState } from 'react'
import { ChatIcon } from './ChatIcon'

/** Copies through the async clipboard, falling back to a selection copy where that is refused. */
async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text)
    return
  } catch {
    // Not a secure context, or no permission: the old way still works from a click.
  }
  const area = document.createElement('textarea')
  area.value = text
  area.setAttribute('readonly', '')
  area.className = 'offscreen'
  document.body.append(area)
  area.select()
  const copied = document.execCommand('copy')
  area.remove()
  if (!copied) throw new Error('copy refused')
}

/** A small button whose accessible name stays put while its label says what happened. */
export function CopyButton({ text, label }: { text: () => string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  useEffect(() => {
    if (state === 'idle') return
    const timer = setTimeout(() => setState('idle'), 1600)
    return () => clearTimeout(timer)
  }, [state])
  return (
    <button
      type="button"
      className="copy-button"
      aria-label={label}
      onClick={() =>
        copyText(text()).then(
          () => setState('copied'),
          () => setState('failed'),
        )
      }
    >
      <ChatIcon name={state === 'copied' ? 'check' : 'copy'} size={14} />
      <span aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
      </span>
    </button>
  )
}
