import { existsSync, renameSync } from 'node:fs'
import { AtelierError } from '../../src-shared/errors'
import { type OpenDatabaseOptions, openDatabase } from './database'
import { asideName } from './open-failure'

/**
 * Makes a new, empty database at `file` when the one there is damaged or empty, and says where
 * that one went; undefined when it opens and nothing was done. Nothing is deleted: a damaged
 * database (its WAL and shared memory too) is moved onto the copy of it that opening kept — the
 * same bytes — and an empty one beside itself. Any other failure (a read-only folder, a full disk)
 * is not a reason to start fresh, and is thrown as it is.
 */
export function startFresh(file: string, options: OpenDatabaseOptions = {}): string | undefined {
  const setAside = setAsideTarget(file, options)
  if (!setAside) return undefined
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(`${file}${suffix}`)) renameSync(`${file}${suffix}`, `${setAside}${suffix}`)
  }
  openDatabase(file, options).close()
  return setAside
}

/** Where the database at `file` goes when it is started afresh, from why it does not open. */
function setAsideTarget(file: string, options: OpenDatabaseOptions): string | undefined {
  try {
    openDatabase(file, options).close()
    return undefined
  } catch (error) {
    if (!AtelierError.isInstance(error)) throw error
    if (error.code === 'database_empty') return asideName(file, 'empty')
    const copy = (error.data as { copy?: string } | undefined)?.copy
    if (error.code === 'database_corrupt' && copy) return copy
    throw error
  }
}
