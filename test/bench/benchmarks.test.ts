/**
 * Every benchmark (`bench/*.bench.ts`, found in the folder, so a new one is covered) runs once in
 * quick mode — one round, tiny inputs — to its end, returning rows whose times are finite and
 * positive. No ratio is judged: on a machine shared with the rest of the suite the times mean
 * nothing; what fails here is a benchmark that throws, hangs, or returns nothing to print.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { QUICK_MODE_VARIABLE } from '../../bench/measure'
import { BENCH_DIR, benchmarkFiles, rowProblems, runBenchmarkFile } from '../../bench/suite'
import { requirePrerequisite } from '../support/prerequisites'

/** All of them take about 15 s alone; a busy machine running the rest of the suite beside them, more. */
const PER_BENCHMARK_MS = 180_000

describe('the benchmarks, in quick mode', () => {
  beforeAll(() => {
    vi.stubEnv(QUICK_MODE_VARIABLE, '1')
    // The search benchmark's reference: `npm test`'s first step provisions it; a test only looks.
    requirePrerequisite('ripgrep')
  })

  it('finds the benchmark files', () => {
    expect(benchmarkFiles().length).toBeGreaterThan(0)
  })

  for (const file of benchmarkFiles()) {
    it(
      `${file} runs to its end and returns rows with finite, positive times`,
      async () => {
        const rows = await runBenchmarkFile(join(BENCH_DIR, file))
        expect(rows.length).toBeGreaterThan(0)
        expect(rowProblems(rows)).toEqual([])
      },
      PER_BENCHMARK_MS,
    )
  }
})
