import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { databaseOpenFailure } from '../../../src-main/db/open-failure'
import { useTempDirs } from '../../support/temp-dir'

/** What `work` threw: a real failure of SQLite or of the file system, not one made up. */
function thrownBy(work: () => void): unknown {
  try {
    work()
  } catch (error) {
    return error
  }
  throw new Error('expected a failure')
}

describe('databaseOpenFailure', () => {
  const tempDir = useTempDirs()

  it('says the disk is full when SQLite finds no room (SQLITE_FULL)', () => {
    const file = join(tempDir(), 'a.db')
    const db = new BetterSqlite3(file)
    // A database capped at a few pages fills up as a full disk would, with SQLite's own error.
    db.pragma('max_page_count = 3')
    const full = thrownBy(() =>
      db.exec(`CREATE TABLE t (x); INSERT INTO t VALUES (randomblob(${64 * 1024}));`),
    )
    db.close()
    expect(full).toMatchObject({ code: 'SQLITE_FULL' })
    expect(databaseOpenFailure(full, file)).toMatchObject({
      code: 'database_disk_full',
      message: expect.stringMatching(/^The disk holding .*a\.db is full .* Free some space/),
    })
  })

  it.skipIf(!existsSync('/dev/full'))(
    'says the disk is full when the file system has no room (ENOSPC)',
    () => {
      const full = thrownBy(() => writeFileSync('/dev/full', 'x'))
      expect(full).toMatchObject({ code: 'ENOSPC' })
      expect(databaseOpenFailure(full, join(tempDir(), 'a.db'))).toMatchObject({ code: 'database_disk_full' })
    },
  )

  it('gives back as it was a failure that is none of the kinds it names', () => {
    const missing = thrownBy(() => new BetterSqlite3(join(tempDir(), 'a.db'), { fileMustExist: true }))
    expect(databaseOpenFailure(missing, join(tempDir(), 'a.db'))).toBe(missing)
  })
})
