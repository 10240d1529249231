import { chmodSync, closeSync, existsSync, openSync } from 'node:fs'
import BetterSqlite3 from 'better-sqlite3'
import { AtelierError, errorMessage } from '../../src-shared/errors'
import { migrations as defaultMigrations, type Migration } from './migrations'

export type Database = BetterSqlite3.Database

export interface OpenDatabaseOptions {
  /** Path of a `better_sqlite3.node` built for this runtime (Electron has its own ABI). */
  nativeBinding?: string
  migrations?: readonly Migration[]
}

/**
 * Opens (creating if needed) the app database, readable by its owner only: checks it before
 * touching it, then WAL with synchronous=FULL so a committed transaction survives a crash or power
 * loss, then migrations.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database {
  ownerOnly(file)
  const db = new BetterSqlite3(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {})
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
 * The database, its WAL and its shared memory hold every conversation and setting: mode 0600
 * whatever the umask. SQLite creates the -wal and -shm files with the database file's mode, so the
 * database is created 0600 before SQLite opens it; files an older Atelier left are narrowed.
 */
function ownerOnly(file: string): void {
  closeSync(openSync(file, 'a', 0o600))
  for (const each of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(each)) chmodSync(each, 0o600)
  }
}

function assertIntact(db: Database, file: string): void {
  let problems: string[]
  try {
    problems = (db.pragma('quick_check') as { quick_check: string }[]).map((row) => row.quick_check)
  } catch (error) {
    // SQLITE_NOTADB / SQLITE_CORRUPT surface as throws rather than as check rows.
    problems = [errorMessage(error)]
  }
  if (problems.length === 1 && problems[0] === 'ok') return
  throw new AtelierError(
    'database_corrupt',
    `The database at ${file} is damaged (${problems.slice(0, 3).join('; ')}). Atelier has not changed it: ` +
      'move it aside (or restore a backup) and start again to begin with a fresh database.',
    { file, problems: problems.slice(0, 20) },
  )
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
        'database_corrupt',
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
