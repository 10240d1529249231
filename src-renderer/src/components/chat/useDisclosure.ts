import { useState } from 'react'

/**
 * What the person opened or closed, by key, for as long as the window lives: the conversation is
 * virtualized, so a row scrolled out and back mounts again and would otherwise forget it.
 */
const chosen = new Map<string, boolean>()

/**
 * Whether a folded line is open: closed by default; opened by itself once `attention` is set (an
 * error, images made) or `pinned` (a question waits in it) and left open after — what the person answered stays
 * where they answered it — unless they close it. Always open while `pinned`: a question is never
 * folded away. The person's own choice is kept under `key`.
 */
export function useDisclosure(
  key: string,
  { attention, pinned }: { attention: boolean; pinned: boolean },
): { open: boolean; toggle: () => void } {
  const [choice, setChoice] = useState(() => chosen.get(key))
  const [called, setCalled] = useState(attention || pinned)
  // Derived during render, not in an effect: a question must be visible the moment it mounts (it takes the focus).
  if ((attention || pinned) && !called) setCalled(true)
  const open = pinned || (choice ?? (called || attention))
  const toggle = () => {
    chosen.set(key, !open)
    setChoice(!open)
  }
  return { open, toggle }
}
