/**
 * The directory walk behind glob and grep, and the bits both tools share. The walk never enters a
 * symlinked folder (so a link cannot lead it out of the folder it was given), never enters a folder
 * the path policy refuses, and with `respectGitignore` prunes what the repository's .gitignore files
 * exclude, as git and ripgrep do.
 *
 * Folders are listed with synchronous calls, which save a thread-pool round trip per folder (grep
 * reads files the same way; there the asynchronous calls made a search 3 to 5 times slower). The
 * walk gives the event loop a turn every few milliseconds (TimeSlicer), so a stop or timeout lands.
 * glob and grep walk in a search worker (tools/search/worker-pool.ts), which a stop terminates.
 */
import {
  closeSync,
  constants,
  type Dirent,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
} from 'node:fs'
import { totalmem } from 'node:os'
import { dirname, join, sep } from 'node:path'
import ignore, { type Ignore } from 'ignore'
import picomatch from 'picomatch'
import type { ToolParameterDescriptor } from '../../src-shared/tools'
import { ToolPathError } from './errors'
import { descriptorPath, openedAt } from './files'
import { isInsideReal, type PathPolicy, type PathScope, resolveAndValidatePath } from './paths'
import { toToolOutput } from './pipeline/shape'
import { clampIntegerSetting, integerParameter } from './settings-policy'

/**
 * The warm cache's budget per chat folder (tools/search/tree-cache.ts): by default a sixty-fourth
 * of the machine's memory, in steps of 64 MiB, from 64 MiB to 1 GiB. A tree of 200,000 files takes
 * about 87 MiB, so from 8 GiB of memory a tree that size is kept warm (a 64 MiB budget never
 * held it); each folder uses only what its tree needs.
 */
const CACHE_MIB = {
  min: 0,
  max: 4096,
  fallback: Math.min(1024, Math.max(64, 64 * Math.floor(totalmem() / 64 / 2 ** 20 / 64))),
}

/** The walk settings glob and grep share, with their defaults. */
export const WALK_SETTING_DESCRIPTORS: ToolParameterDescriptor[] = [
  {
    name: 'includeDotfiles',
    type: 'boolean',
    label: 'Include dotfiles',
    description: 'Also look at files and folders whose name starts with a dot (.git is always skipped).',
  },
  {
    name: 'respectGitignore',
    type: 'boolean',
    label: 'Respect .gitignore',
    description: 'Skip what the repository’s .gitignore files exclude, such as node_modules.',
  },
  integerParameter(
    'cacheMiB',
    'Warm cache',
    'Memory a chat’s folder may use to keep its tree and file summaries between searches (0: none).',
    CACHE_MIB,
    'MiB',
  ),
]
export const WALK_SETTING_DEFAULTS = {
  includeDotfiles: false,
  respectGitignore: true,
  cacheMiB: CACHE_MIB.fallback,
}

/**
 * Whether a glob names a dot entry outright (`.env`, `.github/*.yml`): then the walk must see dot
 * entries even with includeDotfiles off, as a shell's glob would, and the matcher decides.
 */
export function namesDotEntry(glob: string): boolean {
  return /(^|\/)\.(?!\.?(\/|$))/.test(glob)
}

/**
 * A glob as a test of paths, as picomatch's matcher decides (the glob itself, or its regex) without
 * the result object the matcher makes for every path: a walk tests tens of thousands.
 */
export function globMatcher(glob: string, options: picomatch.PicomatchOptions): (path: string) => boolean {
  const regex = picomatch.makeRe(glob, options)
  return (path) => path !== '' && (path === glob || regex.test(path))
}

export function walkSettings(parameters: Record<string, unknown>) {
  return {
    includeDotfiles: parameters.includeDotfiles === true,
    respectGitignore: parameters.respectGitignore !== false,
    cacheMiB: clampIntegerSetting(parameters.cacheMiB, CACHE_MIB),
  }
}

