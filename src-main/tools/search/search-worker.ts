/**
 * A search worker's entry: runs the plans of glob and grep calls, one at a time, and posts back
 * progress and the result. The main thread terminates it to stop a call.
 */
import v8 from 'node:v8'
import { parentPort } from 'node:worker_threads'
import { globJob } from '../builtin/glob'
import { grepJob } from '../builtin/grep'
import type { SearchReply, SearchRequest } from './worker-pool'

// A pattern that backtracks without end, like (a+)+$, moves to V8's linear-time engine once it
// backtracks too much, so such a grep ends in milliseconds rather than at its timeout. V8's flags
// are the process's, so setting it here turns it on for every thread once a search has run; the
// main thread runs no model regex. The linear engine does not take the `i` flag: a case-insensitive
// pattern runs until the call's timeout, when its worker is terminated.
v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks')

const port = parentPort
if (!port) throw new Error('search-worker.ts runs as a worker thread')

const jobs = { grep: grepJob, glob: globJob } as Record<
  SearchRequest['kind'],
  (plan: never, progress: (done: number, found: number) => void) => Promise<unknown>
>

port.on('message', async ({ id, kind, plan }: SearchRequest) => {
  const post = (reply: SearchReply) => port.postMessage(reply)
  try {
    const result = await jobs[kind](plan as never, (done, found) =>
      post({ id, type: 'progress', done, found }),
    )
    post({ id, type: 'done', result })
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error))
    post({ id, type: 'error', name, message })
  }
})
