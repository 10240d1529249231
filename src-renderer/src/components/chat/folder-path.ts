/** How a folder's path is shown where room is short: home as `~`, a long middle elided. */

/** The path with the home folder as `~` (only a whole leading segment run, never a prefix of a name). */
export function abbreviateHome(path: string, home: string | undefined): string {
  if (!home) return path
  const trimmed = home.replace(/[\\/]+$/, '')
  if (path === trimmed) return '~'
  const rest = path.slice(trimmed.length)
  if (trimmed && path.startsWith(trimmed) && /^[\\/]/.test(rest)) return `~${rest}`
  return path
}

/**
 * A path for a chip: home as `~`; past `max` characters, its first segment and as many of its last
 * ones as fit, the middle as `…` — the folder's own name always stays.
 */
export function shortPath(path: string, home: string | undefined, max = 40): string {
  const shown = abbreviateHome(path, home)
  if (shown.length <= max) return shown
  const separator = shown.includes('\\') && !shown.includes('/') ? '\\' : '/'
  const segments = shown.split(/[\\/]/)
  // "/tmp/a/b" splits into ["", "tmp", …]: the head keeps the root with its first folder.
  const headCount = segments[0] === '' ? 2 : 1
  if (segments.length <= headCount + 1) return shown
  const head = segments.slice(0, headCount).join(separator)
  const tail = [segments.at(-1) ?? '']
  for (let index = segments.length - 2; index >= headCount; index--) {
    const next = [segments[index], ...tail]
    if (`${head}${separator}…${separator}${next.join(separator)}`.length > max) break
    tail.unshift(segments[index] ?? '')
  }
  if (tail.length === segments.length - headCount) return shown
  return `${head}${separator}…${separator}${tail.join(separator)}`
}
