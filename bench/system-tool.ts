/**
 * A reference program a benchmark measures against (ripgrep). The benchmark provisions it itself,
 * with the ladder `npm test` uses for its own programs (test/support/prerequisites.ts): on PATH, else
 * Debian's package when running as root, else an error saying what was tried and what to install.
 * `npm test` does not need it, so it is not among the test prerequisites.
 */
import { type Prerequisite, provision } from '../test/support/prerequisites'

export function requireSystemTool(prerequisite: Prerequisite): string {
  return provision(prerequisite, { log: (line) => console.log(`  ${line}`) }).path
}
