/**
 * One glob or grep of a folder, split into parts that run in parallel in the search workers, with
 * the same result as one walk: the same entries, in the same order, cut at the same cap.
 *
 * The first part lists the top of the tree (one level, or more while it holds too few folders to
 * share out) and handles what it finds there; it answers, in walk order, what it found and where
 * the folders it did not enter fall. The main thread hands those folders out in runs, to the
 * workers as they come free — with caches, each run to the worker of its lane, which walked and
 * cached it last time — and puts the answers back in place. Once the parts answered so far, in order, hold `limit`
 * entries, the rest are cancelled: a worker stops at its next turn of the event loop and keeps
 * its cache.
 *
 * Both ends are here: `searchInParts` on the main thread, `walkPart` in the workers.
 */
import { realpathSync } from 'node:fs'
import { isInside } from '../paths'
import { type WalkEntry, type WalkOptions, walk } from '../walk'
import type { CachePlan, TreeCache } from './tree-cache'
import { type SearchKind, searchPool } from './worker-pool'

/** A folder a full walk would enter, at the depth it would have there. */
export interface Subtree {
  folder: string
  depth: number
}

/** The first part of a call, or a run of folders to walk whole, in order. */
export type SearchPart = { expand: { split: number } } | { subtrees: Subtree[] }

/** In walk order: entries found, and the place of folders left for other parts. */
export type PartPiece<T> = { found: T[] } | { subtrees: Subtree[] }

export interface PartResult<T> {
  pieces: PartPiece<T>[]
  /** Files the part came to and did not search, when there were any. */
  passedOver?: PassedOver
}

/** Files not searched, by reason: each counted, the first few in walk order named by real path. */
export interface PassedOver {
  counts: Record<string, number>
  first: { real: string; reason: string }[]
}

/** How many passed-over files a part, and a call, names; the rest are only counted. */
export const PASSED_OVER_NAMED = 5

/** Adds a file not searched to `passed` (made when undefined); the same object, for chaining. */
export function passOver(passed: PassedOver | undefined, real: string, reason: string): PassedOver {
  const into = passed ?? { counts: {}, first: [] }
  into.counts[reason] = (into.counts[reason] ?? 0) + 1
  if (into.first.length < PASSED_OVER_NAMED) into.first.push({ real, reason })
  return into
}

function mergePassedOver(into: PassedOver | undefined, from: PassedOver | undefined): PassedOver | undefined {
  if (!from) return into
  const merged = into ?? { counts: {}, first: [] }
  for (const [reason, count] of Object.entries(from.counts))
    merged.counts[reason] = (merged.counts[reason] ?? 0) + count
  merged.first.push(...from.first.slice(0, PASSED_OVER_NAMED - merged.first.length))
  return merged
}

/** What a worker gives a part besides its plan. */
export interface JobContext {
  progress: (done: number, found: number) => void
  cache: TreeCache
  /** Aborted when the main thread cancels the part: the walk stops at its next turn. */
  signal: AbortSignal
}

/** Aim for this many parts per worker: enough to even out folders of very different sizes. */
const PARTS_PER_WORKER = 8
/** The first part lists at most this deep to find folders to share out. */
const MAX_FRONTIER_DEPTH = 2

export interface SearchCallOptions {
  signal: AbortSignal
  /** Entries enough: the result is the first `limit` of the walk (or all, when fewer). */
  limit: number
  onProgress?: (done: number, found: number) => void
}

/**
 * Runs a call of a folder in parts; the first `limit` entries found, in walk order, and the files
 * passed over by the parts those entries came from (parts cancelled once there were enough are not
 * heard from).
 */
