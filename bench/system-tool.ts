/**
 * A reference program a benchmark measures against (ripgrep). `npm run bench` provisions it here,
 * with the ladder `npm test` uses for its own programs (test/support/prerequisites.ts): on PATH, else
 * Debian's package when running as root, else an error saying what was tried and what to install.
 * `npm test`, which runs every benchmark once, provisions it first among its own prerequisites, so
 * there it is found on the first rung.
 */
import { type Prerequisite, provision } from '../test/support/prerequisites'

export function requireSystemTool(prerequisite: Prerequisite): string {
  return provision(prerequisite, { log: (line) => console.log(`  ${line}`) }).path
}
