/**
 * Checkpoints' folder snapshots against git doing the same work in the same run, on the generated
 * tree of 200,000 files (search-tree.ts; 2,000 in quick mode) and on the project's node_modules (one
 * small package in quick mode). git keeps its repository in a fresh `GIT_DIR` of its own, with the
 * folder as its work tree, so neither side writes into the folder:
 * - the first snapshot into an empty store, against `git add -A && git write-tree` into a fresh
 *   `GIT_DIR` (after `git init`, untimed), each side's store measured on disk afterwards;
 * - a snapshot after 10 files changed, against `git add -A && git write-tree` again after the same
 *   changes. node_modules is only read, never written, so there both take a snapshot of it unchanged;
 * - on the generated tree only, a restore of 1,000 changed files to the snapshot before them: the
 *   diff of the two snapshots and `applySteps`, against `git read-tree -u --reset` of git's tree of
 *   the same state, each checked afterwards (the folder's snapshot must not differ from the
 *   original, and a few files must be back byte for byte).
 */
import { execFileSync } from 'node:child_process'
import {
  appendFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { applySteps } from '../src-main/checkpoints/apply-steps'
import { FolderSnapshots } from '../src-main/checkpoints/folder-snapshots'
import { ObjectStore } from '../src-main/checkpoints/object-store'
import { diffSnapshots } from '../src-main/checkpoints/snapshot-diff'
import type { RestoreStep } from '../src-main/db/checkpoints-repository'
import { DEFAULT_CHECKPOINT_SETTINGS } from '../src-shared/checkpoints'
import { type Benchmark, type BenchmarkResult, median, sized } from './measure'
import { generateTree, TREE } from './search-tree'

/** A first snapshot of the generated tree takes about 40 s here: three rounds are minutes already. */
const FIRST_ROUNDS = sized(3, 1)
const WARM_ROUNDS = sized(5, 1)
const RESTORE_ROUNDS = sized(3, 1)
const CHANGED_FILES = 10
const RESTORED_FILES = sized(1000, 50)
/** The issue's goal for a snapshot after a few changes. */
const WARM_TARGET_MS = 100
/** Files a restore checks byte for byte, of those it changed and of those it deleted. */
const CHECKED_FILES = 3
const REPO = fileURLToPath(new URL('..', import.meta.url))
const MIB = 1024 * 1024

/** A folder measured; node_modules is `readOnly`: nothing is ever written into it. */
interface MeasuredTree {
  name: string
  folder: string
  readOnly: boolean
}

/** One side's store as the rows after the first snapshot use it. */
interface Ours {
  store: ObjectStore
  snapshots: FolderSnapshots
  root: string
}

/** git with its repository in `gitDir` and the folder as its work tree; `tree` its latest write-tree. */
interface Git {
  gitDir: string
  run: (...args: string[]) => string
  tree: string
}

function gitIn(gitDir: string, folder: string): Git['run'] {
  const env = { ...process.env, GIT_DIR: gitDir, GIT_WORK_TREE: folder }
  return (...args) =>
    execFileSync('git', args, { cwd: folder, env, encoding: 'utf8', maxBuffer: 1 << 30 }).trim()
}

/** `git add -A && git write-tree`: what a shadow repository's snapshot costs. */
function gitSnapshot(git: Git['run']): string {
  git('add', '-A')
  return git('write-tree')
}

async function timed(work: () => unknown): Promise<number> {
  const started = performance.now()
  await work()
  return performance.now() - started
}

/**
 * Each side in turn, `rounds` times, so that a slow patch of the shared machine falls on both; each
 * returns the ms of its own timed part (what it prepares or checks around it is not counted). The
 * median of each.
 */
async function inTurn(
  rounds: number,
  ours: (round: number) => Promise<number>,
  reference: (round: number) => Promise<number>,
): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []]
  for (let round = 0; round < rounds; round++) {
    times[0].push(await ours(round))
    times[1].push(await reference(round))
  }
  return [median(times[0]), median(times[1])]
}

