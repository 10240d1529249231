/**
 * What changed between two snapshots of a folder, path by path. Subtrees with the same hash are
 * the same and never opened, so a diff costs what changed. A file is changed when its contents,
 * type or permission bits differ; its mtime alone is not a change.
 */
import type { ObjectStore, TreeEntry } from './object-store'

/** One path that differs: null on the side where it does not exist. */
export interface SnapshotChange {
  /** Relative to the folder, with `/`. */
  path: string
  before: TreeEntry | null
  after: TreeEntry | null
}

export function diffSnapshots(store: ObjectStore, before: string, after: string): SnapshotChange[] {
  const changes: SnapshotChange[] = []
  if (before !== after) diffTrees(store, store.tree(before), store.tree(after), '', changes)
  return changes
}

function diffTrees(
  store: ObjectStore,
  before: readonly TreeEntry[],
  after: readonly TreeEntry[],
  prefix: string,
  changes: SnapshotChange[],
): void {
  const afterByName = new Map(after.map((entry) => [entry.name, entry]))
  const beforeNames = new Set(before.map((entry) => entry.name))
  for (const old of before) {
    const path = prefix + old.name
    const now = afterByName.get(old.name)
    if (!now) {
      removed(store, old, path, changes)
    } else if (old.type === 'folder' && now.type === 'folder') {
      if (old.mode !== now.mode) changes.push({ path, before: old, after: now })
      if (old.hash !== now.hash)
        diffTrees(store, store.tree(old.hash), store.tree(now.hash), `${path}/`, changes)
    } else if (old.type === 'folder' || now.type === 'folder') {
      removed(store, old, path, changes)
      added(store, now, path, changes)
    } else if (old.type !== now.type || old.hash !== now.hash || old.mode !== now.mode) {
      changes.push({ path, before: old, after: now })
    }
  }
  for (const now of after) if (!beforeNames.has(now.name)) added(store, now, prefix + now.name, changes)
}

/** A path that appeared: a folder with everything in it, the folder first. */
function added(store: ObjectStore, entry: TreeEntry, path: string, changes: SnapshotChange[]): void {
  changes.push({ path, before: null, after: entry })
  if (entry.type !== 'folder') return
  for (const inside of store.tree(entry.hash)) added(store, inside, `${path}/${inside.name}`, changes)
}

/** A path that went: a folder with everything in it, the folder last. */
function removed(store: ObjectStore, entry: TreeEntry, path: string, changes: SnapshotChange[]): void {
  if (entry.type === 'folder') {
    for (const inside of store.tree(entry.hash)) removed(store, inside, `${path}/${inside.name}`, changes)
  }
  changes.push({ path, before: entry, after: null })
}
