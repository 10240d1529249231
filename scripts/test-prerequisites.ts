/**
 * The first step of `npm test`: makes sure the machine has the programs the tests need — Chromium
 * for the end-to-end tests, nats-server for the tool-service tests, `ps` for the MCP tests, ripgrep
 * for the search benchmark (which `npm test` runs once, quickly), bubblewrap for the sandbox, curl and
 * python3 for the sandbox's escape attempts, openssl for the broker's TLS test — finding
 * each, or installing it (Playwright's download; Debian's package when running as root), or failing
 * with every place it tried and what to do. `node --import tsx scripts/test-prerequisites.ts [names…]`
 * provisions only the ones named.
 */
import { type Prerequisite, provision } from '../test/support/prerequisites'

const ALL: Prerequisite[] = [
  'chromium',
  'nats-server',
  'ps',
  'ripgrep',
  'bubblewrap',
  'curl',
  'python3',
  'openssl',
]

const named = process.argv.slice(2) as Prerequisite[]
const unknown = named.filter((name) => !ALL.includes(name))
if (unknown.length > 0) {
  console.error(`Unknown prerequisite ${unknown.join(', ')}; known: ${ALL.join(', ')}.`)
  process.exit(2)
}

const aptUpdated = { done: false }
const failures: string[] = []
const found: string[] = []
for (const prerequisite of named.length > 0 ? named : ALL) {
  try {
    const { path, how } = provision(prerequisite, { aptUpdated, log: (line) => console.log(`  ${line}`) })
    found.push(`${prerequisite} ${path}${how === 'found' ? '' : ` (installed by ${how})`}`)
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error))
  }
}
if (found.length > 0) console.log(`Test prerequisites: ${found.join(', ')}`)
if (failures.length > 0) {
  console.error(`\n${failures.join('\n\n')}\n`)
  process.exit(1)
}
