/**
 * Whether changing a file inside the bound folder can make code run later, without anyone running
 * it on purpose: a protected-path glob names it, it sits in a folder git takes for a repository, or
 * it has an executable bit.
 */
import { stat } from 'node:fs/promises'
import { dirname, join, relative, sep } from 'node:path'
import picomatch from 'picomatch'

/** A file inside the bound folder: its absolute path, and the same relative to the folder, `/`-separated. */
export interface FolderFile {
  folder: string
  path: string
  relative: string
}

/** Why changing `file` can run code later, in words for the person; undefined when nothing protects it. */
export async function protectionOf(
  file: FolderFile,
  patterns: readonly string[],
): Promise<string | undefined> {
  const named = protectingPattern(file.relative, patterns)
  if (named) {
    return `${file.relative} is a protected path (${named}): changing it can run code later. Only a rule naming it allows it.`
  }
  const repository = await gitDirectoryAround(file)
  if (repository !== undefined) {
    return `${file.relative} is inside ${repository}, which git takes for a repository: changing it can run code at a later git command. Only a rule naming it allows it.`
  }
  if (await isExecutable(file.path)) {
    return `${file.relative} is executable: changing it changes what runs. Only a rule naming it allows it.`
  }
  return undefined
}

/** The protected-path pattern that names a folder-relative path (`/`-separated), if any. */
export function protectingPattern(relativePath: string, patterns: readonly string[]): string | undefined {
  return patterns.find((pattern) => matcherOf(pattern)(relativePath))
}

const matchers = new Map<string, (path: string) => boolean>()

/**
 * As in `.gitignore`, a glob without a `/` names a file at any depth (`.envrc` is `sub/.envrc`
 * too: direnv loads it on a `cd sub`); one with a `/` is relative to the folder.
 */
function matcherOf(pattern: string): (path: string) => boolean {
  let matcher = matchers.get(pattern)
  if (!matcher) {
    matcher = picomatch(pattern.includes('/') ? pattern : `**/${pattern}`, { dot: true })
    matchers.set(pattern, matcher)
  }
  return matcher
}

/**
 * The folder, from the file's own up to the bound folder, that git would open as a repository once
 * the file is written — `/`-separated and relative to the bound folder — or undefined. Git's own test
 * (`is_git_directory`): a `HEAD`, an `objects/` folder and a `refs/` folder; HEAD's content is not
 * read. The file being written counts as present, so whichever of the three a model writes last
 * asks, in whatever order it builds one.
 */
async function gitDirectoryAround(file: FolderFile): Promise<string | undefined> {
  for (let folder = dirname(file.path); ; folder = dirname(folder)) {
    const [entry] = relative(folder, file.path).split(sep)
    const present = async (name: string, kind: 'file' | 'folder') => {
      if (entry === name) return true
      const info = await stat(join(folder, name)).catch(() => undefined)
      return kind === 'file' ? info?.isFile() === true : info?.isDirectory() === true
    }
    if (
      (await present('HEAD', 'file')) &&
      (await present('objects', 'folder')) &&
      (await present('refs', 'folder'))
    ) {
      return relative(file.folder, folder).split(sep).join('/') || '.'
    }
    if (folder === file.folder || dirname(folder) === folder) return undefined
  }
}

async function isExecutable(path: string): Promise<boolean> {
  if (process.platform === 'win32') return false
  const info = await stat(path).catch(() => undefined)
  return info?.isFile() === true && (info.mode & 0o111) !== 0
}
