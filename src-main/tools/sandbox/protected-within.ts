/**
 * The protected paths that exist inside a folder, found on disk so the sandbox can bind each one
 * read-only: what the approvals' protected-path globs name (`.npmrc` at any depth, `.github/**`,
 * `** /.git/**`…) and every folder git would take for a repository. A protected folder is bound whole
 * and not entered; `node_modules` is not entered (its package manager rewrites it anyway).
 *
 * Every command asks, so the answer is kept per folder and brought up to date from the folders'
 * modification times: a folder whose entries did not change since (none added, removed or renamed)
 * is not read again. A tree of tens of thousands of files costs a few stats when nothing changed.
 */
import { type Dirent, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import picomatch from 'picomatch'

/** Folders never entered: installed dependencies, rewritten by their package manager. */
const NOT_ENTERED = new Set(['node_modules'])

/** What one folder held when it was last read. */
interface FolderEntry {
  mtimeMs: number
  /** Its protected entries (real paths), bound read-only. */
  protectedHere: string[]
  /** Its sub-folders entered, by name. */
  folders: string[]
}

/** Whether a path is protected: a quick test of its name first, then of its folder-relative path. */
interface ProtectedMatcher {
  name(name: string): boolean
  path(relativePath: string): boolean
}

/**
 * The approvals' globs as two tests: as there, a glob without a `/` names a file at any depth. Most
 * names are not protected, and are told so by a set lookup or a prefix or suffix, not a glob.
 */
export function protectedMatcher(patterns: readonly string[]): ProtectedMatcher {
  const globs = patterns.map((pattern) => (pattern.includes('/') ? pattern : `**/${pattern}`))
  const whole = picomatch(globs, { dot: true })
  const exact = new Set<string>()
  const starts: string[] = []
  const ends: string[] = []
  const others: string[] = []
  for (const glob of globs) {
    const last =
      glob
        .split('/')
        .filter((part) => part !== '**')
        .at(-1) ?? '*'
    if (!/[*?[\]{}!()]/.test(last)) exact.add(last)
    else if (/^[^*?[\]{}!()]+\*$/.test(last)) starts.push(last.slice(0, -1))
    else if (/^\*[^*?[\]{}!()]+$/.test(last)) ends.push(last.slice(1))
    else others.push(last)
  }
  const other = others.length > 0 ? picomatch(others, { dot: true }) : () => false
  return {
    name: (name) =>
      exact.has(name) ||
      starts.some((start) => name.startsWith(start)) ||
      ends.some((end) => name.endsWith(end)) ||
      other(name),
    path: (relativePath) => whole(relativePath) || whole(`${relativePath}/`),
  }
}

/** Folders read, by folder bound and patterns, as they were last read. */
const indexes = new Map<string, Map<string, FolderEntry>>()

/** Real paths, inside `folder`, of what exists and is protected: each to be bound read-only. */
export function protectedWithin(folder: string, patterns: readonly string[]): string[] {
  const key = `${folder}\u0000${patterns.join('\u0000')}`
  let index = indexes.get(key)
  if (!index) {
    index = new Map()
    indexes.set(key, index)
  }
  const matcher = protectedMatcher(patterns)
  const found: string[] = []
  const seen = new Set<string>()
  const stack = ['']
  while (stack.length > 0) {
    const relative = stack.pop() as string
    seen.add(relative)
    const entry = upToDate(index, folder, relative, matcher)
    if (!entry) continue
    found.push(...entry.protectedHere)
    for (const name of entry.folders) stack.push(relative === '' ? name : `${relative}/${name}`)
  }
  // Folders gone since, or no longer entered, are forgotten.
  for (const relative of index.keys()) if (!seen.has(relative)) index.delete(relative)
  return found
}

/** The folder's entry, read again only when its entries changed; undefined when it is gone. */
function upToDate(
  index: Map<string, FolderEntry>,
  root: string,
  relative: string,
  matcher: ProtectedMatcher,
): FolderEntry | undefined {
  const path = relative === '' ? root : join(root, relative)
  let mtimeMs: number
  try {
    mtimeMs = statSync(path).mtimeMs
  } catch {
    return undefined
  }
  const known = index.get(relative)
  if (known?.mtimeMs === mtimeMs) return known
  let entries: Dirent[]
  try {
    entries = readdirSync(path, { withFileTypes: true })
  } catch {
    return undefined
  }
  const entry = read(path, relative, entries, matcher, mtimeMs)
  index.set(relative, entry)
  return entry
}

function read(
  path: string,
  relative: string,
  entries: readonly Dirent[],
  matcher: ProtectedMatcher,
  mtimeMs: number,
): FolderEntry {
  // A repository folder below the bound one (a nested clone, a shipped bare repo) is bound whole.
  if (relative !== '' && looksLikeGitDir(entries)) return { mtimeMs, protectedHere: [path], folders: [] }
  const protectedHere: string[] = []
  const folders: string[] = []
  for (const entry of entries) {
    const isFolder = entry.isDirectory()
    const childRelative = relative === '' ? entry.name : `${relative}/${entry.name}`
    if (matcher.name(entry.name) && matcher.path(isFolder ? `${childRelative}/` : childRelative)) {
      protectedHere.push(join(path, entry.name))
    } else if (isFolder && !NOT_ENTERED.has(entry.name)) {
      folders.push(entry.name)
    }
  }
  return { mtimeMs, protectedHere, folders }
}

/** Git's own test for a repository folder: a HEAD file, and objects/ and refs/ folders. */
function looksLikeGitDir(entries: readonly Dirent[]): boolean {
  let head = false
  let objects = false
  let refs = false
  for (const entry of entries) {
    if (entry.name === 'HEAD' && !entry.isDirectory()) head = true
    else if (entry.name === 'objects' && entry.isDirectory()) objects = true
    else if (entry.name === 'refs' && entry.isDirectory()) refs = true
  }
  return head && objects && refs
}
