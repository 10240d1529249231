import { accessSync, constants, copyFileSync, existsSync, readdirSync, type Stats, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { AtelierError, errorMessage } from '../../src-shared/errors'

/**
 * What opening the database at `file` failed on, in words that say what to do: a read-only or
 * shut-out folder, a full disk and a damaged file each call for something else, and only the last
 * is a reason to start fresh. A failure none of these explains is given back as it was.
 */
export function databaseOpenFailure(error: unknown, file: string): unknown {
  if (AtelierError.isInstance(error)) return error
  const code = (error as { code?: unknown } | undefined)?.code
  if (typeof code !== 'string') return error
  const detail = errorMessage(error)
  if (code === 'ENOSPC' || code === 'EDQUOT' || code.startsWith('SQLITE_FULL')) return diskFull(file, detail)
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return damagedDatabase(file, [detail])
  if (!ACCESS_CODES.some((prefix) => code.startsWith(prefix))) return error
  // SQLite's "cannot open" and Node's EACCES say nothing of why: ask the file system what this user may do.
  const shutOut = accessProblem(file)
  if (shutOut === 'read_only' || (!shutOut && code.startsWith('SQLITE_READONLY')))
    return readOnly(file, detail)
  if (shutOut === 'permission' || code === 'EACCES' || code === 'EPERM') return permissionDenied(file, detail)
  return error
}

/**
 * The database is damaged: a copy of it (and of its WAL, which may hold its newest commits) is kept
 * beside it before anything else, and the words say how to start fresh beside that copy.
 */
export function damagedDatabase(file: string, problems: string[]): AtelierError {
  const { copy, failure } = keepCopy(file)
  const kept = copy
    ? `A copy is kept at ${copy}.`
    : `Atelier could not keep a copy of it (${failure}): copy it somewhere safe yourself first.`
  return new AtelierError(
    'database_corrupt',
    `The database at ${file} is damaged (${problems.slice(0, 3).join('; ')}). Atelier has not changed it. ` +
      `${kept} To start fresh beside it, move ${basename(file)} (with its -wal and -shm files, if any) ` +
      `out of ${dirname(file)} and start again — Atelier then makes a new, empty database there — or run ` +
      `\`atelier --data-dir "${dirname(file)}" database start-fresh\`, which moves it onto the copy.`,
    { file, problems: problems.slice(0, 20), ...(copy && { copy }) },
  )
}

/** A 0-byte database file: nothing Atelier made (it writes a new database whole), and not taken for a new one. */
export function emptyDatabase(file: string): AtelierError {
  return new AtelierError(
    'database_empty',
    `The database at ${file} is empty (0 bytes): it holds no chats or settings. Atelier has not changed it. ` +
      'If you expected your data there, restore the file from a backup (a copy or a move may have been cut short); ' +
      `to start fresh, delete the empty ${basename(file)} and start again, or run ` +
      `\`atelier --data-dir "${dirname(file)}" database start-fresh\`, which moves it aside.`,
    { file },
  )
}

/** Node's and SQLite's codes that mean "not allowed", which the file system can tell apart. */
const ACCESS_CODES = ['EACCES', 'EPERM', 'EROFS', 'SQLITE_READONLY', 'SQLITE_CANTOPEN', 'SQLITE_PERM']

/**
 * Whether this user may not read the database (or reach its folder) at all, or it belongs to
 * another user, or this user may read but not write it: a read-only folder, file or file system (EROFS).
 */
function accessProblem(file: string): 'permission' | 'read_only' | undefined {
  const folder = dirname(file)
  const exists = existsSync(file)
  if (!allowed(folder, constants.X_OK) || (exists && !allowed(file, constants.R_OK))) return 'permission'
  // Another user's file (root's, after Atelier ran under sudo) is theirs to give back, not read-only.
  if (exists && process.getuid && statSync(file).uid !== process.getuid()) return 'permission'
  if (!allowed(folder, constants.W_OK) || (exists && !allowed(file, constants.W_OK))) return 'read_only'
  return undefined
}

function allowed(path: string, mode: number): boolean {
  try {
    accessSync(path, mode)
    return true
  } catch {
    return false
  }
}

function readOnly(file: string, detail: string): AtelierError {
  return new AtelierError(
    'database_read_only',
    `Atelier cannot write to its database at ${file}: the folder, the file or the drive is read-only ` +
      `(${detail}). Nothing is wrong with your data and nothing was changed. Make ${dirname(file)} and the files ` +
      'in it writable for your user (on a read-only drive, copy the folder to a writable place and start ' +
      'Atelier with --data-dir or ATELIER_DATA_DIR pointing there), then start again.',
    { file, detail },
  )
}

function permissionDenied(file: string, detail: string): AtelierError {
  return new AtelierError(
    'database_permission_denied',
    `Atelier is not allowed to open its database at ${file} (${detail}): the file or its folder belongs to ` +
      'another user or shuts yours out — often because Atelier once ran as root (sudo). Nothing was changed. ' +
      `Give your user back the folder (for example \`sudo chown -R "$USER" "${dirname(file)}"\`) and start again.`,
    { file, detail },
  )
}

function diskFull(file: string, detail: string): AtelierError {
  return new AtelierError(
    'database_disk_full',
    `The disk holding ${file} is full (${detail}), so Atelier cannot write to its database. What was saved ` +
      'is not affected. Free some space on that disk (or raise your quota) and start again.',
    { file, detail },
  )
}

/**
 * Copies the damaged file (and its WAL under the name SQLite looks for beside the copy) to
 * `<file>.corrupt-<time>`, never over an earlier copy. A copy made since the file last changed is
 * the one kept: starting again and again does not fill the disk with copies of one damaged file.
 */
function keepCopy(file: string): { copy?: string; failure?: string } {
  const earlier = copiesOf(file).find((copy) => isCopyOf(copy, file))
  if (earlier) return { copy: earlier }
  const copy = asideName(file, 'corrupt')
  try {
    copyFileSync(file, copy, constants.COPYFILE_EXCL)
    if (withContent(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`, constants.COPYFILE_EXCL)
    return { copy }
  } catch (error) {
    return { failure: errorMessage(error) }
  }
}

/** `<file>.<kind>-<time>`: a name beside `file` that sorts by when it was made. */
export function asideName(file: string, kind: 'corrupt' | 'empty'): string {
  return `${file}.${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}`
}

/** The copies kept of `file` so far, oldest first. */
function copiesOf(file: string): string[] {
  const prefix = `${basename(file)}.corrupt-`
  return readdirSync(dirname(file))
    .filter((name) => name.startsWith(prefix) && !name.endsWith('-wal'))
    .sort()
    .map((name) => join(dirname(file), name))
}

/**
 * Whether `copy` was made of `file` as it is now: as long, and made after its last change; its WAL
 * too. An empty WAL counts as none: SQLite makes one at every open of a WAL database.
 */
function isCopyOf(copy: string, file: string): boolean {
  return ['', '-wal'].every((suffix) => {
    const original = withContent(`${file}${suffix}`)
    const kept = withContent(`${copy}${suffix}`)
    if (!original) return !kept
    return kept !== undefined && kept.size === original.size && kept.mtimeMs >= original.mtimeMs
  })
}

function withContent(path: string): Stats | undefined {
  const stats = existsSync(path) ? statSync(path) : undefined
  return stats?.size ? stats : undefined
}
