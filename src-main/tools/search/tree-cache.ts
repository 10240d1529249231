/**
 * A search worker's warm cache of the folders it has walked, so the next glob or grep of the same
 * project lists nothing it already knows and reads only files that may match.
 *
 * Kept true by watching: every cached folder has a watch of its own (`fs.watch`, which is inotify
 * on Linux, one watch per folder, events delivered as soon as the worker's event loop turns). A
 * folder is trusted only once its watch is up and it was listed again under it, so no change can
 * fall between the listing and the watch. An event drops what it names: the folder's listing (to be
 * read again), the summary of the file it names, the cached folders below a name that was a folder,
 * and the folder's .gitignore rules when it names .gitignore. After each call every cached folder's
 * inode and mtime are compared too (`checkAfterCall`).
 *
 * Files a grep walked past are summarized in the background (`trigrams.ts`): size, mtime, whether
 * they look binary, and which three-byte sequences they contain. A warm grep skips a file its
 * summary rules out without opening it, and reads the rest as a cold one does.
 *
 * Memory is bounded per project folder: past the budget, that folder is not cached by this worker
 * until the main thread drops it (when no call has used it for a while).
 */
import {
  closeSync,
  constants,
  type Dirent,
  type FSWatcher,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  watch,
} from 'node:fs'
import { join, sep } from 'node:path'
import { looksBinary } from '../files'
import { isInside } from '../paths'
import {
  DISK,
  type FolderSource,
  type FolderStamp,
  type IgnoreLevel,
  listFolder,
  readIgnoreLevel,
} from '../walk'
import { type TrigramTable, trigramTable } from './trigrams'

/** Files past this size get no summary and are always read (when under maxFileSizeBytes). */
const SUMMARY_MAX_BYTES = 8 * 1024 * 1024
/**
 * What the budget counts, as measured in a worker's heap with a 200,000-file tree listed, watched
 * and summarized: a folder's own records (its watch about 500 bytes of them), a listed entry (its
 * Dirent) besides its name, a summarized file's place in its folder's map. A folder's packed
 * summaries count as their array's length.
 */
const FOLDER_BYTES = 1100
const ENTRY_BYTES = 100
const SUMMARY_ENTRY_BYTES = 55
/**
 * A summary in its folder's packed array: the size's low and high 32 bits, then the table's length
 * in words (BINARY for a binary file, 0 for one too large to summarize), then the table.
 */
const SUMMARY_HEADER_WORDS = 3
const BINARY = -1
const OPEN_FILE = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/** What a call asks of the cache: the project folder it belongs to, and that folder's budget. */
export interface CachePlan {
  root: string
  /** Bytes this worker may hold for the folder. */
  budgetBytes: number
}

/** What a worker's cache holds, and how many files its greps opened: for tests and the bench. */
export interface CacheStats {
  folders: number
  /** Folders whose watch is up: trusted. */
  watched: number
  summaries: number
  bytes: number
  /** Files grep opened and read in this worker, cache or not. */
  filesRead: number
}

export interface FileSummary {
  size: number
  binary: boolean
  /** Absent for binary files and files over SUMMARY_MAX_BYTES. */
  table?: TrigramTable
}

interface CachedFolder {
  path: string
  root: CachedRoot
  /** Undefined once an event said an entry changed: listed again at the next use. */
  entries: Dirent[] | undefined
  stamp: FolderStamp
  /** Set once settled: listed again after the watch was up. */
  watcher?: FSWatcher
  /** Undefined until read; null when the folder has none. */
  ignore?: IgnoreLevel | null
  /** Where each summarized file's summary starts in `summaries`. */
  files: Map<string, number>
  /**
   * The folder's file summaries one after another (see SUMMARY_HEADER_WORDS): one array a folder,
   * not a summary object and a table array a file, which cost more than most tables. A dropped
   * summary leaves a gap until the array is next repacked.
   */
  summaries: Int32Array
  /** Words of `summaries` in use, gaps included; and those of summaries still kept. */
  used: number
  live: number
  /** What its listing counts against the budget. */
  listingBytes: number
  /** The cached folders directly inside it. */
  children: Set<string>
  /** A grep walked it: its files are worth summarizing. */
  summarize: boolean
  bytes: number
}

