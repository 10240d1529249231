import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Atelier, type AtelierOptions, createAtelier } from '../src-main/app/create-atelier'

/** What a benchmark reports: our time per operation beside a reference doing the same work. */
export interface BenchmarkResult {
  name: string
  ours: { label: string; msPerOp: number }
  reference: { label: string; msPerOp: number }
  /** What the overhead should stay under, shown beside it, e.g. "target ≤ 50". */
  target?: string
  /** Anything else measured on the way, e.g. memory. */
  note?: string
}

export type Benchmark = () => Promise<BenchmarkResult[]>

/**
 * Set to `1` for quick mode (`npm run bench -- --quick` sets it; `npm test` runs every benchmark so):
 * one round, no warm-up, tiny inputs. It proves a benchmark runs to its end and returns well-formed
 * rows; its times mean nothing.
 */
export const QUICK_MODE_VARIABLE = 'ATELIER_BENCH_QUICK'

/**
 * Whether this is a quick run; read when asked, so setting the variable before a benchmark is
 * imported is enough.
 */
export function isQuick(): boolean {
  return process.env[QUICK_MODE_VARIABLE] === '1'
}

/** `full` in a real run, `quick` in quick mode: how a benchmark sizes its inputs and its own loops. */
export function sized<T>(full: T, quick: T): T {
  return isQuick() ? quick : full
}

/**
 * `work`'s outcome, or an error once `ms` have passed without one, so that a benchmark waiting for
 * something that never comes (an approval nobody gives) fails instead of hanging. `what` is asked
 * then, so it can say how far the work got.
 */
export async function within<T>(ms: number, work: Promise<T>, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what()} did not end within ${ms / 1000} s`)), ms)
  })
  try {
    return await Promise.race([work, expired])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Median of `rounds` timings of `operations` calls, in ms per call, after one warm-up round; in
 * quick mode one round, not warmed up.
 */
export async function measure(
  operations: number,
  rounds: number,
  run: (i: number) => Promise<unknown> | unknown,
) {
  const perOp: number[] = []
  for (let round = sized(-1, 0); round < sized(rounds, 1); round++) {
    const ms = await msPerCall(operations, run)
    if (round >= 0) perOp.push(ms)
  }
  return median(perOp)
}

/** Ms per call of `operations` calls in a row. */
async function msPerCall(operations: number, run: (i: number) => Promise<unknown> | unknown) {
  const start = process.hrtime.bigint()
  for (let i = 0; i < operations; i++) await run(i)
  return Number(process.hrtime.bigint() - start) / 1e6 / operations
}

export interface PairedOptions {
  /**
   * `'each round'` (the default): every round of a side is warmed up first. `'once'`: each side is
   * warmed up before the first round only, for calls slow enough that a warm-up a round would
   * double the bench's time.
   */
  warmUp?: 'each round' | 'once'
  /** Awaited, untimed, after every run of either side: background work of ours ends before the next. */
  between?: () => Promise<unknown>
}

/**
 * Ms per call of ours and of the reference: `rounds` rounds of each in turn (warmed up first), so
 * that a slow patch of a shared machine falls on both alike; the median of each. In quick mode one
 * round of each, not warmed up.
 */
export async function paired(
  operations: number,
  rounds: number,
  ours: () => Promise<unknown>,
  reference: () => Promise<unknown>,
  { warmUp = 'each round', between }: PairedOptions = {},
) {
  const sides = [ours, reference]
  const times: [number[], number[]] = [[], []]
  const time = async (run: () => Promise<unknown>) => {
    const ms = await msPerCall(operations, run)
    await between?.()
    return ms
  }
  for (let round = 0; round < sized(rounds, 1); round++) {
    for (const [side, run] of sides.entries()) {
      if (!isQuick() && (warmUp === 'each round' || round === 0)) await time(run)
      times[side as 0 | 1].push(await time(run))
    }
  }
  return [median(times[0]), median(times[1])] as const
}

/** The middle value (the upper one of an even count); NaN of none. */
export function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
}

/** Runs `work` with the real services on a throwaway data folder, removed afterwards. */
export async function withBenchAtelier<T>(
  work: (atelier: Atelier) => Promise<T>,
  options: Omit<AtelierOptions, 'dataDir'> = {},
): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'atelier-bench-'))
  const atelier = createAtelier({ dataDir, ...options })
  try {
    return await work(atelier)
  } finally {
    await atelier.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** A tool written for a benchmark: on by default, no settings of its own, `other` unless told. */
export { plainTool as benchTool } from '../test/support/test-tools'