export async function searchInParts<T>(
  kind: SearchKind,
  plan: { root: string; cache: CachePlan | undefined },
  { signal, limit, onProgress }: SearchCallOptions,
): Promise<{ found: T[]; passedOver?: PassedOver }> {
  const pool = searchPool()
  const sync = plan.cache ? pool.syncPoint() : undefined
  if (sync === undefined) plan.cache = undefined
  const progress = new Map<number, [number, number]>()
  const report = (part: number) => (done: number, found: number) => {
    progress.set(part, [done, found])
    if (!onProgress) return
    let [allDone, allFound] = [0, 0]
    for (const [partDone, partFound] of progress.values()) {
      allDone += partDone
      allFound += partFound
    }
    onProgress(allDone, allFound)
  }
  const split = pool.size * PARTS_PER_WORKER
  const first = await pool.run<PartResult<T>>(kind, plan, { expand: { split } } satisfies SearchPart, {
    signal,
    onProgress: report(-1),
    // The sync point comes with every part, the first too: it lists the top of the tree.
    ...(sync && { sync, lane: pool.laneOf(plan.root) }),
  })

  // Each place holds what was found there, or undefined until its part answers.
  const places: (T[] | undefined)[] = []
  // What the part of each place passed over; the first part's is its own.
  const passed: (PassedOver | undefined)[] = []
  const parts: { place: number; subtrees: Subtree[] }[] = []
  const folders = first.pieces.reduce(
    (sum, piece) => sum + ('subtrees' in piece ? piece.subtrees.length : 0),
    0,
  )
  const run = Math.max(1, Math.ceil(folders / split))
  for (const piece of first.pieces) {
    if ('found' in piece) {
      places.push(piece.found)
      continue
    }
    for (let at = 0; at < piece.subtrees.length; at += run) {
      parts.push({ place: places.length, subtrees: piece.subtrees.slice(at, at + run) })
      places.push(undefined)
    }
  }
  await runParts(kind, plan, parts, places, passed, {
    signal,
    limit,
    onProgress: report,
    ...(sync && { sync }),
    sticky: plan.cache !== undefined,
  })
  const found: T[] = []
  let passedOver = first.passedOver
  for (const [at, place] of places.entries()) {
    if (!place || found.length >= limit) break
    passedOver = mergePassedOver(passedOver, passed[at])
    for (const entry of place) {
      if (found.length === limit) break
      found.push(entry)
    }
  }
  return { found, ...(passedOver && { passedOver }) }
}

/** Runs the parts, at most one per worker at a time, until the places in order hold `limit` entries. */
function runParts<T>(
  kind: SearchKind,
  plan: unknown,
  parts: { place: number; subtrees: Subtree[] }[],
  places: (T[] | undefined)[],
  passed: (PassedOver | undefined)[],
  options: {
    signal: AbortSignal
    limit: number
    onProgress: (part: number) => (done: number, found: number) => void
    sync?: number
    /** Each part runs in its lane (see laneOf): only worth it when workers cache. */
    sticky: boolean
  },
): Promise<void> {
  const pool = searchPool()
  const cancel = new AbortController()
  const keyOf = (part: { subtrees: Subtree[] }) => (part.subtrees[0] as Subtree).folder
  const enough = () => {
    let count = 0
    for (const place of places) {
      if (!place) return false
      count += place.length
      if (count >= options.limit) return true
    }
    return true
  }
  // With caches, a part runs in the lane its first folder hashes to, so the same folders are always
  // walked (and cached) by the same worker, and by no other: the budget holds each folder once.
  const laneOf = (part: { subtrees: Subtree[] }) => (options.sticky ? pool.laneOf(keyOf(part)) : undefined)
  return new Promise<void>((resolve, reject) => {
    let running = 0
    let failed = false
    const busy = new Set<number>()
    const next = () => {
      if (failed) return
      if (enough()) {
        cancel.abort()
        resolve()
        return
      }
      for (let at = 0; at < parts.length && running < pool.size; ) {
        const lane = laneOf(parts[at] as (typeof parts)[number])
        if (lane !== undefined && busy.has(lane)) {
          at++
          continue
        }
        const part = parts.splice(at, 1)[0] as (typeof parts)[number]
        if (lane !== undefined) busy.add(lane)
        running++
        const settle = () => {
          running--
          if (lane !== undefined) busy.delete(lane)
        }
        pool
          .run<PartResult<T>>(kind, plan, { subtrees: part.subtrees } satisfies SearchPart, {
            signal: options.signal,
            cancel: cancel.signal,
            onProgress: options.onProgress(part.place),
            ...(lane !== undefined && { lane }),
            ...(options.sync && { sync: options.sync }),
          })
          .then(
            (result) => {
              settle()
              places[part.place] = result.pieces.flatMap((piece) => ('found' in piece ? piece.found : []))
              passed[part.place] = result.passedOver
              next()
            },
            (error: unknown) => {
              settle()
              if (cancel.signal.aborted && !options.signal.aborted) return
              failed = true
              cancel.abort()
              reject(error)
            },
          )
      }
    }
    next()
  })
}