interface CachedRoot {
  path: string
  budgetBytes: number
  bytes: number
  /** Past its budget: nothing more is cached for it. */
  over: boolean
}

export class TreeCache {
  private readonly roots = new Map<string, CachedRoot>()
  private readonly folders = new Map<string, CachedFolder>()
  /** Folders listed but not yet watched, and settled folders whose files await summaries. */
  private readonly toSettle = new Set<string>()
  private readonly toSummarize = new Set<string>()
  /** Cached folders still to be checked by inode and mtime since the last call. */
  private toCheck: string[] = []
  /** A call ran since the last check began: the next background work checks every folder again. */
  private checkDue = false
  /** Files grep opened and read (counted by the grep job). */
  filesRead = 0

  stats(): CacheStats {
    let watched = 0
    let summaries = 0
    for (const folder of this.folders.values()) {
      if (folder.watcher) watched++
      summaries += folder.files.size
    }
    let bytes = 0
    for (const root of this.roots.values()) bytes += root.bytes
    return { folders: this.folders.size, watched, summaries, bytes, filesRead: this.filesRead }
  }

  /** Where a call's walk lists folders: through the cache, or the disk when there is none. */
  source(plan: CachePlan | undefined, forGrep: boolean): FolderSource {
    if (!plan || plan.budgetBytes <= 0) return DISK
    let root = this.roots.get(plan.root)
    if (!root) {
      root = { path: plan.root, budgetBytes: plan.budgetBytes, bytes: 0, over: false }
      this.roots.set(plan.root, root)
    }
    root.budgetBytes = plan.budgetBytes
    const cached = root
    return {
      list: (path) => this.list(cached, path, forGrep),
      ignoreLevel: (folder) => this.ignoreLevel(folder),
    }
  }

  /** A file's summary, when its folder is watched and nothing has changed the file since. */
  summary(folder: string, path: string): FileSummary | undefined {
    const cached = this.folders.get(folder)
    if (!cached?.watcher) return undefined
    const at = cached.files.get(path.slice(folder.endsWith(sep) ? folder.length : folder.length + 1))
    if (at === undefined) return undefined
    const words = cached.summaries
    const size = (words[at + 1] as number) * 2 ** 32 + ((words[at] as number) >>> 0)
    const length = words[at + 2] as number
    if (length === BINARY) return { size, binary: true }
    if (length === 0) return { size, binary: false }
    return { size, binary: false, table: { words, at: at + SUMMARY_HEADER_WORDS, length } }
  }

  /** Forgets everything: nothing cached is trusted any more. */
  dropAll(): void {
    for (const root of [...this.roots.keys()]) this.drop(root)
  }

  /** Forgets a project folder: its watches close and its memory is freed. */
  drop(root: string): void {
    this.roots.delete(root)
    for (const [path, folder] of this.folders) if (folder.root.path === root) this.forget(path)
  }

  /** Whether background work remains. */
  get busy(): boolean {
    return this.toSettle.size > 0 || this.toSummarize.size > 0 || this.toCheck.length > 0 || this.checkDue
  }

  /**
   * After a call: every cached folder is checked in the background against its inode and mtime.
   * The watches say every change; this catches what a dropped event (the kernel's queue of 16384
   * overflowing, which Node does not report) would leave stale. The worker's event loop turns at
   * least every 10 ms during a call, so such a flood is unlikely; the check costs a lstat a folder.
   */
  checkAfterCall(): void {
    // The folders are listed when the check begins, not after every part of a call.
    this.checkDue = true
  }

  /** Settles and summarizes until `deadline` (performance.now()); true while work remains. */
  work(deadline: number): boolean {
    for (const path of this.toSettle) {
      if (performance.now() >= deadline) return true
      this.toSettle.delete(path)
      this.settle(path)
    }
    for (const path of this.toSummarize) {
      const folder = this.folders.get(path)
      if (!folder?.watcher || !folder.entries) {
        this.toSummarize.delete(path)
        continue
      }
      for (const entry of folder.entries) {
        if (!entry.isFile() || folder.files.has(entry.name)) continue
        if (performance.now() >= deadline) return true
        this.summarizeFile(folder, entry.name)
        if (folder.root.over) break
      }
      this.toSummarize.delete(path)
      // Summarized as far as it goes: the room grown for more is given back.
      if (!folder.root.over) this.repack(folder, folder.live)
    }
    if (this.checkDue) {
      this.checkDue = false
      this.toCheck = [...this.folders.keys()]
    }
    while (this.toCheck.length > 0) {
      if (performance.now() >= deadline) return true
      const path = this.toCheck.pop() as string
      const folder = this.folders.get(path)
      // Changed with no event: events were lost, so nothing below it is trusted either.
      if (folder?.watcher && folder.entries && !unchanged(path, folder.stamp)) this.forget(path)
    }
    return this.busy
  }