export interface WalkOptions {
  includeDotfiles: boolean
  respectGitignore: boolean
  /** Yield regular files only: no folders, symlinks, sockets or FIFOs. */
  onlyFiles?: boolean
  /** How deep to go: 0 lists the root's own entries only. Unlimited when absent. */
  maxDepth?: number
  signal: AbortSignal
  policy: PathPolicy
  /** Where folders are listed from: the disk, unless a warm cache is given. */
  folders?: FolderSource
  /**
   * A test every yielded entry's name passes (folders are entered all the same): a glob whose last
   * part is `*.ts` can only match names ending in `.ts`, and the rest need no entry made at all.
   */
  nameCanMatch?: (name: string) => boolean
  /** Start at this folder below the root (one a walk of the root would enter), at this depth. */
  from?: { folder: string; depth: number }
  /**
   * Walk no deeper than this depth; the folders a full walk would enter next are handed to
   * `reached`, right after their parent's entries, so they can be walked elsewhere in this order.
   */
  frontier?: { depth: number; reached: (folders: string[]) => void }
}

/** Where a walk gets a folder's entries and its .gitignore: the disk, or a cache kept true. */
export interface FolderSource {
  /** The folder's entries in name order; undefined when it cannot be read or has moved. */
  list(path: string): Dirent[] | undefined
  /** The folder's .gitignore rules, if it has one (the walk asks only when one is listed). */
  ignoreLevel(folder: string): IgnoreLevel | undefined
}

export const DISK: FolderSource = { list: listFolder, ignoreLevel: readIgnoreLevel }

export interface WalkEntry {
  /** Absolute and real: the root is real and no symlinked folder is ever entered. */
  path: string
  /** Relative to the root, with `/` separators: what glob patterns are matched against. */
  relative: string
  isDirectory: boolean
  /** The folder it was listed in. */
  parent: string
}

/** The rules of one .gitignore, which apply to paths relative to its own folder. */
export interface IgnoreLevel {
  /** The .gitignore's folder, ending with a separator. */
  folder: string
  rules: Ignore
}

interface PendingFolder {
  path: string
  depth: number
  /** The .gitignore levels above this folder, shallowest first. */
  levels: IgnoreLevel[]
}

/**
 * Yields what lies below `root` (a real folder the policy accepts), one folder's entries at a time
 * in name order, so a walk cut short by a cap always returns the same entries. Stop early by
 * leaving the `for await` loop. (A batch per folder rather than an entry at a time: iterating an
 * async generator costs a promise per step, which was most of a warm glob's time.)
 */
export async function* walk(root: string, options: WalkOptions): AsyncGenerator<WalkEntry[]> {
  const { includeDotfiles, onlyFiles = false, maxDepth = Number.POSITIVE_INFINITY, policy } = options
  const { folders = DISK, frontier, nameCanMatch } = options
  const slicer = new TimeSlicer(options.signal)
  const rootPrefix = root.endsWith(sep) ? root : root + sep
  // Below a folder the policy accepts, only a denied path inside that folder can refuse anything
  // (what lies in an accepted or allowed folder is accepted). Asking the policy about every entry
  // took longer than listing them, so it is asked only when such a path exists.
  const deniedInside = policy.denied.some((denied) => denied !== root && isInsideReal(root, denied))
  const start = options.from ?? { folder: root, depth: 0 }
  const pending: PendingFolder[] = [
    { path: start.folder, depth: start.depth, levels: startLevels(root, start.folder, options, folders) },
  ]
  for (let folder = pending.pop(); folder; folder = pending.pop()) {
    if (slicer.due) await slicer.next()
    const entries = folders.list(folder.path)
    if (!entries) continue
    const levels = options.respectGitignore ? levelsOf(folder, entries, folders) : folder.levels
    const subfolders: PendingFolder[] = []
    const batch: WalkEntry[] = []
    const folderPrefix = folder.path.endsWith(sep) ? folder.path : folder.path + sep
    for (const entry of entries) {
      const name = entry.name
      if (name === '.git' || (!includeDotfiles && name.charCodeAt(0) === 46)) continue
      const path = folderPrefix + name
      const isDirectory = entry.isDirectory()
      if (onlyFiles && !isDirectory && !entry.isFile()) continue
      if (levels.length > 0 && ignoredBy(levels, path, isDirectory)) continue
      if (deniedInside && policy.refusal(path)) continue
      if (entry.isSymbolicLink() && !linkTargetAllowed(path, policy)) continue
      if (isDirectory && folder.depth < maxDepth) subfolders.push({ path, depth: folder.depth + 1, levels })
      if ((onlyFiles && isDirectory) || (nameCanMatch && !nameCanMatch(name))) continue
      batch.push({ path, relative: toPosix(path.slice(rootPrefix.length)), isDirectory, parent: folder.path })
    }
    if (batch.length > 0) yield batch
    if (frontier && folder.depth >= frontier.depth) {
      if (subfolders.length > 0) frontier.reached(subfolders.map((subfolder) => subfolder.path))
      continue
    }
    // Reversed onto the stack so the first subfolder by name is walked next.
    for (let i = subfolders.length - 1; i >= 0; i--) pending.push(subfolders[i] as PendingFolder)
  }
}

