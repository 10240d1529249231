import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import { killHard, startFixture } from '../../support/fixture-process'
import { useTempDirs } from '../../support/temp-dir'

const WRITER = fileURLToPath(new URL('../../fixtures/commit-writer.ts', import.meta.url))
const ROUNDS = 20

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('database durability', () => {
  const tempDir = useTempDirs()

  it('keeps every reported commit and an intact file when the writer is SIGKILLed at random moments', async () => {
    const dataDir = tempDir()
    const reported = new Set<string>()
    for (let round = 0; round < ROUNDS; round++) {
      const writer = startFixture(WRITER, [dataDir])
      // Every fourth round dies at any point of its life, opening and migrating included.
      if (round % 4 === 3) await sleep(Math.random() * 800)
      else {
        await writer.ready
        await sleep(Math.random() * 250)
      }
      await killHard(writer.child)
      for (const id of writer.lines()) reported.add(id)

      const atelier = createAtelier({ dataDir })
      try {
        expect(atelier.db.pragma('integrity_check', { simple: true })).toBe('ok')
        const present = new Set(atelier.chats.list().map((chat) => chat.id))
        const missing = [...reported].filter((id) => !present.has(id))
        expect(missing, `round ${round}: committed rows lost`).toEqual([])
      } finally {
        atelier.close()
      }
    }
    // The test means nothing unless the writer really committed rows before dying.
    expect(reported.size).toBeGreaterThan(ROUNDS * 10)
  }, 180_000)
})