  private list(root: CachedRoot, path: string, forGrep: boolean): Dirent[] | undefined {
    const cached = this.folders.get(path)
    if (cached?.watcher) {
      if (forGrep && !cached.summarize) {
        cached.summarize = true
        this.toSummarize.add(path)
      }
      if (cached.entries) return cached.entries
      // An event said an entry changed; the watch is up, so a listing now is true from now on.
      const entries = listFolder(path, cached.stamp)
      if (!entries) {
        this.forget(path)
        return undefined
      }
      this.account(cached, entries)
      if (cached.summarize) this.toSummarize.add(path)
      return entries
    }
    // Every cached folder's parent is cached too, up to the project folder: a folder renamed or
    // replaced is then always heard by its parent's watch, which forgets everything below it.
    const parent = parentOf(path)
    if (path !== root.path && !this.folders.has(parent) && isInside(root.path, parent)) {
      this.list(root, parent, false)
    }
    const stamp = { ino: 0, mtimeMs: 0 }
    const entries = listFolder(path, stamp)
    if (cached && !cached.watcher) {
      // Listed by an earlier call and not yet settled: settling lists it again under its watch.
      cached.summarize ||= forGrep
      return entries
    }
    if (!entries || root.over || (path !== root.path && !this.folders.has(parent))) return entries
    const folder: CachedFolder = {
      path,
      root,
      entries,
      stamp,
      files: new Map(),
      summaries: new Int32Array(0),
      used: 0,
      live: 0,
      listingBytes: 0,
      children: new Set(),
      summarize: forGrep,
      bytes: 0,
    }
    this.folders.set(path, folder)
    this.folders.get(parent)?.children.add(path)
    this.account(folder, entries)
    this.toSettle.add(path)
    return entries
  }

  private ignoreLevel(folder: string): IgnoreLevel | undefined {
    const cached = this.folders.get(folder)
    if (!cached?.watcher) return readIgnoreLevel(folder)
    if (cached.ignore === undefined) cached.ignore = readIgnoreLevel(folder) ?? null
    return cached.ignore ?? undefined
  }

  /** Watches a listed folder, then lists it again: from then on every change to it is heard. */
  private settle(path: string): void {
    const folder = this.folders.get(path)
    if (!folder || folder.watcher) return
    try {
      folder.watcher = watch(path, { persistent: false }, (_event, name) => this.changed(path, name))
      folder.watcher.on('error', () => this.forget(path))
    } catch {
      // Out of watches (fs.inotify.max_user_watches), or gone: this project folder is not cached.
      this.overBudget(folder.root)
      return
    }
    const entries = listFolder(path, folder.stamp)
    if (!entries) {
      this.forget(path)
      return
    }
    this.account(folder, entries)
    if (folder.summarize) this.toSummarize.add(path)
  }

  private changed(path: string, name: string | Buffer | null): void {
    const folder = this.folders.get(path)
    if (!folder) return
    if (name === null) {
      this.forget(path)
      return
    }
    const entry = String(name)
    folder.entries = undefined
    this.dropSummary(folder, entry)
    if (entry === '.gitignore') folder.ignore = undefined
    const inside = join(path, entry)
    if (folder.children.has(inside)) this.forget(inside)
    if (folder.summarize) this.toSummarize.add(path)
  }

  private summarizeFile(folder: CachedFolder, name: string): void {
    const path = join(folder.path, name)
    let fd: number
    try {
      fd = openSync(path, OPEN_FILE)
    } catch {
      return
    }
    try {
      const stats = fstatSync(fd)
      if (!stats.isFile()) return
      let table: Int32Array | undefined
      let binary = false
      if (stats.size <= SUMMARY_MAX_BYTES) {
        const bytes = Buffer.allocUnsafe(stats.size)
        let length = 0
        while (length < stats.size) {
          const read = readSync(fd, bytes, length, stats.size - length, length)
          if (read === 0) break
          length += read
        }
        const content = bytes.subarray(0, length)
        binary = looksBinary(content)
        if (!binary) table = trigramTable(content)
      }
      this.keepSummary(folder, name, stats.size, binary, table)
    } catch {
      // Unreadable: it gets no summary and is read (and refused) as a cold grep would.
    } finally {
      closeSync(fd)
    }
  }

