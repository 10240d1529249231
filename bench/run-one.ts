/**
 * `node --import tsx bench/run-one.ts FILE OUT`: one benchmark file in a process of its own, its rows
 * written to OUT as JSON — what `--compare` (compare.ts) runs for each side. FILE may be another
 * checkout's, an older commit's that knows nothing of this script.
 */
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { runBenchmarkFile } from './suite'

const [file, out] = process.argv.slice(2)
if (!file || !out) throw new Error('usage: node --import tsx bench/run-one.ts FILE OUT')
writeFileSync(out, JSON.stringify(await runBenchmarkFile(resolve(file))))
// An older benchmark may leave a timer or a socket behind that would keep this process alive.
process.exit(0)
