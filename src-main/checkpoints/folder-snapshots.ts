/**
 * Snapshots of one folder into an ObjectStore, each costing what changed since the last, not what
 * exists.
 *
 * The first snapshot walks the whole folder (.gitignore respected, `.git` never entered), reading a
 * file only when the previous snapshot does not already hold it with the same size, mtime, inode
 * and mode — as git's index does. While it walks, it puts a watch on every folder (`fs.watch`:
 * inotify on Linux), each before the folder is listed, so no change can fall between the listing
 * and the watch. From then on an event marks its folder dirty, and a snapshot lists again only the
 * dirty folders and writes only the trees on their way up. Where a watch cannot be had (the
 * system's limit reached), every snapshot walks the whole folder again, still reading only what
 * changed.
 *
 * Files larger than `maxFileBytes` are recorded by hash and size only. Symbolic links are recorded
 * as links (their target text), never followed.
 */

import { createHash } from 'node:crypto'
import {
  closeSync,
  type Dirent,
  type FSWatcher,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  type Stats,
  watch,
} from 'node:fs'
import { join } from 'node:path'
import { AtelierError } from '../../src-shared/errors'
import { ancestorLevels, DISK, type IgnoreLevel, ignoredBy, levelsOf, listFolder } from '../tools/walk'
import type { ObjectStore, TreeEntry } from './object-store'

/** How far a first snapshot has got. */
export interface SnapshotCount {
  files: number
  bytes: number
}

export interface FolderSnapshotsOptions {
  maxFileBytes: number
  /** The folder's newest snapshot from an earlier run: its files are not read again unless changed. */
  previous?: string
}

/** How long synchronous work may hold the event loop before it is given back. */
const SLICE_MS = 10

class FolderNode {
  /** By name, in name order. A folder's entry holds its tree once hashed. */
  entries = new Map<string, TreeEntry>()
  children = new Map<string, FolderNode>()
  /** The .gitignore levels in force inside it (its own included). */
  levels: IgnoreLevel[] = []
  /** Its tree's hash; undefined once anything inside changed. */
  tree: string | undefined
  watcher: FSWatcher | undefined

  constructor(
    readonly path: string,
    readonly parent: FolderNode | undefined,
    /** The levels its parent passes on. */
    readonly inherited: IgnoreLevel[],
  ) {}
}

export class FolderSnapshots {
  private root: FolderNode | undefined
  private readonly dirty = new Set<FolderNode>()
  /** False once a watch could not be had: every snapshot then walks the whole folder. */
  private watching = true
  private queue: Promise<unknown> = Promise.resolve()
  private previous: string | undefined
  private closed = false

  constructor(
    readonly folder: string,
    private readonly store: ObjectStore,
    private readonly options: FolderSnapshotsOptions,
  ) {
    this.previous = options.previous
  }

  /** Whether the first snapshot has been taken: the next costs what changed. */
  get warm(): boolean {
    return this.root !== undefined && this.watching
  }

  /**
   * Records the folder as it is now and resolves with the snapshot's root tree. Snapshots of one
   * folder are taken one at a time, in the order asked.
   */
  snapshot(onProgress?: (count: SnapshotCount) => void): Promise<string> {
    const next = this.queue.then(() => this.take(onProgress))
    this.queue = next.catch(() => {})
    return next
  }

  /** Stops watching. */
  close(): void {
    this.closed = true
    if (this.root) this.unwatch(this.root)
    this.root = undefined
    this.dirty.clear()
  }

  private async take(onProgress?: (count: SnapshotCount) => void): Promise<string> {
    if (this.closed) throw new AtelierError('internal', 'The folder is no longer snapshotted.')
    // What a call that just ended wrote is in the kernel's queue of events; let it be read first.
    await nextTurn()
    await nextTurn()
    const slicer = { deadline: performance.now() + SLICE_MS }
    const count: SnapshotCount = { files: 0, bytes: 0 }
    const progress = onProgress ? () => onProgress(count) : undefined
    if (!this.root || !this.watching) {
      const hint = this.root ? this.hashOf(this.root) : this.previous
      if (this.root) this.unwatch(this.root)
      const root = new FolderNode(this.folder, undefined, ancestorLevels(this.folder))
      this.root = root
      this.dirty.clear()
      await this.scan(root, this.treeOrNothing(hint), slicer, count, progress)
    } else {
      for (let node = first(this.dirty); node; node = first(this.dirty)) {
        await this.rescan(node, slicer, count)
      }
    }
    const tree = this.hashOf(this.root)
    this.previous = tree
    progress?.()
    return tree
  }

