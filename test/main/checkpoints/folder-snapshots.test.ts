import { chmodSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { FolderSnapshots } from '../../../src-main/checkpoints/folder-snapshots'
import { ObjectStore } from '../../../src-main/checkpoints/object-store'
import { diffSnapshots } from '../../../src-main/checkpoints/snapshot-diff'
import { useTempDirs } from '../../support/temp-dir'

function useFolders() {
  const tempDir = useTempDirs()
  const open: FolderSnapshots[] = []
  afterEach(() => {
    for (const snapshots of open.splice(0)) snapshots.close()
  })
  return {
    tempDir,
    open,
    setUp: (files: Record<string, string>, maxFileBytes = 1024 * 1024) =>
      setUpIn(tempDir, open, files, maxFileBytes),
  }
}

function setUpIn(
  tempDir: () => string,
  open: FolderSnapshots[],
  files: Record<string, string>,
  maxFileBytes: number,
) {
  const folder = realpathSync(tempDir())
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(folder, path, '..'), { recursive: true })
    writeFileSync(join(folder, path), text)
  }
  const store = new ObjectStore(tempDir())
  const snapshots = new FolderSnapshots(folder, store, { maxFileBytes })
  open.push(snapshots)
  return { folder, store, snapshots }
}

const changed = (store: ObjectStore, before: string, after: string) =>
  diffSnapshots(store, before, after).map(
    (change) => `${change.before ? (change.after ? 'M' : 'D') : 'A'} ${change.path}`,
  )

describe('FolderSnapshots', () => {
  const { setUp, open } = useFolders()
  it('sees adds, edits, deletes, new folders and mode bits between snapshots', async () => {
    const { folder, store, snapshots } = setUp({
      'b.txt': 'b\n',
      'c.txt': 'c\n',
      'b.sh': 'echo\n',
      'src/x.ts': 'x',
    })
    const first = await snapshots.snapshot()
    writeFileSync(join(folder, 'a.txt'), 'new\n')
    writeFileSync(join(folder, 'b.txt'), 'b changed\n')
    rmSync(join(folder, 'c.txt'))
    mkdirSync(join(folder, 'd'))
    writeFileSync(join(folder, 'd/e.txt'), 'x\n')
    chmodSync(join(folder, 'b.sh'), 0o755)
    writeFileSync(join(folder, 'src/x.ts'), 'y')
    const second = await snapshots.snapshot()
    expect(changed(store, first, second).sort()).toEqual(
      ['A a.txt', 'M b.sh', 'M b.txt', 'D c.txt', 'A d', 'A d/e.txt', 'M src/x.ts'].sort(),
    )
    expect(store.get(store.entryAt(first, 'c.txt')?.hash ?? '').toString()).toBe('c\n')
    expect(store.entryAt(second, 'b.sh')?.mode).toBe(0o755)
    expect(await snapshots.snapshot()).toBe(second)
  })

  it('leaves out .git and what .gitignore ignores, and follows a .gitignore that changes', async () => {
    const { folder, store, snapshots } = setUp({
      '.gitignore': 'build/\n',
      'build/out.js': 'generated',
      '.git/HEAD': 'ref: refs/heads/main\n',
      'main.c': 'int main;',
    })
    const first = await snapshots.snapshot()
    expect(store.tree(first).map((entry) => entry.name)).toEqual(['.gitignore', 'main.c'])
    writeFileSync(join(folder, 'build/more.js'), 'more')
    expect(await snapshots.snapshot()).toBe(first)
    writeFileSync(join(folder, '.gitignore'), '')
    const second = await snapshots.snapshot()
    expect(changed(store, first, second).sort()).toEqual(
      ['M .gitignore', 'A build', 'A build/more.js', 'A build/out.js'].sort(),
    )
  })

  it('records a file past the limit by hash and size only, and a link as a link', async () => {
    const { folder, store, snapshots } = setUp({ 'big.bin': 'x'.repeat(5000), 'small.txt': 'hi' }, 1024)
    symlinkSync('small.txt', join(folder, 'link'))
    const root = await snapshots.snapshot()
    const big = store.entryAt(root, 'big.bin')
    expect(big).toMatchObject({ stored: false, size: 5000 })
    expect(store.has(big?.hash ?? '')).toBe(false)
    const link = store.entryAt(root, 'link')
    expect(link?.type).toBe('symlink')
    expect(store.get(link?.hash ?? '').toString()).toBe('small.txt')
    expect(store.check([root])).toEqual([])
  })

  it('after a restart, reads again only what changed since the last snapshot', async () => {
    const { folder, store, snapshots } = setUp({ 'a.txt': 'a', 'b.txt': 'b', 'sub/c.txt': 'c' })
    const first = await snapshots.snapshot()
    snapshots.close()
    writeFileSync(join(folder, 'b.txt'), 'bb')
    const again = new FolderSnapshots(folder, store, { maxFileBytes: 1024, previous: first })
    open.push(again)
    const counts: number[] = []
    const second = await again.snapshot((count) => counts.push(count.files))
    expect(counts.at(-1)).toBe(1)
    expect(changed(store, first, second)).toEqual(['M b.txt'])
  })

  it('finds a change made deep in a folder created after the first snapshot', async () => {
    const { folder, store, snapshots } = setUp({ 'a.txt': 'a' })
    const first = await snapshots.snapshot()
    mkdirSync(join(folder, 'new/deeper'), { recursive: true })
    writeFileSync(join(folder, 'new/deeper/f.txt'), '1')
    const second = await snapshots.snapshot()
    writeFileSync(join(folder, 'new/deeper/f.txt'), '2')
    const third = await snapshots.snapshot()
    expect(changed(store, second, third)).toEqual(['M new/deeper/f.txt'])
    rmSync(join(folder, 'new'), { recursive: true })
    const fourth = await snapshots.snapshot()
    expect(fourth).not.toBe(third)
    expect(changed(store, first, fourth)).toEqual([])
  })
})
