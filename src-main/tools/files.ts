/**
 * File helpers shared by the filesystem tools: the binary probe (one definition, so a file grep
 * searches is a file read_file opens), hashing, and atomic writes serialized per file.
 */
import { createHash, randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { link, open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

/** How much of a file's head is searched for a NUL byte to call it binary. */
export const BINARY_PROBE_BYTES = 8 * 1024

export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, BINARY_PROBE_BYTES).includes(0)
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

const writing = new Map<string, Promise<unknown>>()

/** Runs `work` after every earlier write to the same real path has finished. */
export function serializedByPath<T>(realPath: string, work: () => Promise<T>): Promise<T> {
  const previous = writing.get(realPath) ?? Promise.resolve()
  const next = previous.then(work, work)
  const settled = next.catch(() => {})
  writing.set(realPath, settled)
  void settled.then(() => {
    if (writing.get(realPath) === settled) writing.delete(realPath)
  })
  return next
}

/**
 * Writes all of `bytes` to `realPath` so that a crash at any moment leaves the old content or the
 * new, never a mix: a temporary file in the same folder, fsync, then rename over the target (or,
 * for a new file, a hard link that fails if something appeared meanwhile). The mode is kept.
 */
export async function writeFileAtomically(
  realPath: string,
  bytes: Uint8Array,
  { mode, exclusive }: { mode?: number; exclusive: boolean },
): Promise<void> {
  const folder = dirname(realPath)
  const temporary = join(folder, `.${basename(realPath)}.atelier-${randomBytes(6).toString('hex')}.tmp`)
  const handle = await open(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
    mode ?? 0o644,
  )
  try {
    await handle.writeFile(bytes)
    if (mode !== undefined) await handle.chmod(mode)
    await handle.sync()
  } finally {
    await handle.close()
  }
  try {
    if (exclusive) await link(temporary, realPath)
    else await rename(temporary, realPath)
  } finally {
    await unlink(temporary).catch(() => {})
  }
  await syncFolder(folder)
}

/** Makes the rename itself durable. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, constants.O_RDONLY).catch(() => undefined)
  if (!handle) return
  try {
    await handle.sync()
  } catch {
    // Some filesystems refuse fsync on a folder; the data itself is already synced.
  } finally {
    await handle.close()
  }
}