/** Bytes of the files below `path`, as their sizes say and as the disk allocates them. */
function diskUsage(path: string): { bytes: number; allocated: number } {
  const usage = { bytes: 0, allocated: 0 }
  const stats = lstatSync(path)
  if (!stats.isDirectory()) return { bytes: stats.size, allocated: stats.blocks * 512 }
  usage.allocated += stats.blocks * 512
  for (const name of readdirSync(path)) {
    const inside = diskUsage(join(path, name))
    usage.bytes += inside.bytes
    usage.allocated += inside.allocated
  }
  return usage
}

function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB`
}

function usageNote(what: string, path: string): string {
  const { bytes, allocated } = diskUsage(path)
  return `${what} ${mib(bytes)} (${mib(allocated)} allocated)`
}

/** Every file of a snapshot, by folder-relative path, in tree order. */
function filesIn(store: ObjectStore, root: string, prefix = ''): { path: string; stored: boolean }[] {
  return store
    .tree(root)
    .flatMap((entry) =>
      entry.type === 'folder'
        ? filesIn(store, entry.hash, `${prefix}${entry.name}/`)
        : entry.type === 'file'
          ? [{ path: prefix + entry.name, stored: entry.stored }]
          : [],
    )
}

/** Every file's folder-relative path in a snapshot, in tree order. */
function pathsIn(store: ObjectStore, root: string): string[] {
  return filesIn(store, root).map((file) => file.path)
}

/** `count` paths spread evenly over `paths`. */
function spread(paths: readonly string[], count: number): string[] {
  return Array.from({ length: count }, (_, i) => paths[Math.floor((i * paths.length) / count)] as string)
}

/** The paths two snapshots differ in, sorted. */
function changedPaths(store: ObjectStore, before: string, after: string): string[] {
  return diffSnapshots(store, before, after)
    .map((change) => change.path)
    .sort()
}

/**
 * The first snapshot, FIRST_ROUNDS times each side, each into an empty store; the last of each side
 * is kept for the rows that follow, the others removed (untimed) as soon as the next is taken.
 */
async function firstSnapshotRow(tree: MeasuredTree, home: string) {
  let ours: Ours | undefined
  let git: Git | undefined
  let filesRead = 0
  const [ourMs, gitMs] = await inTurn(
    FIRST_ROUNDS,
    async (round) => {
      const store = new ObjectStore(join(home, `store-${round}`))
      const snapshots = new FolderSnapshots(tree.folder, store, {
        maxFileBytes: DEFAULT_CHECKPOINT_SETTINGS.maxFileBytes,
      })
      let root = ''
      const ms = await timed(async () => {
        root = await snapshots.snapshot((count) => {
          filesRead = count.files
        })
      })
      if (ours) {
        ours.snapshots.close()
        rmSync(ours.store.root, { recursive: true, force: true })
      }
      ours = { store, snapshots, root }
      return ms
    },
    async (round) => {
      const gitDir = join(home, `git-${round}`)
      const run = gitIn(gitDir, tree.folder)
      run('init', '-q')
      let gitTree = ''
      const ms = await timed(() => {
        gitTree = gitSnapshot(run)
      })
      if (git) rmSync(git.gitDir, { recursive: true, force: true })
      git = { gitDir, run, tree: gitTree }
      return ms
    },
  )
  if (!ours || !git) throw new Error('the first snapshots did not run')
  const files = filesIn(ours.store, ours.root)
  const unstored = files.filter((file) => !file.stored).length
  const gitFiles = git.run('ls-files', '-z').split('\0').filter(Boolean).length
  const row: BenchmarkResult = {
    name: `${tree.name}: first snapshot (${files.length.toLocaleString('en')} files)`,
    ours: { label: 'FolderSnapshots', msPerOp: ourMs },
    reference: { label: 'git add -A && write-tree', msPerOp: gitMs },
    note:
      `${usageNote('store', ours.store.root)}, ${usageNote('GIT_DIR', git.gitDir)}; ` +
      `${unstored} files over ${mib(DEFAULT_CHECKPOINT_SETTINGS.maxFileBytes)} kept by hash only (git stores them); ` +
      `${filesRead.toLocaleString('en')} files and links read, git's index ${gitFiles.toLocaleString('en')} files; ` +
      `median of ${FIRST_ROUNDS}`,
  }
  return { row, ours, git }
}

