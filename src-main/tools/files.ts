/**
 * File helpers shared by the filesystem tools: the binary probe (one definition, so a file grep
 * searches is a file read_file opens), hashing, and atomic writes serialized per file.
 */
import { createHash, randomBytes } from 'node:crypto'
import { constants, fstatSync, lstatSync, readlinkSync, realpathSync } from 'node:fs'
import { type FileHandle, link, lstat, mkdir, open, realpath, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { ToolError, ToolPathError } from './errors'
import { temporaryName, whileNoted } from './unfinished-writes'

/** The most of one file any tool reads whole (read_file's text view, the write guard's hash). */
export const WHOLE_FILE_CEILING = 10 * 1024 * 1024

/** How much of a file's head is searched for a NUL byte to call it binary. */
export const BINARY_PROBE_BYTES = 8 * 1024

export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, BINARY_PROBE_BYTES).includes(0)
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

const writing = new Map<string, Promise<unknown>>()

/**
 * Runs `work` after every earlier write to the same real path has finished — unless the call was
 * stopped while it waited: then it never starts, so nothing of it appears after its result.
 */
export function serializedByPath<T>(
  realPath: string,
  signal: AbortSignal,
  work: () => Promise<T>,
): Promise<T> {
  const previous = writing.get(realPath) ?? Promise.resolve()
  const start = () => {
    signal.throwIfAborted()
    return work()
  }
  const next = previous.then(start, start)
  const settled = next.catch(() => {})
  writing.set(realPath, settled)
  void settled.then(() => {
    if (writing.get(realPath) === settled) writing.delete(realPath)
  })
  return next
}

/**
 * Pins a checked folder for the duration of `work`, closing the window between the containment
 * check and the use: another process could swap a component of the path for a symlink meanwhile.
 * On Linux the folder is opened and `work` addresses it through /proc/self/fd/N, which names that
 * very folder whatever happens to the path (what openat would give a C program). Elsewhere the path
 * is re-resolved, which narrows the window but cannot close it.
 */
export async function withPinnedFolder<T>(
  folder: string,
  work: (base: string, handle: FileHandle) => Promise<T>,
): Promise<T> {
  const handle = await open(folder, constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    const pinned = process.platform === 'linux' ? `/proc/self/fd/${handle.fd}` : folder
    const actual = await realpath(pinned)
    if (actual !== folder) throw changedUnderfoot(folder, actual)
    return await work(pinned, handle)
  } finally {
    await handle.close()
  }
}

const PROC_FD = '/proc/self/fd/'

/** Where an open descriptor leads, as the kernel resolved it when it was opened (Linux's /proc). */
export function descriptorPath(fd: number): string | undefined {
  try {
    return readlinkSync(`${PROC_FD}${fd}`)
  } catch {
    return undefined
  }
}

/**
 * Whether `fd`, opened by the real path `path`, is the file at that path and not one reached through
 * a folder swapped for a link meanwhile. Exact where the kernel says (Linux); elsewhere the file at
 * the path, resolved again, must be the one opened, which leaves a far narrower window.
 */
export function openedAt(fd: number, path: string): boolean {
  try {
    const opened = descriptorPath(fd)
    if (opened !== undefined) return opened === path
    const [now, then] = [lstatSync(path), fstatSync(fd)]
    return now.ino === then.ino && now.dev === then.dev && realpathSync.native(path) === path
  } catch {
    return false
  }
}

/** Fails unless an opened file is the checked path itself, not something swapped in before the open. */
export function assertOpenedAt(handle: FileHandle, expected: string): void {
  if (!openedAt(handle.fd, expected))
    throw changedUnderfoot(expected, descriptorPath(handle.fd) ?? 'another file')
}

function changedUnderfoot(expected: string, actual: string): ToolPathError {
  return new ToolPathError(
    'path_denied',
    `"${expected}" changed while it was being used (it now leads to ${actual}); refused. Try again.`,
    'changed_underfoot',
  )
}

/** Creates the missing folders of `folder` one level at a time, each inside its pinned parent. */
export async function makeFolders(folder: string): Promise<void> {
  const missing: string[] = []
  let existing = folder
  while (!(await isFolder(existing))) {
    missing.unshift(basename(existing))
    existing = dirname(existing)
  }
  for (const name of missing) {
    await withPinnedFolder(existing, (base) => mkdir(join(base, name)).catch(ignoreExisting))
    existing = join(existing, name)
  }
}

async function isFolder(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined))?.isDirectory() ?? false
}

function ignoreExisting(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EEXIST') throw error
}

/**
 * Writes all of `bytes` to `realPath` so that a crash at any moment leaves the old content or the
 * new, never a mix: a temporary file in the same folder, fsync, then rename over the target (or,
 * for a new file, a hard link that fails if something appeared meanwhile). The mode is kept. A
 * temporary file a kill leaves behind is removed at the next start (see unfinished-writes).
 * A stop (`signal`) that comes before the rename leaves the target untouched and no temporary file;
 * from the rename on, the write completes, and `beginCommit` tells the executor to wait for it.
 */
