import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import { killHard, startFixture } from '../../support/fixture-process'
import { useTempDirs } from '../../support/temp-dir'

const RESTORER = join(import.meta.dirname, '../../fixtures/checkpoint-restorer.ts')
const FILES = 200
const RUNS = 10

/** Every file of the folder (below it), by relative path, with its text. */
function contents(folder: string): Record<string, string> {
  const found: Record<string, string> = {}
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    found[path.slice(folder.length + 1)] = readFileSync(path, 'utf8')
  }
  return found
}

describe('a restore killed at a random point', () => {
  const tempDir = useTempDirs()

  /** A folder and a turn checkpoint that rewrote, added and removed files; the states before and after it. */
  async function turnThatChangedMuch() {
    const folder = realpathSync(tempDir())
    const dataDir = tempDir()
    for (let i = 0; i < FILES; i++) {
      mkdirSync(join(folder, `dir${i % 20}`), { recursive: true })
      writeFileSync(join(folder, `dir${i % 20}/file${i}.txt`), `original ${i}\n`.repeat(50))
    }
    const atelier = createAtelier({ dataDir })
    const chat = atelier.chats.create({ workingDir: folder, mode: 'agent' })
    const before = contents(folder)
    const turn = atelier.checkpoints.forTurn(chat, 'turn-1')
    const call = {
      id: 'c1',
      tool: 'bash',
      kind: 'execute',
      source: { kind: 'builtin' },
      locations: [],
    } as const
    await turn?.around(call, new AbortController().signal, async () => {
      for (let i = 0; i < FILES; i++) {
        const path = join(folder, `dir${i % 20}/file${i}.txt`)
        if (i % 4 === 0) rmSync(path)
        else writeFileSync(path, `changed ${i}\n`)
      }
      mkdirSync(join(folder, 'added'))
      for (let i = 0; i < FILES / 4; i++) writeFileSync(join(folder, `added/new${i}.txt`), `new ${i}\n`)
    })
    await turn?.finish()
    const after = contents(folder)
    const [checkpoint] = atelier.checkpoints.list({ chatId: chat.id }).checkpoints
    await atelier.close()
    return { folder, dataDir, before, after, id: checkpoint?.id ?? '' }
  }

  it('leaves the folder wholly before or wholly after, or the next start finishes it; the store stays sound', async () => {
    // How long a whole restore takes here, from `ready` on: the kills fall within it.
    const timing = await turnThatChangedMuch()
    const whole = startFixture(RESTORER, [timing.dataDir, timing.id])
    await whole.ready
    const started = performance.now()
    await new Promise((resolve) => whole.child.once('exit', resolve))
    const wholeMs = performance.now() - started
    expect(whole.lines()).toEqual(['done'])
    expect(contents(timing.folder)).toEqual(timing.before)

    // The folder after the next start: untouched (killed before the restore began), restored by
    // the killed process, or restored by the next start from the journal.
    const seen = { untouched: 0, restored: 0, finishedOnStart: 0 }
    for (let run = 0; run < RUNS; run++) {
      const { folder, dataDir, before, after, id } = await turnThatChangedMuch()
      const restorer = startFixture(RESTORER, [dataDir, id])
      await restorer.ready
      await new Promise((resolve) => setTimeout(resolve, Math.random() * wholeMs))
      await killHard(restorer.child)
      const atKill = contents(folder)
      const atelier = createAtelier({ dataDir })
      await atelier.checkpoints.resumeRestores()
      const now = contents(folder)
      if (JSON.stringify(now) === JSON.stringify(after)) seen.untouched++
      else {
        expect(now).toEqual(before)
        if (JSON.stringify(atKill) === JSON.stringify(before)) seen.restored++
        else seen.finishedOnStart++
      }
      expect(atelier.checkpoints.check()).toEqual([])
      await atelier.close()
      for (const dir of [folder, dataDir]) rmSync(dir, { recursive: true, force: true })
    }
    expect(seen.untouched + seen.restored + seen.finishedOnStart).toBe(RUNS)
  }, 300_000)
})