  /** Counts a folder's listing against its project folder's budget. */
  private account(folder: CachedFolder, entries: Dirent[]): void {
    folder.entries = entries
    let bytes = 0
    for (const entry of entries) bytes += ENTRY_BYTES + entry.name.length
    folder.listingBytes = bytes
    this.resize(folder)
  }

  /** Packs a file's summary after the folder's others, making room (and closing gaps) as needed. */
  private keepSummary(
    folder: CachedFolder,
    name: string,
    size: number,
    binary: boolean,
    table: Int32Array | undefined,
  ): void {
    this.dropSummary(folder, name)
    const words = SUMMARY_HEADER_WORDS + (table?.length ?? 0)
    if (folder.used + words > folder.summaries.length) {
      this.repack(folder, Math.max(2 * folder.live, 64) + words)
      // The room made took the project folder past its budget: it is no longer cached.
      if (folder.root.over) return
    }
    const at = folder.used
    const into = folder.summaries
    into[at] = size % 2 ** 32
    into[at + 1] = Math.floor(size / 2 ** 32)
    into[at + 2] = binary ? BINARY : (table?.length ?? 0)
    if (table) into.set(table, at + SUMMARY_HEADER_WORDS)
    folder.files.set(name, at)
    folder.used += words
    folder.live += words
    this.resize(folder)
  }

  private dropSummary(folder: CachedFolder, name: string): void {
    const at = folder.files.get(name)
    if (at === undefined) return
    folder.files.delete(name)
    folder.live -= SUMMARY_HEADER_WORDS + Math.max(0, folder.summaries[at + 2] as number)
  }

  /** Copies the kept summaries, in a row, into an array of `capacity` words. */
  private repack(folder: CachedFolder, capacity: number): void {
    if (capacity === folder.summaries.length && folder.used === folder.live) return
    const from = folder.summaries
    const into = new Int32Array(capacity)
    let used = 0
    for (const [name, at] of folder.files) {
      const words = SUMMARY_HEADER_WORDS + Math.max(0, from[at + 2] as number)
      into.set(from.subarray(at, at + words), used)
      folder.files.set(name, used)
      used += words
    }
    folder.summaries = into
    folder.used = used
    folder.live = used
    this.resize(folder)
  }

  /** Counts the folder's listing and summaries, as they are now, against the budget. */
  private resize(folder: CachedFolder): void {
    const bytes =
      FOLDER_BYTES +
      folder.listingBytes +
      folder.files.size * SUMMARY_ENTRY_BYTES +
      folder.summaries.byteLength
    const grown = bytes - folder.bytes
    folder.bytes = bytes
    folder.root.bytes += grown
    if (folder.root.bytes > folder.root.budgetBytes) this.overBudget(folder.root)
  }

  private overBudget(root: CachedRoot): void {
    root.over = true
    for (const [path, folder] of this.folders) if (folder.root === root) this.forget(path)
  }

  /** Drops a folder and every cached folder inside it. */
  private forget(path: string): void {
    const folder = this.folders.get(path)
    if (!folder) return
    this.folders.delete(path)
    this.toSettle.delete(path)
    this.toSummarize.delete(path)
    folder.watcher?.close()
    folder.root.bytes -= folder.bytes
    this.folders.get(parentOf(path))?.children.delete(path)
    for (const child of folder.children) this.forget(child)
  }
}

/** Whether the folder at `path` is still the one listed, unchanged: same inode, same mtime. */
function unchanged(path: string, stamp: FolderStamp): boolean {
  const stats = lstatSync(path, { throwIfNoEntry: false })
  return stats?.isDirectory() === true && stats.ino === stamp.ino && stats.mtimeMs === stamp.mtimeMs
}

function parentOf(path: string): string {
  const at = path.lastIndexOf(sep)
  return at <= 0 ? sep : path.slice(0, at)
}