/**
 * A part, in a worker: the walk of the root's top (`expand`) or of whole subtrees, each entry given
 * to `visit` with the piece it goes in; `visit` answers false once the part has found enough.
 */
export async function walkPart<T>(
  root: string,
  options: WalkOptions,
  part: SearchPart,
  visit: (entry: WalkEntry, found: T[]) => boolean,
): Promise<PartResult<T>> {
  const pieces: PartPiece<T>[] = []
  let found: T[] = []
  const walkAll = async (batches: AsyncGenerator<WalkEntry[]>) => {
    for await (const batch of batches) for (const entry of batch) if (!visit(entry, found)) return false
    return true
  }
  if ('subtrees' in part) {
    for (const from of part.subtrees) if (!(await walkAll(walk(root, { ...options, from })))) break
    return { pieces: [{ found }] }
  }
  const depth = await frontierDepth(root, options, part.expand.split)
  const reached = (folders: string[]) => {
    if (found.length > 0) pieces.push({ found })
    found = []
    pieces.push({ subtrees: folders.map((folder) => ({ folder, depth: depth + 1 })) })
  }
  await walkAll(walk(root, { ...options, frontier: { depth, reached } }))
  if (found.length > 0) pieces.push({ found })
  return { pieces }
}

/** The shallowest depth whose folders are enough parts; a walk of that much lists each folder once. */
async function frontierDepth(root: string, options: WalkOptions, split: number): Promise<number> {
  for (let depth = 0; depth < MAX_FRONTIER_DEPTH; depth++) {
    let folders = 0
    const reached = (found: string[]) => {
      folders += found.length
    }
    for await (const _ of walk(root, { ...options, frontier: { depth, reached } })) {
      // Only the folders at the frontier are counted.
    }
    if (folders === 0 || folders >= split) return depth
  }
  return MAX_FRONTIER_DEPTH
}

/** A project folder no call has used for this long has its caches dropped. */
const CACHE_IDLE_MS = 10 * 60_000
const lastUse = new Map<string, number>()
let sweeping = false

/**
 * The cache a call of `target` (real) uses: that of the chat's folder when the target lies in it,
 * else the target's own; none when the budget is 0. Each worker gets its share of the budget.
 */
export function cachePlan(target: string, workingFolder: string, budgetMiB: number): CachePlan | undefined {
  if (budgetMiB <= 0) return undefined
  const base = realOrAsGiven(workingFolder)
  const root = isInside(base, target) ? base : target
  lastUse.set(root, Date.now())
  if (!sweeping) {
    setInterval(dropIdleCaches, 60_000).unref()
    sweeping = true
  }
  return { root, budgetBytes: Math.floor((budgetMiB * 1024 * 1024) / searchPool().size) }
}

/** Drops a project folder's caches in every worker: its watches close, its memory is freed. */
export function dropSearchCache(root: string): void {
  lastUse.delete(root)
  searchPool().broadcast({ type: 'drop', root })
}

/**
 * For one app's chats: told the folders its chats are bound to whenever they change, it drops the
 * cache of a folder that was bound and no longer is.
 */
export function searchCacheKeeper(): (folders: string[]) => void {
  let boundBefore = new Set<string>()
  return (folders) => {
    const bound = new Set(folders.map(realOrAsGiven))
    for (const root of lastUse.keys()) if (boundBefore.has(root) && !bound.has(root)) dropSearchCache(root)
    boundBefore = bound
  }
}

function realOrAsGiven(folder: string): string {
  try {
    return realpathSync.native(folder)
  } catch {
    return folder
  }
}

function dropIdleCaches(): void {
  const now = Date.now()
  for (const [root, used] of lastUse) if (now - used > CACHE_IDLE_MS) dropSearchCache(root)
}