  /** Lists a folder anew and everything below it, reusing what `hint` (its last tree) holds unchanged. */
  private async scan(
    node: FolderNode,
    hint: readonly TreeEntry[] | undefined,
    slicer: { deadline: number },
    count: SnapshotCount,
    progress?: () => void,
  ): Promise<void> {
    this.watch(node)
    this.dirty.delete(node)
    const listed = this.list(node)
    const old = new Map(hint?.map((entry) => [entry.name, entry]))
    node.entries = new Map()
    node.children = new Map()
    node.tree = undefined
    for (const dirent of listed) {
      if (performance.now() >= slicer.deadline) {
        progress?.()
        await nextTurn()
        slicer.deadline = performance.now() + SLICE_MS
      }
      const previous = old.get(dirent.name)
      const entry = this.record(node, dirent, previous, count)
      if (!entry) continue
      node.entries.set(dirent.name, entry)
      if (entry.type !== 'folder') continue
      const child = new FolderNode(join(node.path, dirent.name), node, node.levels)
      node.children.set(dirent.name, child)
      const childHint = previous?.type === 'folder' ? this.treeOrNothing(previous.hash) : undefined
      await this.scan(child, childHint, slicer, count, progress)
    }
  }

  /**
   * A dirty folder listed again: unchanged files and folders are kept as they are (a folder's
   * watch answers for what is inside it), changed files read, new folders scanned.
   */
  private async rescan(node: FolderNode, slicer: { deadline: number }, count: SnapshotCount): Promise<void> {
    this.dirty.delete(node)
    const ignoreBefore = node.entries.get('.gitignore')?.hash
    const hintBefore = [...node.entries.values()]
    const listed = this.list(node)
    if (!sameIgnore(node, listed, ignoreBefore)) {
      // Its rules changed: what is recorded below it may change anywhere.
      this.unwatchChildren(node)
      this.invalidate(node)
      await this.scan(node, hintBefore, slicer, count)
      return
    }
    const entries = new Map<string, TreeEntry>()
    const children = new Map<string, FolderNode>()
    for (const dirent of listed) {
      const previous = node.entries.get(dirent.name)
      const entry = this.record(node, dirent, previous, count)
      if (!entry) continue
      entries.set(dirent.name, entry)
      if (entry.type !== 'folder') continue
      const kept = node.children.get(dirent.name)
      if (kept && previous?.type === 'folder' && previous.ino === entry.ino) {
        children.set(dirent.name, kept)
        continue
      }
      if (kept) this.unwatch(kept)
      const child = new FolderNode(join(node.path, dirent.name), node, node.levels)
      children.set(dirent.name, child)
      await this.scan(child, undefined, slicer, count)
    }
    for (const [name, child] of node.children) if (children.get(name) !== child) this.unwatch(child)
    node.entries = entries
    node.children = children
    this.invalidate(node)
  }

  /** The folder's entries, its .gitignore levels set; refused when the bound folder itself is gone. */
  private list(node: FolderNode): Dirent[] {
    const listed = listFolder(node.path)
    if (!listed) {
      if (node === this.root) {
        throw new AtelierError(
          'folder_missing',
          `The folder ${this.folder} cannot be read: it was moved or deleted.`,
          {
            folder: this.folder,
          },
        )
      }
      // Gone or unreadable: its parent's listing says which, and drops it.
      if (node.parent) this.markDirty(node.parent)
      return []
    }
    node.levels = levelsOf({ path: node.path, levels: node.inherited }, listed, DISK)
    return listed.filter((dirent) => {
      if (dirent.name === '.git') return false
      return (
        node.levels.length === 0 ||
        !ignoredBy(node.levels, join(node.path, dirent.name), dirent.isDirectory())
      )
    })
  }

