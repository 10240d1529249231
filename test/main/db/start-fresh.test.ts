import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src-main/db/database'
import { startFresh } from '../../../src-main/db/start-fresh'
import { useTempDirs } from '../../support/temp-dir'

describe('startFresh', () => {
  const tempDir = useTempDirs()

  it('moves a damaged database onto the copy kept of it and makes a new one beside it', () => {
    const dir = tempDir()
    const file = join(dir, 'atelier.db')
    const bytes = randomBytes(32 * 1024)
    writeFileSync(file, bytes)
    // A start before this one reported it, and kept the copy.
    expect(() => openDatabase(file)).toThrowError(expect.objectContaining({ code: 'database_corrupt' }))

    const setAside = startFresh(file)

    expect(setAside).toMatch(/atelier\.db\.corrupt-[\dT-]+Z$/)
    expect(readFileSync(setAside as string).equals(bytes)).toBe(true)
    expect(
      readdirSync(dir).filter((name) => name.startsWith('atelier.db.corrupt-') && !/-(wal|shm)$/.test(name)),
    ).toEqual([(setAside as string).slice(dir.length + 1)])
    const fresh = openDatabase(file)
    try {
      expect(fresh.prepare('SELECT count(*) AS chats FROM chats').get()).toEqual({ chats: 0 })
    } finally {
      fresh.close()
    }
  })

  it('moves an empty database file aside, still empty, and makes a new one', () => {
    const dir = tempDir()
    const file = join(dir, 'atelier.db')
    writeFileSync(file, '')
    const setAside = startFresh(file)
    expect(setAside).toMatch(/atelier\.db\.empty-[\dT-]+Z$/)
    expect(statSync(setAside as string).size).toBe(0)
    expect(statSync(file).size).toBeGreaterThan(0)
  })

  it('leaves a database that opens as it is', () => {
    const dir = tempDir()
    const file = join(dir, 'atelier.db')
    const db = openDatabase(file)
    db.prepare("INSERT INTO app_settings (key, value, updated_at) VALUES ('k', '1', 0)").run()
    db.close()
    expect(startFresh(file)).toBeUndefined()
    const again = openDatabase(file)
    try {
      expect(again.prepare('SELECT value FROM app_settings').all()).toEqual([{ value: '1' }])
    } finally {
      again.close()
    }
    expect(readdirSync(dir)).toEqual(['atelier.db'])
  })
})
