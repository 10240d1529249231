/**
 * `npm run bench -- --compare REF NAME [--runs N]`: one benchmark before and after a change. REF (a
 * git commit, branch or tag) is checked out into a temporary git worktree with this checkout's
 * node_modules linked in; then the benchmark file NAME runs there and here in turn — before, after,
 * before, after…, N times, each run a process of its own — so that a slow patch of the shared
 * machine falls on both. One table gives each row's time (ours, the median of the runs) before and
 * after and the change; the same change of the row's reference, which is what the machine's noise
 * alone moved; and the change of ours over the reference, run by run, which a load slowing both
 * sides of a run alike leaves alone. The worktree is removed at the end, also when a run fails or
 * Ctrl+C stops it.
 *
 * REF's benchmark runs through this checkout's run-one.ts, which needs of it only a default export
 * returning rows with a name and times, so any commit with bench/NAME works as REF.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchmarkResult, median } from './measure'
import { benchmarkFiles, micros, printTable } from './suite'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const RUN_ONE = fileURLToPath(new URL('./run-one.ts', import.meta.url))

/** One side's times of a row over the runs: ours, the reference's, and ours over the reference's. */
interface RowTimes {
  ours: number[]
  reference: number[]
  /** Each run's ratio: a load that slows both sides of one run alike cancels out of it. */
  ratio: number[]
}

/** Runs `name`'s benchmark file at `ref` and here, `runs` times each in turn; prints the table. */
export async function compare(ref: string, name: string, runs: number): Promise<void> {
  const matching = benchmarkFiles(name)
  const file = matching[0]
  if (!file || matching.length > 1) {
    const matches = matching.join(', ') || 'none'
    throw new Error(`--compare needs a name matching one benchmark file; "${name}" matches ${matches}.`)
  }
  const commit = git('rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`)
  const home = mkdtempSync(join(tmpdir(), 'atelier-bench-compare-'))
  const checkout = join(home, 'before')
  // Ctrl+C reaches the benchmark's process too: it ends, its run fails, and `finally` cleans up.
  const interrupted = () => console.error('\nStopping: the running benchmark ends, then the worktree goes.')
  process.on('SIGINT', interrupted)
  try {
    git('worktree', 'add', '--detach', checkout, commit)
    if (!existsSync(join(checkout, 'bench', file))) throw new Error(`${ref} has no bench/${file}.`)
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(checkout, 'node_modules'))
    const before = new Map<string, RowTimes>()
    const after = new Map<string, RowTimes>()
    for (let run = 1; run <= runs; run++) {
      for (const [label, root, times] of [
        ['before', checkout, before],
        ['after', ROOT, after],
      ] as const) {
        console.error(`run ${run} of ${runs}, ${label}: ${file}`)
        addRows(times, await runInChild(root, file, join(home, `${label}-${run}.json`)))
      }
    }
    const head = git('rev-parse', '--short', 'HEAD')
    const dirty = git('status', '--porcelain') ? ' with uncommitted changes' : ''
    const sides = `before ${ref} (${commit.slice(0, 7)}), after this checkout (${head}${dirty})`
    console.log(`\n${file}: ${sides}; the median of ${runs} runs each, in turn\n`)
    printComparison(before, after)
  } finally {
    if (existsSync(checkout)) git('worktree', 'remove', '--force', checkout)
    rmSync(home, { recursive: true, force: true })
    process.off('SIGINT', interrupted)
  }
}

/** Adds one run's rows to a side's times, by row name. */
function addRows(times: Map<string, RowTimes>, rows: BenchmarkResult[]) {
  for (const row of rows) {
    const rowTimes = times.get(row.name) ?? { ours: [], reference: [], ratio: [] }
    rowTimes.ours.push(row.ours.msPerOp)
    rowTimes.reference.push(row.reference.msPerOp)
    rowTimes.ratio.push(row.ours.msPerOp / row.reference.msPerOp)
    times.set(row.name, rowTimes)
  }
}

/** One line a row, in the order the rows come (a row only one side has, with a dash for the other). */
function printComparison(before: Map<string, RowTimes>, after: Map<string, RowTimes>) {
  const names = [...new Set([...after.keys(), ...before.keys()])]
  printTable([
    ['benchmark', 'before µs/op', 'after µs/op', 'change', 'reference change', 'ratio change'],
    ...names.map((name) => {
      const then = before.get(name)
      const now = after.get(name)
      return [
        name,
        then ? micros(median(then.ours)) : '—',
        now ? micros(median(now.ours)) : '—',
        change(then?.ours, now?.ours),
        change(then?.reference, now?.reference),
        change(then?.ratio, now?.ratio),
      ]
    }),
  ])
}

/** The relative change of the medians, as a signed percentage; a dash when a side lacks the row. */
function change(before: number[] | undefined, after: number[] | undefined): string {
  if (!before || !after) return '—'
  const percent = ((median(after) - median(before)) / median(before)) * 100
  return `${percent >= 0 ? '+' : ''}${percent.toFixed(1)} %`
}

/** One run of the benchmark file of the checkout at `root`, in a process of its own. */
function runInChild(root: string, file: string, out: string): Promise<BenchmarkResult[]> {
  return new Promise((resolve, reject) => {
    // Its table and logs go to stderr, so stdout holds the comparison alone.
    const child = spawn(process.execPath, ['--import', 'tsx', RUN_ONE, join(root, 'bench', file), out], {
      cwd: root,
      stdio: ['ignore', 2, 'inherit'],
    })
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      if (code === 0) resolve(JSON.parse(readFileSync(out, 'utf8')) as BenchmarkResult[])
      else reject(new Error(`${file} in ${root} failed (${signal ?? `exit ${code}`}); its output is above.`))
    })
  })
}

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim()
}
