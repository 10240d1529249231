import type { Theme } from '../../src-shared/contract'

/** `system` leaves the choice to `prefers-color-scheme`; dark and light pin it. */
export function applyTheme(theme: Theme): void {
  const root = document.documentElement
  if (theme === 'system') delete root.dataset.theme
  else root.dataset.theme = theme
}
