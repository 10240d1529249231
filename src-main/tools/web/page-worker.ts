/**
 * The page converter's entry: turns one HTML page into Markdown (page-markdown.ts) on a thread of
 * its own, posts the result and ends. Readability on a large page is seconds of synchronous work,
 * which on the main thread would hold up every window, turn and timeout meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { htmlToMarkdown } from './page-markdown'

// Plain: only a wrong build or import gets here, and no caller could do anything about it.
if (!parentPort) throw new Error('page-worker.ts runs as a worker thread')
const { html, url } = workerData as { html: string; url: string }
parentPort.postMessage(htmlToMarkdown(html, url))
