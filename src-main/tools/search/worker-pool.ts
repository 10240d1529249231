/**
 * The threads glob and grep walk and match in. A model's regular expression cannot be interrupted
 * once it runs, and a big walk is seconds of synchronous work: on the main thread either would
 * freeze every window and turn. Here the main thread only plans a call (resolves its path and policy)
 * and merges what comes back; a worker does the rest. A stop or the timeout terminates the worker
 * doing the call — the only way to end a running RegExp — and the pool starts another in its place.
 *
 * The pool starts lazily, holds up to one worker per core, and runs one part of a call per worker
 * at a time (search-call.ts splits a call into parts that run in parallel). Each worker keeps a
 * warm cache of what it walked (tree-cache.ts), so a part goes to the worker that ran it last when
 * that one is free. Idle workers are unref'd, so they never keep a CLI process alive; there is
 * nothing to close.
 */
import { closeSync, openSync, unlinkSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { processFolder } from '../process-folders'
import { integerParameter, TIMEOUT_SECONDS } from '../settings-policy'
import { workerEntry } from '../worker-entry'
import type { CacheStats } from './tree-cache'

export type SearchKind = 'grep' | 'glob'

/** glob's and grep's timeout setting: past it, the worker doing the call is terminated. */
export const SEARCH_TIMEOUT_DESCRIPTOR = integerParameter(
  'timeoutSeconds',
  'Timeout',
  'A search still going after this (a huge tree, a pattern that backtracks without end) is stopped.',
  TIMEOUT_SECONDS,
  's',
)

/** From the main thread to a worker: plain data only. */
export type SearchRequest =
  /** Run one part of a call (see search-call.ts), once the sync point `sync` is heard (syncPoint). */
  | { type: 'run'; id: number; kind: SearchKind; plan: unknown; part: unknown; sync?: number }
  /** Forget a project folder's cache. */
  | { type: 'drop'; root: string }
  /** Answer once the background work (watching, summarizing) is done. */
  | { type: 'settle'; id: number }
  /** Answer with the cache's figures (CacheStats). */
  | { type: 'stats'; id: number }
  /** Stop a running part at the next turn of the worker's event loop. */
  | { type: 'cancel'; id: number }

/** From a worker to the main thread. */
export type SearchReply =
  | { id: number; type: 'progress'; done: number; found: number }
  | { id: number; type: 'done'; result: unknown }
  | { id: number; type: 'error'; name: string; message: string }
  | { id: number; type: 'settled' }
  | { id: number; type: 'stats'; stats: CacheStats }

export interface SearchRunOptions {
  signal: AbortSignal
  onProgress?: (done: number, found: number) => void
  /**
   * Run on this lane's worker and no other (a lane is a place in the pool, kept by the worker that
   * replaces one): the worker whose cache holds the part's folders. Any free worker when absent.
   */
  lane?: number
  /** The call's sync point: the worker hears it before it runs the part (see syncPoint). */
  sync?: number
  /**
   * Ends the part without ending its worker: a waiting part never starts, a running one stops at
   * its worker's next turn of the event loop. Either rejects with the signal's reason.
   */
  cancel?: AbortSignal
}

interface Waiter {
  start: (slot: Slot) => void
  lane?: number
}

interface Slot {
  worker: Worker
  lane: number
  /** The call it is running, if any. */
  call?: number
  /** What ended it, when it failed on its own (its entry did not load, it ran out of memory). */
  failure?: Error
}

class SearchPool {
  private readonly slots = new Set<Slot>()
  /** Each lane's worker, while it runs. */
  private readonly lanes: (Slot | undefined)[]
  private readonly idle: Slot[] = []
  private readonly waiting: Waiter[] = []
  private nextId = 1
  private exits = 0
  private syncs = 0

  constructor(readonly size: number) {
    this.lanes = new Array(size).fill(undefined)
  }

  /**
   * A point every worker hears in order with the changes made before it: a file named by a number,
   * made and removed in a folder every worker watches. A kernel's watch events reach a watcher in
   * the order they happened, so a worker that has heard the point has heard of every change made
   * before the call that took it, whatever its event loop was doing meanwhile. Undefined when the
   * folder cannot be written: the call then uses no cache.
   */
  syncPoint(): number | undefined {
    try {
      const sync = ++this.syncs
      const file = join(processFolder('search'), String(sync))
      closeSync(openSync(file, 'w'))
      unlinkSync(file)
      return sync
    } catch {
      return undefined
    }
  }

  /** Runs one part of a call in a worker; rejects with the signal's reason once it aborts, the worker ended. */
  run<T>(kind: SearchKind, plan: unknown, part: unknown, options: SearchRunOptions): Promise<T> {
    const { signal, onProgress, lane, cancel, sync } = options
    signal.throwIfAborted()
    cancel?.throwIfAborted()
    return new Promise<T>((resolve, reject) => {
      const id = this.nextId++
      let slot: Slot | undefined
      let settled = false
      const finish = (outcome: () => void) => {
        if (settled) return
        settled = true
        signal.removeEventListener('abort', onAbort)
        cancel?.removeEventListener('abort', onCancel)
        outcome()
      }
      const onCancel = () => {
        if (slot) {
          slot.worker.postMessage({ type: 'cancel', id } satisfies SearchRequest)
          return
        }
        const waiter = this.waiting.indexOf(waiting)
        if (waiter !== -1) this.waiting.splice(waiter, 1)
        finish(() => reject(cancel?.reason))
      }
      const onAbort = () => {
        const waiter = this.waiting.indexOf(waiting)
        if (waiter !== -1) this.waiting.splice(waiter, 1)
        if (slot) this.replace(slot)
        finish(() => reject(signal.reason))
      }
      const onMessage = (reply: SearchReply) => {
        if (reply.id !== id || settled) return
        if (reply.type === 'progress') {
          onProgress?.(reply.done, reply.found)
          return
        }
        const ended = slot as Slot
        ended.worker.off('message', onMessage)
        ended.worker.off('exit', onExit)
        this.release(ended)
        if (reply.type === 'done') finish(() => resolve(reply.result as T))
        else if (reply.type === 'error') finish(() => reject(workerError(reply.name, reply.message)))
      }
      const onExit = () =>
        finish(() => {
          const why = slot?.failure ? `: ${slot.failure.message}` : ''
          reject(new Error(`the search worker stopped unexpectedly${why}`))
        })
      const start = (given: Slot) => {
        if (settled) {
          this.release(given)
          return
        }
        slot = given
        given.call = id
        given.worker.ref()
        given.worker.on('message', onMessage)
        given.worker.once('exit', onExit)
        given.worker.postMessage({
          type: 'run',
          id,
          kind,
          plan,
          part,
          ...(sync !== undefined && { sync }),
        } satisfies SearchRequest)
      }
      const waiting: Waiter = { start, ...(lane !== undefined && { lane: lane % this.size }) }
      signal.addEventListener('abort', onAbort, { once: true })
      cancel?.addEventListener('abort', onCancel, { once: true })
      const free = this.acquire(waiting.lane)
      if (free) start(free)
      else this.waiting.push(waiting)
    })
  }

  /** Sends every worker the same message (a cache to drop). */
  broadcast(message: SearchRequest): void {
    for (const slot of this.slots) slot.worker.postMessage(message)
  }

  /** Resolves once every worker has finished its background work: the caches are warm. */
  async settled(): Promise<void> {
    await this.ask('settle')
  }

  /** Each worker's cache figures, by thread id. */
  async cacheStats(): Promise<Map<number, CacheStats>> {
    const replies = await this.ask('stats')
    const stats = new Map<number, CacheStats>()
    for (const [thread, reply] of replies) if (reply?.type === 'stats') stats.set(thread, reply.stats)
    return stats
  }

  /** Asks every worker; a worker that exits meanwhile answers undefined. */
  private ask(type: 'settle' | 'stats'): Promise<[number, SearchReply | undefined][]> {
    return Promise.all(
      [...this.slots].map(
        ({ worker }) =>
          new Promise<[number, SearchReply | undefined]>((resolve) => {
            const id = this.nextId++
            const thread = worker.threadId
            const onExit = () => resolve([thread, undefined])
            const onMessage = (reply: SearchReply) => {
              if (reply.id !== id) return
              worker.off('message', onMessage)
              worker.off('exit', onExit)
              resolve([thread, reply])
            }
            worker.on('message', onMessage)
            worker.once('exit', onExit)
            worker.postMessage({ type, id } satisfies SearchRequest)
          }),
      ),
    )
  }

  /** The lane a key's parts run in, when workers cache: the same lane for the same key, always. */
  laneOf(key: string): number {
    let hash = 0
    for (let i = 0; i < key.length; i++) hash = (Math.imul(hash, 31) + key.charCodeAt(i)) | 0
    return (hash >>> 0) % this.size
  }

  /** The workers' thread ids, and which of them are running a call. */
  stats(): { threads: number[]; busy: number[]; exits: number } {
    const threads = [...this.slots].map((slot) => slot.worker.threadId)
    const busy = [...this.slots].filter((slot) => slot.call !== undefined).map((s) => s.worker.threadId)
    return { threads, busy, exits: this.exits }
  }

  /** Ends every worker; the next call starts new ones. */
  async close(): Promise<void> {
    const slots = [...this.slots]
    this.slots.clear()
    this.idle.length = 0
    await Promise.all(slots.map((slot) => slot.worker.terminate()))
  }

  /** A free worker (of the lane, when one is asked for); the whole pool starts at its first use. */
  private acquire(lane: number | undefined): Slot | undefined {
    if (this.slots.size === 0) for (let i = 1; i < this.size; i++) this.release(this.spawn())
    if (lane !== undefined) {
      const slot = this.lanes[lane] ?? this.spawn(lane)
      const at = this.idle.indexOf(slot)
      if (at !== -1) this.idle.splice(at, 1)
      return at !== -1 || slot.call === undefined ? slot : undefined
    }
    const idle = this.idle.pop()
    if (idle) return idle
    return this.slots.size < this.size ? this.spawn() : undefined
  }

  /** A new worker, in the lane given or the first without one. */
  private spawn(lane = this.lanes.indexOf(undefined)): Slot {
    const { entry, eval: isScript } = workerEntry('search-worker', import.meta.url)
    // Sync points made before it started are heard already: it has nothing cached from before them.
    const workerData = { syncFolder: processFolder('search'), heard: this.syncs }
    const worker = new Worker(entry, { eval: isScript, workerData })
    const slot: Slot = { worker, lane }
    this.slots.add(slot)
    this.lanes[slot.lane] = slot
    worker.unref()
    // A worker that dies on its own (out of memory) leaves the pool; the call it had is failed by
    // its own exit listener, and a call waiting for a worker gets a new one.
    worker.once('exit', () => {
      this.exits++
      this.forget(slot)
      if (this.waiting.length > 0 && this.slots.size < this.size) this.release(this.spawn())
    })
    worker.on('error', (error) => {
      slot.failure = error
    })
    return slot
  }

  private release(slot: Slot): void {
    slot.call = undefined
    if (!this.slots.has(slot)) return
    // The longest waiting part of this lane, or of none.
    const at = this.waiting.findIndex((waiter) => waiter.lane === undefined || waiter.lane === slot.lane)
    const waiter = at === -1 ? undefined : this.waiting.splice(at, 1)[0]
    if (waiter) {
      waiter.start(slot)
      return
    }
    slot.worker.unref()
    this.idle.push(slot)
  }

  /** Terminates a worker that is running a stopped call, and starts one in its place. */
  private replace(slot: Slot): void {
    slot.worker.removeAllListeners('message')
    this.forget(slot)
    void slot.worker.terminate()
    const fresh = this.spawn()
    this.release(fresh)
  }

  private forget(slot: Slot): void {
    this.slots.delete(slot)
    if (this.lanes[slot.lane] === slot) this.lanes[slot.lane] = undefined
    const at = this.idle.indexOf(slot)
    if (at !== -1) this.idle.splice(at, 1)
  }
}

function workerError(name: string, message: string): Error {
  const error = new Error(message)
  error.name = name
  return error
}

let pool: SearchPool | undefined

/** The process's one pool, started at its first use. */
export function searchPool(): SearchPool {
  pool ??= new SearchPool(Math.max(1, availableParallelism()))
  return pool
}