/**
 * A snapshot after CHANGED_FILES files changed (a line appended to each, new each round) against
 * git's after the same changes; what the snapshot found must be exactly those files. A read-only
 * folder is snapshotted with nothing changed by us; what others change there meanwhile (vitest
 * writes its cache into node_modules) is counted, not refused.
 */
async function warmSnapshotRow(tree: MeasuredTree, ours: Ours, git: Git): Promise<BenchmarkResult> {
  const changed = tree.readOnly ? [] : spread(pathsIn(ours.store, ours.root), CHANGED_FILES)
  let changedByOthers = 0
  const [ourMs, gitMs] = await inTurn(
    WARM_ROUNDS,
    async (round) => {
      for (const path of changed) appendFileSync(join(tree.folder, path), `// changed in round ${round}\n`)
      const before = ours.root
      const ms = await timed(async () => {
        ours.root = await ours.snapshots.snapshot()
      })
      const found = changedPaths(ours.store, before, ours.root)
      if (tree.readOnly) changedByOthers += found.length
      else if (!isDeepStrictEqual(found, [...changed].sort())) {
        throw new Error(
          `the snapshot after changing ${changed.length} files found ${found.length} changed: ${found.slice(0, 5).join(', ')}`,
        )
      }
      return ms
    },
    async () =>
      timed(() => {
        git.tree = gitSnapshot(git.run)
      }),
  )
  const what = tree.readOnly
    ? 'no file changed (node_modules is only read)'
    : `${CHANGED_FILES} files changed`
  const verdict = ourMs <= WARM_TARGET_MS && ourMs < gitMs ? 'met' : 'NOT met'
  return {
    name: `${tree.name}: a snapshot after ${what}`,
    ours: { label: 'FolderSnapshots, warm', msPerOp: ourMs },
    reference: { label: 'git add -A && write-tree, warm', msPerOp: gitMs },
    target: `target ≤ ${WARM_TARGET_MS} ms and < git`,
    note:
      `goal ${verdict}; ${ours.snapshots.warm ? 'every folder watched' : 'no watches to be had: a whole walk each time'}; ` +
      `${tree.readOnly ? `${changedByOthers} paths changed by others meanwhile` : 'the snapshot found exactly the changed files'}; median of ${WARM_ROUNDS}`,
  }
}

/**
 * RESTORED_FILES files changed — a tenth deleted, a tenth added beside others, the rest with a line
 * appended — then brought back to the snapshot before: by us (diff and applySteps), then, after
 * the same changes again, by git (`read-tree -u --reset` of its tree before them, its index holding
 * the changed state). Each restore is checked by a snapshot that must not differ from the one before
 * the changes, and some files byte for byte.
 */
