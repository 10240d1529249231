/**
 * A search worker's entry: runs the parts of glob and grep calls, one at a time, and posts back
 * progress and the result; between calls it keeps its tree cache warm. The main thread terminates
 * it to stop a call.
 */

import { watch } from 'node:fs'
import v8 from 'node:v8'
import { parentPort, workerData } from 'node:worker_threads'
import { globJob } from './glob-job'
import { grepJob } from './grep-job'
import type { JobContext } from './search-call'
import { TreeCache } from './tree-cache'
import type { SearchKind, SearchReply, SearchRequest } from './worker-pool'

// A pattern that backtracks without end, like (a+)+$, moves to V8's linear-time engine once it
// backtracks too much, so such a grep ends in milliseconds rather than at its timeout. V8's flags
// are the process's, so setting it here turns it on for every thread once a search has run; the
// main thread runs no model regex. The linear engine does not take the `i` flag: a case-insensitive
// pattern runs until the call's timeout, when its worker is terminated.
v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks')

const port = parentPort
// Plain: only a wrong build or import gets here, and no caller could do anything about it.
if (!port) throw new Error('search-worker.ts runs as a worker thread')

const jobs = { grep: grepJob, glob: globJob } as Record<
  SearchKind,
  (plan: never, part: never, context: JobContext) => Promise<unknown>
>
const cache = new TreeCache()
/** Parts running now: background work waits for none to be. */
let running = 0
let settleWaiters: number[] = []
const cancels = new Map<number, AbortController>()
/** How long background work holds the thread before the event loop turns (messages, watch events). */
const BACKGROUND_SLICE_MS = 5
/**
 * Background work starts once no part has run for this long: a call's parts come one after another,
 * and a slice started between two of them would hold the next one up.
 */
const IDLE_BEFORE_BACKGROUND_MS = 20
let idleTimer: ReturnType<typeof setTimeout> | undefined

/** Starts background work after the idle delay, or at once when someone waits for it. */
function scheduleBackground(now = false): void {
  if (idleTimer) clearTimeout(idleTimer)
  idleTimer = undefined
  if (now) setImmediate(background)
  else idleTimer = setTimeout(background, IDLE_BEFORE_BACKGROUND_MS)
}

const post = (reply: SearchReply) => port.postMessage(reply)

function background(): void {
  if (running > 0) return
  if (cache.work(performance.now() + BACKGROUND_SLICE_MS)) {
    setImmediate(background)
    return
  }
  for (const id of settleWaiters) post({ id, type: 'settled' })
  settleWaiters = []
}

/** The highest sync point heard, and the parts waiting for a higher one. */
const { syncFolder, heard: heardAtStart } = workerData as { syncFolder: string; heard: number }
let heard = heardAtStart
const hearing = new Map<number, () => void>()
/** A sync point not heard by then means the watch of the sync folder is gone: no cache is trusted. */
const SYNC_WAIT_MS = 2000

watch(syncFolder, { persistent: false }, (_event, name) => {
  const sync = Number(name)
  if (!(sync > heard)) return
  heard = sync
  for (const [waited, resolve] of hearing) if (waited <= heard) resolve()
})

/** Resolves once the sync point is heard: every change made before it has reached the cache. */
function hear(sync: number): Promise<void> {
  if (sync <= heard) return Promise.resolve()
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      hearing.delete(sync)
      cache.dropAll()
      resolve()
    }, SYNC_WAIT_MS)
    hearing.set(sync, () => {
      clearTimeout(timer)
      hearing.delete(sync)
      resolve()
    })
  })
}

async function run({ id, kind, plan, part, sync }: Extract<SearchRequest, { type: 'run' }>): Promise<void> {
  running++
  if (idleTimer) clearTimeout(idleTimer)
  const cancel = new AbortController()
  cancels.set(id, cancel)
  try {
    if (sync !== undefined) await hear(sync)
    const progress = (done: number, found: number) => post({ id, type: 'progress', done, found })
    const result = await jobs[kind](plan as never, part as never, { progress, cache, signal: cancel.signal })
    post({ id, type: 'done', result })
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error))
    post({ id, type: 'error', name, message })
  } finally {
    cancels.delete(id)
    running--
    cache.checkAfterCall()
    scheduleBackground(settleWaiters.length > 0)
  }
}

port.on('message', (request: SearchRequest) => {
  if (request.type === 'run') void run(request)
  else if (request.type === 'cancel') cancels.get(request.id)?.abort(new Error('cancelled'))
  else if (request.type === 'drop') cache.drop(request.root)
  else if (request.type === 'stats') post({ id: request.id, type: 'stats', stats: cache.stats() })
  else {
    settleWaiters.push(request.id)
    scheduleBackground(true)
  }
})
