/**
 * Matchers as Claude Code reads them: none, `""` or `*` match everything; a plain name or names
 * joined by `|` match exactly; anything else is a regular expression that must match the whole
 * value (`mcp__github__.*`, `Notebook.*`).
 */
import { matchesAll } from '../../src-shared/hooks'

/** A matcher made ready to test values, or the reason it cannot be. */
export interface CompiledMatcher {
  test(value: string): boolean
  /** Set when the pattern is not a valid regular expression: it then matches nothing. */
  problem?: string
}

const PLAIN_NAMES = /^[\w-]+(\|[\w-]+)*$/

export function compileMatcher(matcher: string | undefined): CompiledMatcher {
  if (matchesAll(matcher)) return { test: () => true }
  const pattern = (matcher as string).trim()
  if (PLAIN_NAMES.test(pattern)) {
    const names = new Set(pattern.split('|'))
    return { test: (value) => names.has(value) }
  }
  try {
    const expression = new RegExp(`^(?:${pattern})$`)
    return { test: (value) => expression.test(value) }
  } catch (error) {
    return { test: () => false, problem: `The matcher is not a valid pattern: ${(error as Error).message}` }
  }
}