export async function writeFileAtomically(
  realPath: string,
  bytes: Uint8Array,
  {
    mode,
    exclusive,
    signal,
    beginCommit,
  }: { mode?: number; exclusive: boolean; signal: AbortSignal; beginCommit: () => void },
): Promise<void> {
  signal.throwIfAborted()
  await withPinnedFolder(dirname(realPath), async (base, folder) => {
    const target = join(base, basename(realPath))
    const id = randomBytes(6).toString('hex')
    const temporary = join(base, temporaryName(realPath, id))
    // Noted by its real path: the pinned name means nothing to the process that may remove it.
    await whileNoted(join(dirname(realPath), temporaryName(realPath, id)), id, async () => {
      const handle = await open(
        temporary,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
        mode ?? 0o644,
      )
      try {
        try {
          await handle.writeFile(bytes, { signal })
          if (mode !== undefined) await handle.chmod(mode)
          await handle.sync()
        } finally {
          await handle.close()
        }
        // The commit. A stop that came while the temporary file was written is honoured here and
        // nowhere later; no await stands between this check and the rename being issued.
        signal.throwIfAborted()
        beginCommit()
        if (exclusive) await link(temporary, target)
        else await rename(temporary, target)
      } finally {
        // Gone already after a rename; after a link, a stop or a failed write it is still there.
        await unlink(temporary).catch(() => {})
      }
    })
    // Makes the rename itself durable; some filesystems refuse fsync on a folder.
    await folder.sync().catch(() => {})
  })
}

/**
 * Opens a regular file for reading through one descriptor, checked to be the path's own file. FIFOs
 * and devices are refused before any read can block; folders are refused naming the tools for them.
 * The caller closes the handle.
 */
export async function openRegularFile(
  real: string,
  display: string,
): Promise<{ handle: FileHandle; size: number }> {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: no symlink swapped in since the check.
  const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new ToolError('not_found', `No file at "${display}".`)
      if (error.code === 'ELOOP')
        throw new ToolError('path_denied', `"${display}" changed into a symlink; read it again.`)
      throw error
    },
  )
  try {
    assertOpenedAt(handle, real)
    const stat = await handle.stat()
    if (stat.isDirectory()) {
      throw new ToolError(
        'validation_failed',
        `"${display}" is a folder; use list_directory or glob to see inside it.`,
      )
    }
    if (!stat.isFile()) {
      throw new ToolError(
        'validation_failed',
        `"${display}" is not a regular file (a device, FIFO or socket); it cannot be read.`,
      )
    }
    return { handle, size: stat.size }
  } catch (error) {
    await handle.close()
    throw error
  }
}

/**
 * Reads at most `ceiling` bytes of an opened file whose stat said `size`. The ceiling bounds what the
 * descriptor yields, not what stat claims, so a file that lies about its size or grows mid-read is
 * refused at the cap instead of filling memory.
 */
export async function readOpened(
  { handle, size }: { handle: FileHandle; size: number },
  display: string,
  ceiling: number,
  signal: AbortSignal,
  /** What the refusal of a file past the ceiling tells to do instead. */
  advice = '',
): Promise<Buffer> {
  // Sized by stat, read straight into place; grown only if the file turns out longer than it said.
  let buffer = Buffer.allocUnsafe(Math.min(size, ceiling) + 1)
  let total = 0
  for (;;) {
    signal.throwIfAborted()
    if (total === buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, ceiling + 1))
      buffer.copy(grown, 0, 0, total)
      buffer = grown
    }
    const { bytesRead } = await handle.read(buffer, total, buffer.length - total, null)
    if (bytesRead === 0) break
    total += bytesRead
    if (total > ceiling) throw tooLarge(display, ceiling, advice)
  }
  return buffer.subarray(0, total)
}

/** Reads at most `ceiling` bytes of a regular file through one descriptor (see readOpened). */
export async function readBounded(
  real: string,
  display: string,
  ceiling: number,
  signal: AbortSignal,
): Promise<Buffer> {
  const opened = await openRegularFile(real, display)
  try {
    return await readOpened(opened, display, ceiling, signal)
  } finally {
    await opened.handle.close()
  }
}

/** A byte count as a person reads it: 256 KiB, 10 MiB, 190.7 MiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${+(bytes / 1024).toFixed(1)} KiB`
  if (bytes < 1024 ** 3) return `${+(bytes / 1024 / 1024).toFixed(1)} MiB`
  return `${+(bytes / 1024 ** 3).toFixed(1)} GiB`
}

/** The refusal of a file past a ceiling; `advice` says what can be done instead. */
export function tooLarge(display: string, ceiling: number, advice = ''): ToolError {
  return new ToolError(
    'validation_failed',
    `"${display}" is larger than ${formatBytes(ceiling)}; it cannot be read whole.${advice && ` ${advice}`}`,
  )
}
