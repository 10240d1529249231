/**
 * The read-before-overwrite guard shared by write_file and edit_file: an existing file may change
 * only when this chat's ledger holds the sha256 of its current bytes. Content, not mtime, decides,
 * so an external edit is caught even when its mtime was put back.
 */
import { lstat } from 'node:fs/promises'
import { ToolError } from './errors'
import { readBounded, sha256, WHOLE_FILE_CEILING } from './files'
import type { ToolContext } from './types'

export interface CurrentFile {
  bytes: Buffer
  mode: number
}

/**
 * The current bytes of an existing regular file, or undefined when nothing is there yet. Read with
 * the same bounded, swap-checked descriptor as read_file: a file too big to read is too big to guard.
 */
export async function readCurrent(
  real: string,
  display: string,
  signal: AbortSignal,
): Promise<CurrentFile | undefined> {
  const stat = await lstat(real).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (!stat) return undefined
  if (!stat.isFile())
    throw new ToolError('validation_failed', `"${display}" is not a regular file; it cannot be written.`)
  return { bytes: await readBounded(real, display, WHOLE_FILE_CEILING, signal), mode: stat.mode & 0o7777 }
}

/** Refuses unless the chat read exactly these bytes. */
export async function assertReadFirst(
  current: CurrentFile,
  real: string,
  display: string,
  context: Pick<ToolContext, 'ledger'>,
): Promise<void> {
  const known = await context.ledger.get(real)
  if (known === sha256(current.bytes)) return
  throw new ToolError(
    'not_read',
    known === undefined
      ? `"${display}" exists and has not been read in this chat. Read it with read_file first, then write.`
      : `"${display}" has changed since this chat last read it. Read it again with read_file, then write.`,
  )
}
