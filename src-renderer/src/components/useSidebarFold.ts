import { useCallback, useEffect, useState } from 'react'

/** Below this window width the chats' list folds away by itself and opens over the chat. */
export const NARROW_QUERY = '(max-width: 960px)'
const REMEMBERED = 'atelier.sidebar.hidden'

function remembered(): boolean {
  try {
    return localStorage.getItem(REMEMBERED) === 'true'
  } catch {
    return false
  }
}

/**
 * Whether the chats' sidebar shows. Wide, it is the person's choice, remembered in this browser (or
 * window); narrow, it is folded to a rail and opens over the chat only while wanted, so the chat
 * keeps its width.
 */
export function useSidebarFold() {
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW_QUERY).matches)
  const [hidden, setHidden] = useState(remembered)
  const [drawerOpen, setDrawerOpen] = useState(false)

  useEffect(() => {
    const query = window.matchMedia(NARROW_QUERY)
    const onChange = () => {
      setNarrow(query.matches)
      setDrawerOpen(false)
    }
    query.addEventListener('change', onChange)
    return () => query.removeEventListener('change', onChange)
  }, [])

  const toggle = useCallback(() => {
    if (narrow) return setDrawerOpen((open) => !open)
    setHidden((was) => {
      try {
        localStorage.setItem(REMEMBERED, String(!was))
      } catch {
        // Storage refused (a private window): the choice lasts until the page reloads.
      }
      return !was
    })
  }, [narrow])

  const closeDrawer = useCallback(() => setDrawerOpen(false), [])

  return { shown: narrow ? drawerOpen : !hidden, overlay: narrow && drawerOpen, toggle, closeDrawer }
}
