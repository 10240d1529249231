import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import {
  chmodSync,
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src-main/db/database'
import { migrations } from '../../../src-main/db/migrations'
import { useTempDirs } from '../../support/temp-dir'

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex')

describe('openDatabase', () => {
  const tempDir = useTempDirs()

  it('opens in WAL mode with synchronous=FULL, a busy timeout and every migration applied', () => {
    const db = openDatabase(join(tempDir(), 'a.db'))
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
      expect(db.pragma('synchronous', { simple: true })).toBe(2)
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5000)
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)?.version)
    } finally {
      db.close()
    }
  })

  it('creates the database, its WAL and its shared memory readable by their owner only, whatever the umask', () => {
    const dir = tempDir()
    const file = join(dir, 'a.db')
    const modes = () =>
      [file, `${file}-wal`, `${file}-shm`].map((each) => (statSync(each).mode & 0o777).toString(8))
    const db = openDatabase(file)
    try {
      db.prepare("INSERT INTO app_settings (key, value, updated_at) VALUES ('k', '1', 0)").run()
      expect(modes()).toEqual(['600', '600', '600'])
    } finally {
      db.close()
    }

    // A database an older Atelier left readable by others (its WAL too) is narrowed at open.
    const older = openDatabase(join(dir, 'b.db'))
    older.pragma('wal_autocheckpoint = 0')
    older.prepare("INSERT INTO app_settings (key, value, updated_at) VALUES ('k', '1', 0)").run()
    for (const each of ['b.db', 'b.db-wal', 'b.db-shm']) chmodSync(join(dir, each), 0o644)
    const reopened = openDatabase(join(dir, 'b.db'))
    try {
      expect(
        ['b.db', 'b.db-wal', 'b.db-shm'].map((each) => (statSync(join(dir, each)).mode & 0o777).toString(8)),
      ).toEqual(['600', '600', '600'])
    } finally {
      reopened.close()
      older.close()
    }
  })

  it('keeps data and applies no migration twice when reopened', () => {
    const file = join(tempDir(), 'a.db')
    const first = openDatabase(file)
    first.prepare("INSERT INTO app_settings (key, value, updated_at) VALUES ('k', '1', 0)").run()
    first.close()
    const second = openDatabase(file)
    try {
      expect(second.prepare('SELECT value FROM app_settings').all()).toEqual([{ value: '1' }])
    } finally {
      second.close()
    }
  })

  it('applies only the migrations newer than the stored version', () => {
    const file = join(tempDir(), 'a.db')
    openDatabase(file, { migrations: migrations.slice(0, 1) }).close()
    const next = [...migrations, { version: 99, name: 'test', sql: 'CREATE TABLE later (x INTEGER);' }]
    const db = openDatabase(file, { migrations: next })
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(99)
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'later'").all()).toHaveLength(1)
    } finally {
      db.close()
    }
  })

  it('refuses a file that is not a database, names it, and leaves it byte for byte as it was', () => {
    const file = join(tempDir(), 'a.db')
    writeFileSync(file, 'this is not a database, just some notes\n'.repeat(200))
    const before = sha256(file)
    expect(() => openDatabase(file)).toThrowError(expect.objectContaining({ code: 'database_corrupt' }))
    expect(() => openDatabase(file)).toThrowError(file)
    expect(sha256(file)).toBe(before)
    expect(existsSync(`${file}-wal`)).toBe(false)
    // Opened twice, it is copied once: starting again and again does not fill the disk.
    expect(readdirSync(dirname(file)).filter((name) => name.startsWith('a.db.corrupt-'))).toHaveLength(1)
  })

  it('keeps a copy of a damaged database, with its WAL, before anything else, and names it', () => {
    const file = join(tempDir(), 'a.db')
    // The WAL may hold the newest commits: it is kept under the name SQLite looks for beside the copy.
    writeFileSync(file, randomBytes(64 * 1024))
    writeFileSync(`${file}-wal`, randomBytes(8 * 1024))
    const before = { db: sha256(file), wal: sha256(`${file}-wal`) }

    let error: unknown
    try {
      openDatabase(file).close()
    } catch (thrown) {
      error = thrown
    }
    const copy = (error as { data: { copy: string } }).data.copy
    expect(error).toMatchObject({
      code: 'database_corrupt',
      message: expect.stringContaining(`A copy is kept at ${copy}. To start fresh beside it`),
    })
    expect(copy).toMatch(/a\.db\.corrupt-\d{4}-\d\d-\d\dT[\d-]+Z$/)
    expect({ db: sha256(copy), wal: sha256(`${copy}-wal`) }).toEqual(before)
    // SQLite drops a WAL it cannot read when it lets go of the file, which is why the copy comes first.
    expect(sha256(file)).toBe(before.db)
  })

  it('refuses an empty (0-byte) database file instead of taking it for a new one, and leaves it empty', () => {
    const dir = tempDir()
    const file = join(dir, 'a.db')
    writeFileSync(file, '')
    expect(() => openDatabase(file)).toThrowError(
      expect.objectContaining({ code: 'database_empty', message: expect.stringContaining('0 bytes') }),
    )
    expect(readdirSync(dir)).toEqual(['a.db'])
    expect(statSync(file).size).toBe(0)
  })

  it('makes a new database whole, leaving nothing else beside it', () => {
    const dir = tempDir()
    openDatabase(join(dir, 'a.db')).close()
    expect(readdirSync(dir)).toEqual(['a.db'])
    expect(statSync(join(dir, 'a.db')).size).toBeGreaterThan(0)
  })

  it('refuses a database whose pages are damaged, leaves it unchanged and keeps a copy', () => {
    const dir = tempDir()
    const file = join(dir, 'a.db')
    const db = openDatabase(file)
    const insert = db.prepare('INSERT INTO chats (id, title, created_at, updated_at) VALUES (?, ?, 0, 0)')
    db.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run(`chat-${i}`, `title ${i} ${'x'.repeat(100)}`)
    })()
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.close()
    // Scribble over the middle of the file: b-tree pages of the chats table and its index.
    const fd = openSync(file, 'r+')
    writeSync(fd, Buffer.alloc(4096 * 3, 0x5a), 0, 4096 * 3, 4096 * 4)
    closeSync(fd)
    const before = sha256(file)
    expect(() => openDatabase(file)).toThrowError(expect.objectContaining({ code: 'database_corrupt' }))
    expect(sha256(file)).toBe(before)
    expect(readdirSync(dir).filter((name) => /^a\.db\.corrupt-[\dT-]+Z$/.test(name))).toHaveLength(1)
  })

  it('refuses a database written by a newer Atelier', () => {
    const file = join(tempDir(), 'a.db')
    openDatabase(file, {
      migrations: [...migrations, { version: 50, name: 'future', sql: 'SELECT 1;' }],
    }).close()
    expect(() => openDatabase(file)).toThrowError(
      expect.objectContaining({
        code: 'database_too_new',
        message: expect.stringMatching(/newer than this Atelier knows/),
      }),
    )
  })
})

describe('several processes opening one database', () => {
  const tempDir = useTempDirs()

  it('migrate a fresh database once and share one chat made with --chat-style ensure', async () => {
    const dataDir = tempDir()
    const fixture = fileURLToPath(new URL('../../fixtures/open-and-ensure.ts', import.meta.url))
    const runs = Array.from(
      { length: 4 },
      () =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, ['--import', 'tsx', fixture, dataDir, 'shared-chat'], {
            stdio: ['ignore', 'ignore', 'pipe'],
          })
          let stderr = ''
          child.stderr.on('data', (chunk: Buffer) => {
            stderr += chunk.toString()
          })
          child.once('exit', (code) => resolve({ code, stderr }))
        }),
    )
    for (const { code, stderr } of await Promise.all(runs))
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    const db = openDatabase(join(dataDir, 'atelier.db'))
    try {
      expect(db.prepare('SELECT id FROM chats').all()).toEqual([{ id: 'shared-chat' }])
    } finally {
      db.close()
    }
  })
})