/**
 * The .gitignore levels in force where a walk starts: those above the root, and for a walk that
 * starts below the root, those of each folder on the way down, as the whole walk would have them.
 */
function startLevels(
  root: string,
  start: string,
  options: WalkOptions,
  folders: FolderSource,
): IgnoreLevel[] {
  if (!options.respectGitignore) return []
  let levels = ancestorLevels(root)
  if (start === root) return levels
  // The folders from the root down to the start's parent, each with the levels its parent passed on.
  const names = start.slice(root.length).split(sep).filter(Boolean)
  let path = root
  for (let i = 0; i < names.length; i++) {
    const entries = folders.list(path)
    if (!entries) return levels
    levels = levelsOf({ path, levels }, entries, folders)
    path = join(path, names[i] as string)
  }
  return levels
}

const OPEN_FOLDER = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0)

/** When a folder was listed: what a cache compares to see that it was replaced or changed. */
export interface FolderStamp {
  ino: number
  mtimeMs: number
}

/**
 * A folder's entries in name order; undefined when it cannot be read (gone, no permission) or is no
 * longer where it was listed. Anything working in the project can swap a folder for a link to
 * outside between the moment its parent is listed and the moment it is read, so the folder is
 * opened first, checked to really be `path`, and listed through that open descriptor. Given a
 * `stamp`, it is filled in from that descriptor.
 */
export function listFolder(path: string, stamp?: FolderStamp): Dirent[] | undefined {
  let fd: number
  try {
    fd = openSync(path, OPEN_FOLDER)
  } catch {
    return undefined
  }
  try {
    const opened = descriptorPath(fd)
    if (opened !== undefined && opened !== path) return undefined
    if (stamp) {
      const stats = fstatSync(fd)
      stamp.ino = stats.ino
      stamp.mtimeMs = stats.mtimeMs
    }
    const entries = readdirSync(opened === undefined ? path : `/proc/self/fd/${fd}`, { withFileTypes: true })
    if (opened === undefined && !openedAt(fd, path)) return undefined
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** A link is listed only when what it points to may be used; one that resolves nowhere is left out. */
function linkTargetAllowed(path: string, policy: PathPolicy): boolean {
  try {
    return policy.refusal(realpathSync.native(path)) === undefined
  } catch {
    return false
  }
}

// Git compares names case-insensitively where the file system does (its core.ignorecase default).
const IGNORE_CASE = process.platform === 'darwin' || process.platform === 'win32'

export function readIgnoreLevel(folder: string): IgnoreLevel | undefined {
  let text: string
  try {
    text = readFileSync(join(folder, '.gitignore'), 'utf8')
  } catch {
    return undefined
  }
  return {
    folder: folder.endsWith(sep) ? folder : folder + sep,
    rules: ignore({ ignorecase: IGNORE_CASE }).add(text),
  }
}

/**
 * The .gitignore files of the folders above `root` up to the repository's top (the nearest folder
 * holding .git), shallowest first. Outside a repository only the root's own files count.
 */
export function ancestorLevels(root: string): IgnoreLevel[] {
  const above: string[] = []
  for (let folder = root; !existsSync(join(folder, '.git')); ) {
    const parent = dirname(folder)
    if (parent === folder) return []
    above.unshift(parent)
    folder = parent
  }
  return above.flatMap((folder) => readIgnoreLevel(folder) ?? [])
}

/**
 * The levels in force inside `folder`: those of its parents, minus any that would ignore the folder
 * itself, plus its own .gitignore. A level can ignore a folder being walked only when the folder was
 * named explicitly (the walk root, like ripgrep searching an ignored folder it is pointed at) or a
 * deeper .gitignore re-included it; dropping that level keeps the `ignore` library, which tests a
 * path's parent folders too, from hiding everything inside.
 */
export function levelsOf(
  folder: Pick<PendingFolder, 'path' | 'levels'>,
  entries: Dirent[],
  folders: FolderSource,
): IgnoreLevel[] {
  const inherited = folder.levels.filter(
    (level) => !level.rules.test(`${toPosix(folder.path.slice(level.folder.length))}/`).ignored,
  )
  const own = entries.some((entry) => entry.name === '.gitignore' && entry.isFile())
    ? folders.ignoreLevel(folder.path)
    : undefined
  return own ? [...inherited, own] : inherited
}

/** The deepest .gitignore with an opinion on the path decides, as in git. */
export function ignoredBy(levels: IgnoreLevel[], path: string, isDirectory: boolean): boolean {
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i] as IgnoreLevel
    const relative = toPosix(path.slice(level.folder.length))
    const verdict = level.rules.test(isDirectory ? `${relative}/` : relative)
    if (verdict.ignored) return true
    if (verdict.unignored) return false
  }
  return false
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/')
}

