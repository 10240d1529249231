/**
 * read_file of a 10 MiB text file through the executor (containment check, one bounded descriptor,
 * sha256, ledger write, line count, window) against a bare readFile + sha256 of the same file.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LOCAL_USER } from '../src-main/app/create-atelier'
import '../src-main/tools/builtin'
import { type Benchmark, measure, sized, withBenchAtelier } from './measure'

const FILE_MIB = sized(10, 1 / 16)
const READS = sized(5, 1)

const benchmark: Benchmark = async () => {
  const project = realpathSync(mkdtempSync(join(tmpdir(), 'atelier-bench-project-')))
  const file = join(project, 'big.log')
  const line = `${'2026-11-30T12:00:00Z INFO request handled in 12ms path=/api/items?page=3 '.padEnd(99, '.')}\n`
  writeFileSync(file, line.repeat(Math.floor((FILE_MIB * 1024 * 1024) / line.length)))
  return withBenchAtelier(async (atelier) => {
    const chat = atelier.chats.ensure('bench', { workingDir: project, mode: 'agent' })
    const scope = {
      chatId: chat.id,
      user: LOCAL_USER,
      workingDirectory: project,
      mode: 'agent' as const,
      restrict: true,
    }
    try {
      const ours = await measure(READS, 5, async () => {
        const result = await atelier.tools.executor.execute(
          { name: 'read_file', arguments: { path: 'big.log' } },
          scope,
        )
        if (result.isError) throw new Error(result.content)
      })
      const bare = await measure(READS, 5, async () =>
        createHash('sha256')
          .update(await readFile(file))
          .digest('hex'),
      )
      return [
        {
          name: `read_file, ${FILE_MIB} MiB text`,
          ours: { label: 'read_file', msPerOp: ours },
          reference: { label: 'readFile + sha256', msPerOp: bare },
          target: 'target ratio ≤ 2×',
        },
      ]
    } finally {
      rmSync(project, { recursive: true, force: true })
    }
  })
}

export default benchmark
