/**
 * Folder choosing for a chat. The desktop app uses the OS dialog; a browser on the web host cannot
 * pick a path on this machine, so the main process lists folders for the renderer's own browser.
 */
import { readdir, realpath } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, isAbsolute, join } from 'node:path'
import { type Chat, FOLDER_FILE_LIMIT, type FolderListing } from '../../src-shared/contract'
import { AtelierError } from '../../src-shared/errors'

/**
 * The sub-folders of `path` (default: home) and its first files, dot-entries last, names sorted.
 * `home` is the person's home folder (the OS's unless the app was given another).
 */
export async function listFolders(path: string | undefined, home = homedir()): Promise<FolderListing> {
  const requested = path ?? home
  if (!isAbsolute(requested)) {
    throw new AtelierError('invalid_folder', `The folder must be an absolute path, not "${requested}".`)
  }
  let real: string
  let entries: import('node:fs').Dirent[]
  try {
    real = await realpath(requested)
    entries = await readdir(real, { withFileTypes: true })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new AtelierError('invalid_folder', `"${requested}" cannot be opened (${code ?? 'error'}).`, {
      path: requested,
    })
  }
  const folders = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ name: entry.name, path: join(real, entry.name) }))
    .sort(byName)
  // Everything else is shown (not chosen) to recognise the folder by; a huge folder is cut.
  const allFiles = entries.filter((entry) => !entry.isDirectory()).sort(byName)
  const files = allFiles.slice(0, FOLDER_FILE_LIMIT).map((entry) => ({ name: entry.name }))
  const parent = dirname(real)
  return {
    path: real,
    parent: parent === real ? null : parent,
    folders,
    home,
    files,
    fileCount: allFiles.length,
  }
}

/** Dot-entries last, then by name. */
function byName(a: { name: string }, b: { name: string }): number {
  return Number(a.name.startsWith('.')) - Number(b.name.startsWith('.')) || a.name.localeCompare(b.name)
}

/** Folders bound to chats, most recently used first. */
export function recentFolders(chats: Chat[], limit = 10): string[] {
  const byUse = [...chats].sort((a, b) => b.updatedAt - a.updatedAt)
  const folders = byUse.flatMap((chat) => (chat.workingDir ? [chat.workingDir] : []))
  return [...new Set(folders)].slice(0, limit)
}
