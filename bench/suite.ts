/**
 * The benchmarks as a whole, for the runners (`run.ts`, `compare.ts`, `run-one.ts`) and the test
 * that runs each in quick mode: which there are, running one file, checking and printing rows.
 */
import { readdirSync } from 'node:fs'
import { basename } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { type Benchmark, type BenchmarkResult, sized, within } from './measure'

/** This checkout's bench folder. */
export const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url))

/** The benchmark files (`*.bench.ts`) of a bench folder whose names contain `filter`, sorted. */
export function benchmarkFiles(filter = '', dir = BENCH_DIR): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.bench.ts') && file.includes(filter))
    .sort()
}

/**
 * Longer than any benchmark takes here (the search bench, the longest, about 4 minutes; all of them
 * in quick mode, under a minute): one still running then is stuck, and fails.
 */
const benchmarkBoundMs = () => sized(30 * 60_000, 5 * 60_000)

/**
 * Imports a benchmark file by path and runs it, within its bound. Only `name` and the two `msPerOp`
 * of its rows are relied on, so a file of an older checkout runs too.
 */
export async function runBenchmarkFile(path: string): Promise<BenchmarkResult[]> {
  const { default: benchmark } = (await import(pathToFileURL(path).href)) as { default: Benchmark }
  return within(benchmarkBoundMs(), benchmark(), () => basename(path))
}

/** What is wrong with a benchmark's rows: none at all, or a time that is not a finite positive number. */
export function rowProblems(rows: readonly BenchmarkResult[]): string[] {
  if (rows.length === 0) return ['it returned no rows']
  return rows.flatMap((row) =>
    (['ours', 'reference'] as const).flatMap((side) => {
      const ms = row[side]?.msPerOp
      return typeof ms === 'number' && Number.isFinite(ms) && ms > 0
        ? []
        : [`"${row.name}": ${side}'s time is ${ms}, not a finite positive number of ms`]
    }),
  )
}

/** Ms as µs with one decimal, as every table shows a time. */
export function micros(ms: number): string {
  return (ms * 1000).toFixed(1)
}

/** Prints rows as columns padded to their widest cell, the first row being the header. */
export function printTable(rows: readonly string[][]): void {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? []
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  '))
}