/** How long synchronous work may hold the event loop before a turn is given back. */
const SLICE_MS = 10

/**
 * Cuts long synchronous work into slices of about SLICE_MS. Between slices the event loop runs, so
 * the executor's timeout and the user's stop can fire; `next()` then rejects with the abort reason.
 */
export class TimeSlicer {
  private deadline = performance.now() + SLICE_MS

  constructor(private readonly signal: AbortSignal) {
    signal.throwIfAborted()
  }

  get due(): boolean {
    return performance.now() >= this.deadline
  }

  async next(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve))
    this.signal.throwIfAborted()
    this.deadline = performance.now() + SLICE_MS
  }
}

/** A model-supplied path to search, resolved and checked; a missing one is a not_found error. */
export async function resolveSearchPath(
  input: string,
  context: PathScope,
  policy: PathPolicy,
): Promise<{ real: string; isDirectory: boolean }> {
  const { real, exists } = await resolveAndValidatePath(input, context, policy)
  const stats = exists ? statSync(real, { throwIfNoEntry: false }) : undefined
  if (!stats) throw new ToolPathError('not_found', `Nothing exists at "${input}" (${real}).`)
  return { real, isDirectory: stats.isDirectory() }
}

/**
 * The result with as many of its first matches as fit in `budget` characters once serialized as the
 * executor serializes it, with truncated: true when some were left out. The executor cuts a longer
 * result at its cap, mid-JSON; whole matches are left out instead, so what the model reads parses.
 */
export function fitMatches<Result extends { matches: unknown[]; truncated: boolean }>(
  result: Result,
  budget: number,
): Result {
  const length = (value: Result) => toToolOutput(value).content.length
  // Serialized with an indent of 2, a match in the list is indented 4 more on each of its lines and
  // followed by ",\n"; the first also turns [] into [\n…\n  ]. Counting stops at the budget, so a
  // result of thousands of matches is never serialized here in full.
  let size = length({ ...result, matches: [], truncated: true }) + 2
  let count = 0
  for (const match of result.matches) {
    const text = JSON.stringify(match, null, 2)
    size += text.length + 4 * (countLines(text) + 1) + 2
    if (size > budget) break
    count++
  }
  if (count === result.matches.length && length(result) <= budget) return result
  const fitted = { ...result, matches: result.matches.slice(0, count), truncated: true }
  // The count above is exact; should serialization change, this still keeps the promise.
  while (fitted.matches.length > 0 && length(fitted) > budget) fitted.matches.pop()
  return fitted
}

function countLines(text: string): number {
  let count = 0
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++
  return count
}
