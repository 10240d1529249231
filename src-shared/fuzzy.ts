/**
 * Fuzzy matching as the composer's menus use it: the `@` file search (in main, over a folder) and the
 * `/` commands (in the renderer), so both rank a query alike.
 */

/** How well `path` (lower case) matches `needle` (lower case), or undefined when it does not. */
export function fuzzyScore(path: string, needle: string): number | undefined {
  const nameStart = path.lastIndexOf('/') + 1
  // The name alone first: "app" should find src/app.ts before apps/x/index.ts.
  const inName = matchFrom(path, needle, nameStart)
  if (inName !== undefined) return inName + 100
  return matchFrom(path, needle, 0)
}

function matchFrom(haystack: string, needle: string, from: number): number | undefined {
  let score = 0
  let at = from
  let previous = -2
  for (const char of needle) {
    const found = haystack.indexOf(char, at)
    if (found === -1) return undefined
    if (found === previous + 1) score += 5
    const before = haystack[found - 1]
    if (found === 0 || before === '/' || before === '.' || before === '-' || before === '_') score += 3
    score -= Math.min(found - at, 10) * 0.1
    previous = found
    at = found + 1
  }
  return score
}