  /** One entry as it is now; its contents read only when `previous` cannot vouch for them. */
  private record(
    node: FolderNode,
    dirent: Dirent,
    previous: TreeEntry | undefined,
    count: SnapshotCount,
  ): TreeEntry | undefined {
    const path = join(node.path, dirent.name)
    const stats = lstatSync(path, { throwIfNoEntry: false })
    if (!stats) return undefined
    const type = typeOf(stats)
    if (!type) return undefined
    const mode = stats.mode & 0o7777
    const base = { name: dirent.name, type, mode, mtimeMs: stats.mtimeMs, ino: stats.ino }
    if (type === 'folder') {
      // Its hash is its tree's, set when the tree is written.
      return { ...base, size: 0, hash: previous?.type === 'folder' ? previous.hash : '', stored: true }
    }
    if (previous && unchanged(previous, type, mode, stats)) return previous
    try {
      count.files++
      count.bytes += stats.size
      if (type === 'symlink') {
        const target = Buffer.from(readlinkSync(path))
        return { ...base, size: target.length, hash: this.store.put(target), stored: true }
      }
      if (stats.size > this.options.maxFileBytes) {
        return { ...base, size: stats.size, hash: hashFile(path), stored: false }
      }
      const data = readFileSync(path)
      return { ...base, size: data.length, hash: this.store.put(data), stored: true }
    } catch {
      // Gone or unreadable since it was listed: its folder's watch says what it became.
      this.markDirty(node)
      return undefined
    }
  }

  private hashOf(node: FolderNode): string {
    if (node.tree !== undefined) return node.tree
    for (const [name, child] of node.children) {
      const entry = node.entries.get(name)
      if (entry) node.entries.set(name, { ...entry, hash: this.hashOf(child) })
    }
    node.tree = this.store.putTree([...node.entries.values()])
    return node.tree
  }

  private treeOrNothing(hash: string | undefined): TreeEntry[] | undefined {
    if (!hash || !this.store.has(hash)) return undefined
    try {
      return this.store.tree(hash)
    } catch {
      return undefined
    }
  }

  private watch(node: FolderNode): void {
    if (!this.watching || node.watcher) return
    try {
      node.watcher = watch(node.path, { persistent: false }, () => this.markDirty(node))
      node.watcher.on('error', () => {
        node.watcher?.close()
        node.watcher = undefined
        if (node.parent) this.markDirty(node.parent)
        else this.watching = false
      })
    } catch {
      // The system's limit on watches, most likely: from now on, whole walks.
      this.watching = false
      if (this.root) this.unwatch(this.root)
    }
  }

  private markDirty(node: FolderNode): void {
    this.dirty.add(node)
    this.invalidate(node)
  }

  private invalidate(node: FolderNode): void {
    for (let at: FolderNode | undefined = node; at; at = at.parent) at.tree = undefined
  }

  private unwatch(node: FolderNode): void {
    node.watcher?.close()
    node.watcher = undefined
    this.dirty.delete(node)
    this.unwatchChildren(node)
  }

  private unwatchChildren(node: FolderNode): void {
    for (const child of node.children.values()) this.unwatch(child)
  }
}

function typeOf(stats: Stats): TreeEntry['type'] | undefined {
  if (stats.isDirectory()) return 'folder'
  if (stats.isFile()) return 'file'
  return stats.isSymbolicLink() ? 'symlink' : undefined
}

function unchanged(previous: TreeEntry, type: TreeEntry['type'], mode: number, stats: Stats): boolean {
  return (
    previous.type === type &&
    previous.mode === mode &&
    previous.size === stats.size &&
    previous.mtimeMs === stats.mtimeMs &&
    previous.ino === stats.ino &&
    previous.hash !== ''
  )
}

/** Whether a folder's .gitignore is what it was when it was last listed. */
function sameIgnore(node: FolderNode, listed: Dirent[], before: string | undefined): boolean {
  const has = listed.some((dirent) => dirent.name === '.gitignore')
  if (!has) return before === undefined
  const stats = lstatSync(join(node.path, '.gitignore'), { throwIfNoEntry: false })
  const previous = node.entries.get('.gitignore')
  return (
    previous !== undefined && stats !== undefined && unchanged(previous, 'file', stats.mode & 0o7777, stats)
  )
}

/** The SHA-256 of a file too large to keep, read in pieces. */
function hashFile(path: string): string {
  const hash = createHash('sha256')
  const buffer = Buffer.allocUnsafe(1024 * 1024)
  const fd = openSync(path, 'r')
  try {
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) {
      hash.update(buffer.subarray(0, read))
    }
  } finally {
    closeSync(fd)
  }
  return hash.digest('hex')
}

function first<T>(set: Set<T>): T | undefined {
  for (const item of set) return item
  return undefined
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}
