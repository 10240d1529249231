/**
 * `npm run bench`: runs every `bench/*.bench.ts` and prints one table. Each benchmark measures our
 * code against a reference doing the same work in the same run, and reports the ratio — absolute
 * times on a shared machine are noise.
 */
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Benchmark } from './measure'

async function main() {
  const dir = fileURLToPath(new URL('.', import.meta.url))
  const files = readdirSync(dir).filter(
    (file) => file.endsWith('.bench.ts') && file.includes(process.argv[2] ?? ''),
  )
  const rows: string[][] = [
    ['benchmark', 'ours', 'µs/op', 'reference', 'µs/op', 'ratio', 'overhead µs/op', 'note'],
  ]
  for (const file of files) {
    const { default: benchmark } = (await import(new URL(file, import.meta.url).href)) as {
      default: Benchmark
    }
    for (const result of await benchmark()) {
      rows.push([
        result.name,
        result.ours.label,
        micros(result.ours.msPerOp),
        result.reference.label,
        micros(result.reference.msPerOp),
        `${(result.ours.msPerOp / result.reference.msPerOp).toFixed(2)}×`,
        `${micros(result.ours.msPerOp - result.reference.msPerOp)}${result.target ? ` (${result.target})` : ''}`,
        result.note ?? '',
      ])
    }
  }
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? []
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  '))
}

function micros(ms: number): string {
  return (ms * 1000).toFixed(1)
}

await main()
