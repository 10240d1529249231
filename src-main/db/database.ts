import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  linkSync,
  openSync,
  statSync,
  unlinkSync,
} from 'node:fs'
import { dirname } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { AtelierError } from '../../src-shared/errors'
import { migrations as defaultMigrations, type Migration } from './migrations'
import { damagedDatabase, databaseOpenFailure, emptyDatabase } from './open-failure'

export type Database = BetterSqlite3.Database

export interface OpenDatabaseOptions {
  /** Path of a `better_sqlite3.node` built for this runtime (Electron has its own ABI). */
  nativeBinding?: string
  migrations?: readonly Migration[]
}

/**
 * Opens (creating if needed) the app database, readable by its owner only: checks it before
 * touching it, then WAL with synchronous=FULL so a committed transaction survives a crash or power
 * loss, then migrations. A failure says what it was — a read-only or shut-out folder, a full disk,
 * an empty or a damaged file (of which a copy is kept) — rather than SQLite's words.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database {
  try {
    return openChecked(file, options)
  } catch (error) {
    throw databaseOpenFailure(error, file)
  }
}

function openChecked(file: string, options: OpenDatabaseOptions): Database {
  const sqliteOptions = options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}
  // Asked of the file system first: SQLite would open a file it may not write and fail only at its
  // first write, with words that say nothing of why.
  accessSync(dirname(file), constants.W_OK | constants.X_OK)
  const size = existsSync(file) ? statSync(file).size : undefined
  if (size === 0) throw emptyDatabase(file)
  if (size !== undefined) accessSync(file, constants.R_OK | constants.W_OK)
  createWhole(file, sqliteOptions)
  ownerOnly(file)
  const db = new BetterSqlite3(file, sqliteOptions)
  try {
    // Another process (the CLI beside the desktop app) may hold a write lock for a moment.
    db.pragma('busy_timeout = 5000')
    // Before any statement that writes: a corrupt file is reported and left exactly as it was.
    assertIntact(db, file)
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.pragma('foreign_keys = ON')
    migrate(db, options.migrations ?? defaultMigrations)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

/**
 * Runs a write that must survive the process dying but need not survive the machine losing power
 * (a call's state on its way: "executing", a decision): WAL keeps it in the system's cache, where
 * a crash or kill of Atelier cannot lose it, and the next ordinary commit syncs it to the disk with
 * the rest. Some twenty times cheaper than a synced commit, which matters on every tool call.
 */
export function withoutSync<T>(db: Database, write: () => T): T {
  let sync = syncStatements.get(db)
  if (!sync) {
    // Prepared once: `db.pragma` prepares its statement anew each time, which costs more than the write.
    sync = {
      normal: db.prepare('PRAGMA synchronous = NORMAL'),
      full: db.prepare('PRAGMA synchronous = FULL'),
    }
    syncStatements.set(db, sync)
  }
  sync.normal.run()
  try {
    return write()
  } finally {
    sync.full.run()
  }
}

const syncStatements = new WeakMap<
  Database,
  { normal: BetterSqlite3.Statement; full: BetterSqlite3.Statement }
>()

/**
 * Makes a missing database as a whole file (its header written, 0600) under a name of its own,
 * then links it into place: an empty database file is then never Atelier's doing — not a first
 * start cut short, not another process caught between creating the file and writing it — so an
 * empty one found at open is reported rather than taken for new.
 */
function createWhole(file: string, sqliteOptions: BetterSqlite3.Options): void {
  if (existsSync(file)) return
  const draft = `${file}.new-${process.pid}`
  closeSync(openSync(draft, 'w', 0o600))
  try {
    const db = new BetterSqlite3(draft, sqliteOptions)
    // Switching to WAL writes the header page.
    db.pragma('journal_mode = WAL')
    db.close()
    placeOnce(draft, file)
  } finally {
    unlinkSync(draft)
  }
}

/** `draft` at `file` unless another process put its database there first. */
function placeOnce(draft: string, file: string): void {
  try {
    linkSync(draft, file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return
    // A file system without hard links (FAT, some network shares): an exclusive copy never replaces one.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error
    try {
      copyFileSync(draft, file, constants.COPYFILE_EXCL)
    } catch (copyError) {
      if ((copyError as NodeJS.ErrnoException).code !== 'EEXIST') throw copyError
    }
  }
}

/**
 * The database, its WAL and its shared memory hold every conversation and setting: readable by
 * their owner only, whatever the umask. SQLite creates the -wal and -shm files with the database
 * file's mode; files an older Atelier left readable by others are narrowed, and a file the person
 * made read-only is not made writable (for anyone but root it has been reported at open already).
 */
function ownerOnly(file: string): void {
  for (const each of [file, `${file}-wal`, `${file}-shm`]) {
    if (!existsSync(each)) continue
    const mode = statSync(each).mode & 0o777
    if (mode & 0o077) chmodSync(each, mode & 0o600)
  }
}

function assertIntact(db: Database, file: string): void {
  let problems: string[]
  try {
    problems = (db.pragma('quick_check') as { quick_check: string }[]).map((row) => row.quick_check)
  } catch (error) {
    // SQLITE_NOTADB / SQLITE_CORRUPT surface as throws rather than as check rows; a read-only
    // folder or a full disk does too, and is not damage.
    throw databaseOpenFailure(error, file)
  }
  if (problems.length === 1 && problems[0] === 'ok') return
  throw damagedDatabase(file, problems)
}

function migrate(db: Database, migrations: readonly Migration[]): void {
  const latest = migrations.at(-1)?.version ?? 0
  let scrubbed = false
  // IMMEDIATE takes the write lock before reading the version: the desktop app and the CLI opening
  // an older database at the same moment migrate it once, one after the other.
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number
    if (current > latest) {
      throw new AtelierError(
        'database_too_new',
        `The database is at schema version ${current}, newer than this Atelier knows (${latest}). Update Atelier.`,
        { current, latest },
      )
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue
      db.exec(migration.sql)
      scrubbed = migration.upgrade?.(db)?.scrubbed === true || scrubbed
      db.pragma(`user_version = ${migration.version}`)
    }
  }).immediate()
  if (scrubbed) {
    // Old copies of what was removed (a row moved when its page split, a value replaced by an edit)
    // survive in free pages that no rewrite of the row reaches: rebuild the file without them, and
    // let the rebuilt pages reach it now rather than at some later checkpoint. VACUUM cannot run
    // inside the migration's transaction.
    db.exec('VACUUM')
    db.pragma('wal_checkpoint(TRUNCATE)')
  }
}