async function restoreRow(tree: MeasuredTree, ours: Ours, git: Git): Promise<BenchmarkResult> {
  const original = ours.root
  const picked = spread(pathsIn(ours.store, original), RESTORED_FILES)
  const deleted = picked.filter((_, i) => i % 10 === 1)
  const added = picked.filter((_, i) => i % 10 === 2).map((path) => `${path}.added`)
  const modified = picked.filter((_, i) => i % 10 !== 1 && i % 10 !== 2)
  const at = (path: string) => join(tree.folder, path)
  const checked = [...modified.slice(0, CHECKED_FILES), ...deleted.slice(0, CHECKED_FILES)]
  const originalBytes = new Map(checked.map((path) => [path, readFileSync(at(path))]))
  const change = () => {
    for (const path of modified) appendFileSync(at(path), '// changed before a restore\n')
    for (const path of deleted) unlinkSync(at(path))
    for (const path of added) writeFileSync(at(path), 'added before a restore\n')
  }
  const expected = [...modified, ...deleted, ...added].sort()
  /** Throws unless the folder is as it was before the changes. */
  const check = async (who: string) => {
    ours.root = await ours.snapshots.snapshot()
    const left = changedPaths(ours.store, original, ours.root)
    const wrong = checked.filter((path) => !readFileSync(at(path)).equals(originalBytes.get(path) as Buffer))
    if (left.length > 0 || wrong.length > 0) {
      throw new Error(
        `after ${who}'s restore, ${left.length} paths still differ (${left.slice(0, 5).join(', ')}); ` +
          `not back byte for byte: ${wrong.join(', ') || 'none'}`,
      )
    }
  }
  const applyMs: number[] = []
  const [ourMs, gitMs] = await inTurn(
    RESTORE_ROUNDS,
    async (round) => {
      change()
      const changedRoot = await ours.snapshots.snapshot()
      const found = changedPaths(ours.store, original, changedRoot)
      if (!isDeepStrictEqual(found, expected)) {
        throw new Error(`the snapshot found ${found.length} changed paths, not ${expected.length}`)
      }
      let steps: RestoreStep[] = []
      const ms = await timed(() => {
        steps = diffSnapshots(ours.store, changedRoot, original).map(({ path, after }) => ({
          path,
          to: after && { type: after.type, hash: after.hash, mode: after.mode },
        }))
        const started = performance.now()
        applySteps(tree.folder, ours.store, steps, `bench-restore-${round}`)
        applyMs.push(performance.now() - started)
      })
      await check('our')
      return ms
    },
    async () => {
      change()
      gitSnapshot(git.run)
      const ms = await timed(() => git.run('read-tree', '-u', '--reset', git.tree))
      await check('git')
      return ms
    },
  )
  return {
    name: `${tree.name}: a restore of ${RESTORED_FILES.toLocaleString('en')} changed files`,
    ours: { label: 'diffSnapshots + applySteps', msPerOp: ourMs },
    reference: { label: 'git read-tree -u --reset', msPerOp: gitMs },
    note:
      `${modified.length} modified, ${deleted.length} deleted, ${added.length} added; applySteps alone ` +
      `${median(applyMs).toFixed(1)} ms; both checked: no path differs, ${checked.length} files byte for byte; ` +
      `median of ${RESTORE_ROUNDS}`,
  }
}

const benchmark: Benchmark = async () => {
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'atelier-bench-checkpoints-')))
  const opened: Ours[] = []
  try {
    const generatedRoot = join(home, 'tree')
    mkdirSync(generatedRoot)
    const generateMs = generateTree(generatedRoot)
    console.log(
      `checkpoints bench: generated ${TREE.files} files in ${TREE.folders} folders in ${(generateMs / 1000).toFixed(1)} s`,
    )
    const trees: MeasuredTree[] = [
      { name: `generated ${TREE.files / 1000}k files`, folder: generatedRoot, readOnly: false },
      {
        name: sized('node_modules', 'node_modules/diff'),
        folder: realpathSync(join(REPO, sized('node_modules', 'node_modules/diff'))),
        readOnly: true,
      },
    ]
    const rows: BenchmarkResult[] = []
    for (const [index, tree] of trees.entries()) {
      const stores = join(home, `stores-${index}`)
      mkdirSync(stores)
      const first = await firstSnapshotRow(tree, stores)
      opened.push(first.ours)
      rows.push(first.row, await warmSnapshotRow(tree, first.ours, first.git))
      if (!tree.readOnly) rows.push(await restoreRow(tree, first.ours, first.git))
      first.ours.snapshots.close()
      rmSync(stores, { recursive: true, force: true })
    }
    return rows
  } finally {
    for (const ours of opened) ours.snapshots.close()
    rmSync(home, { recursive: true, force: true })
  }
}

export default benchmark
