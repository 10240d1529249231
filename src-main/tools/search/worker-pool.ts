/**
 * The threads glob and grep walk and match in. A model's regular expression cannot be interrupted
 * once it runs, and a big walk is seconds of synchronous work: on the main thread either would
 * freeze every window and turn. Here the main thread only plans a call (resolves its path and policy)
 * and merges what comes back; a worker does the rest. A stop or the timeout terminates the worker
 * doing the call — the only way to end a running RegExp — and the pool starts another in its place.
 *
 * The pool starts lazily, holds up to one worker per core, and runs one call per worker at a time.
 * Idle workers are unref'd, so they never keep a CLI process alive; there is nothing to close.
 */
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { integerParameter, TIMEOUT_SECONDS } from '../settings-policy'

export type SearchKind = 'grep' | 'glob'

/** glob's and grep's timeout setting: past it, the worker doing the call is terminated. */
export const SEARCH_TIMEOUT_DESCRIPTOR = integerParameter(
  'timeoutSeconds',
  'Timeout',
  'A search still going after this (a huge tree, a pattern that backtracks without end) is stopped.',
  TIMEOUT_SECONDS,
  's',
)

/** From the main thread to a worker: one call's plan, plain data only. */
export interface SearchRequest {
  id: number
  kind: SearchKind
  plan: unknown
}

/** From a worker to the main thread. */
export type SearchReply =
  | { id: number; type: 'progress'; done: number; found: number }
  | { id: number; type: 'done'; result: unknown }
  | { id: number; type: 'error'; name: string; message: string }

export interface SearchRunOptions {
  signal: AbortSignal
  onProgress?: (done: number, found: number) => void
}

/**
 * How to start a worker: the built `search-worker.js` beside the bundle (or beside the chunk this
 * module was bundled into), else the source through tsx (tests, the bench). Node 20 does not apply
 * a worker's `--import tsx` to the worker's own entry, so the source is loaded by a small script
 * that registers tsx in the worker first.
 */
export function workerEntry(): { entry: URL | string; eval: boolean } {
  for (const candidate of ['./search-worker.js', '../search-worker.js']) {
    const url = new URL(candidate, import.meta.url)
    if (existsSync(url)) return { entry: url, eval: false }
  }
  const source = JSON.stringify(new URL('./search-worker.ts', import.meta.url).href)
  const script = `import('tsx/esm/api').then(({ register }) => { register(); return import(${source}) })`
  return { entry: script, eval: true }
}

interface Slot {
  worker: Worker
  /** The call it is running, if any. */
  call?: number
  /** What ended it, when it failed on its own (its entry did not load, it ran out of memory). */
  failure?: Error
}

class SearchPool {
  private readonly slots = new Set<Slot>()
  private readonly idle: Slot[] = []
  private readonly waiting: ((slot: Slot) => void)[] = []
  private nextId = 1
  private exits = 0

  constructor(readonly size: number) {}

  /** Runs one call in a worker; rejects with the signal's reason once it aborts, the worker ended. */
  run<T>(kind: SearchKind, plan: unknown, { signal, onProgress }: SearchRunOptions): Promise<T> {
    signal.throwIfAborted()
    return new Promise<T>((resolve, reject) => {
      const id = this.nextId++
      let slot: Slot | undefined
      let settled = false
      const finish = (outcome: () => void) => {
        if (settled) return
        settled = true
        signal.removeEventListener('abort', onAbort)
        outcome()
      }
      const onAbort = () => {
        const waiter = this.waiting.indexOf(start)
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
        else finish(() => reject(workerError(reply.name, reply.message)))
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
        given.worker.postMessage({ id, kind, plan } satisfies SearchRequest)
      }
      signal.addEventListener('abort', onAbort, { once: true })
      const free = this.acquire()
      if (free) start(free)
      else this.waiting.push(start)
    })
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

  private acquire(): Slot | undefined {
    const idle = this.idle.pop()
    if (idle) return idle
    return this.slots.size < this.size ? this.spawn() : undefined
  }

  private spawn(): Slot {
    const { entry, eval: isScript } = workerEntry()
    const worker = new Worker(entry, { eval: isScript })
    const slot: Slot = { worker }
    this.slots.add(slot)
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
    const waiter = this.waiting.shift()
    if (waiter) {
      waiter(slot)
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

/** Runs a glob or grep call's plan in a worker of the pool. */
export function runSearch<T>(kind: SearchKind, plan: unknown, options: SearchRunOptions): Promise<T> {
  return searchPool().run<T>(kind, plan, options)
}
