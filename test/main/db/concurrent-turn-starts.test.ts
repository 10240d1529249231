import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { DATABASE_FILE } from '../../../src-main/app/create-atelier'
import { openDatabase } from '../../../src-main/db/database'
import { type FixtureProcess, killHard, startFixture } from '../../support/fixture-process'
import { useTempDirs } from '../../support/temp-dir'

const BEGINNER = fileURLToPath(new URL('../../fixtures/turn-beginner.ts', import.meta.url))
const PROCESSES = 4

async function firstLine(fixture: FixtureProcess): Promise<string | undefined> {
  for (let i = 0; i < 1000 && fixture.lines().length === 0; i++) {
    if (fixture.child.exitCode !== null) throw new Error(`beginner exited: ${fixture.stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return fixture.lines()[0]
}

describe('turn starts of one chat racing from several processes', () => {
  const tempDir = useTempDirs()
  const fixtures: FixtureProcess[] = []
  afterEach(async () => {
    await Promise.all(fixtures.splice(0).map(({ child }) => killHard(child)))
  })

  it('let exactly one begin; the others are refused with turn_running and store nothing', async () => {
    const dataDir = tempDir()
    const db = openDatabase(join(dataDir, DATABASE_FILE))
    db.exec("INSERT INTO chats (id, title, created_at, updated_at) VALUES ('chat', 'Chat', 0, 0)")
    const go = join(dataDir, 'go')
    for (let i = 0; i < PROCESSES; i++) fixtures.push(startFixture(BEGINNER, [dataDir, 'chat', go]))
    await Promise.all(fixtures.map(({ ready }) => ready))
    writeFileSync(go, '')

    const outcomes = await Promise.all(fixtures.map(firstLine))
    expect(outcomes.sort()).toEqual(['began', ...Array(PROCESSES - 1).fill('turn_running')])
    expect(db.prepare('SELECT status FROM turns').all()).toEqual([{ status: 'running' }])
    expect(db.prepare('SELECT role FROM messages').all()).toEqual([{ role: 'user' }])
    db.close()
  }, 60_000)
})
