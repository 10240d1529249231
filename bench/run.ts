/**
 * `npm run bench [-- NAME]`: runs every `bench/*.bench.ts` (or those whose file name contains NAME)
 * and prints one table. Each benchmark measures our code against a reference doing the same work in
 * the same run, and reports the ratio — absolute times on a shared machine are noise. A benchmark
 * that throws, runs past its bound (suite.ts), or returns a row whose times are not finite positive
 * numbers is reported after the table, and the run exits 1.
 *
 * `npm run bench -- --quick [NAME]` (or `ATELIER_BENCH_QUICK=1 npm run bench`): quick mode — each
 * benchmark runs one round, not warmed up, on tiny inputs (sized with `sized` from measure.ts). Its
 * times mean nothing and no ratio is judged: it proves every benchmark runs to its end and returns
 * well-formed rows, in well under a minute for all of them. `npm test` runs every benchmark so
 * (test/bench/benchmarks.test.ts).
 *
 * `npm run bench -- --compare REF NAME [--runs N]`: the benchmark file NAME as it is at git commit REF
 * (checked out into a temporary worktree) against this checkout, run in turn N times (3 unless told),
 * printed as one table of before, after and the change — see compare.ts. With `--quick` too, both
 * sides run quickly where REF knows quick mode (a check that the comparison itself works).
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { compare } from './compare'
import { type BenchmarkResult, isQuick, QUICK_MODE_VARIABLE } from './measure'
import { BENCH_DIR, benchmarkFiles, micros, printTable, rowProblems, runBenchmarkFile } from './suite'

async function main() {
  const { values, positionals } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      compare: { type: 'string' },
      runs: { type: 'string', default: '3' },
    },
    allowPositionals: true,
  })
  if (positionals.length > 1) throw new Error(`One benchmark name at most, not ${positionals.join(' ')}.`)
  if (values.quick) process.env[QUICK_MODE_VARIABLE] = '1'
  const name = positionals[0] ?? ''
  if (values.compare === undefined) return runAll(name)
  const runs = Number(values.runs)
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`--runs takes a whole number from 1, not ${values.runs}.`)
  return compare(values.compare, name, runs)
}

async function runAll(filter: string) {
  const files = benchmarkFiles(filter)
  if (files.length === 0) throw new Error(`No benchmark file in bench/ has "${filter}" in its name.`)
  const table = [['benchmark', 'ours', 'µs/op', 'reference', 'µs/op', 'ratio', 'overhead µs/op', 'note']]
  const failures: string[] = []
  const started = performance.now()
  for (const file of files) {
    const fileStarted = performance.now()
    try {
      const rows = await runBenchmarkFile(join(BENCH_DIR, file))
      table.push(...rows.map(tableRow))
      failures.push(...rowProblems(rows).map((problem) => `${file}: ${problem}`))
    } catch (error) {
      failures.push(`${file} failed: ${error instanceof Error ? error.stack : String(error)}`)
    }
    console.error(`${file}: ${seconds(performance.now() - fileStarted)}`)
  }
  printTable(table)
  const quick = isQuick() ? ' in quick mode (one round, tiny inputs: the times mean nothing)' : ''
  const ran = files.length === 1 ? files[0] : `${files.length} benchmark files`
  console.log(`\n${ran}${quick}: ${seconds(performance.now() - started)}`)
  if (failures.length > 0) {
    console.error(`\n${failures.join('\n\n')}`)
    // A benchmark past its bound may still hold the event loop.
    process.exit(1)
  }
}

function tableRow(result: BenchmarkResult): string[] {
  return [
    result.name,
    result.ours.label,
    micros(result.ours.msPerOp),
    result.reference.label,
    micros(result.reference.msPerOp),
    `${(result.ours.msPerOp / result.reference.msPerOp).toFixed(2)}×`,
    `${micros(result.ours.msPerOp - result.reference.msPerOp)}${result.target ? ` (${result.target})` : ''}`,
    result.note ?? '',
  ]
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

await main()
