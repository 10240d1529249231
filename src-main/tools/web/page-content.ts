/**
 * What a fetched body becomes for the model: an HTML page reduced to its main content and written
 * as Markdown with absolute links (page-markdown.ts, on a thread of its own); text and JSON as they
 * came; anything else (a PDF, an image, an archive) described by its type and size, never dumped.
 */
import { Worker } from 'node:worker_threads'
import { errorMessage } from '../../../src-shared/errors'
import { ToolError } from '../errors'
import { workerEntry } from '../worker-entry'
import type { WebResponse } from './safe-get'

export interface PageContent {
  /** `markdown`: an HTML page converted; `text`: the body as sent; `described`: a binary body, in words. */
  form: 'markdown' | 'text' | 'described'
  /** What the model reads. */
  text: string
  /** The page's title, when it has one. */
  title?: string
  /** The media type without its parameters (`text/html`), sniffed when the server sent none. */
  mediaType: string
}

/** The body of a response as the model should read it; an HTML page is converted off the main thread. */
export async function pageContent(response: WebResponse, signal: AbortSignal): Promise<PageContent> {
  const mediaType = mediaTypeOf(response)
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') {
    const html = decodeText(response.body, charsetOf(response.contentType) ?? metaCharset(response.body))
    return { form: 'markdown', mediaType, ...(await markdownInWorker(html, response.url, signal)) }
  }
  if (isText(mediaType)) {
    return { form: 'text', mediaType, text: decodeText(response.body, charsetOf(response.contentType)) }
  }
  return { form: 'described', mediaType, text: describeBinary(mediaType, response.body.length) }
}

/** A page's main content as Markdown, and its title when it has one. */
export type PageMarkdown = { text: string; title?: string }

/** htmlToMarkdown on a thread of its own (page-worker.ts), ended at once when the call stops. */
function markdownInWorker(html: string, url: string, signal: AbortSignal): Promise<PageMarkdown> {
  signal.throwIfAborted()
  const { entry, eval: isScript } = workerEntry('page-worker', import.meta.url)
  const worker = new Worker(entry, { eval: isScript, workerData: { html, url } })
  let stop = () => {}
  return new Promise<PageMarkdown>((resolve, reject) => {
    stop = () => reject(signal.reason)
    signal.addEventListener('abort', stop, { once: true })
    worker.once('message', resolve)
    worker.once('error', (error) =>
      reject(new ToolError('execution_failed', `Could not read the page: ${errorMessage(error)}`)),
    )
    worker.once('exit', () =>
      reject(new ToolError('execution_failed', 'The page converter ended without a page.')),
    )
  }).finally(() => {
    signal.removeEventListener('abort', stop)
    void worker.terminate()
  })
}

function mediaTypeOf(response: WebResponse): string {
  const declared = response.contentType.split(';')[0]?.trim().toLowerCase()
  if (declared) return declared
  const start = response.body.subarray(0, 1024)
  if (/^\s*<(!doctype html|html|head|body)/i.test(start.toString('latin1'))) return 'text/html'
  return start.includes(0) ? 'application/octet-stream' : 'text/plain'
}

function isText(mediaType: string): boolean {
  return (
    mediaType.startsWith('text/') ||
    /^application\/(json|xml|javascript|ecmascript|x-ndjson|ndjson|yaml|x-yaml|toml|x-sh|sql|graphql)$/.test(
      mediaType,
    ) ||
    /\+(json|xml|yaml)$/.test(mediaType)
  )
}

function charsetOf(contentType: string): string | undefined {
  return /;\s*charset="?([^";\s]+)/i.exec(contentType)?.[1]
}

/** A page that names its charset only in a `<meta>` near its top. */
function metaCharset(body: Buffer): string | undefined {
  return /<meta[^>]+charset=["']?([\w-]+)/i.exec(body.subarray(0, 2048).toString('latin1'))?.[1]
}

function decodeText(body: Buffer, charset = 'utf-8'): string {
  try {
    return new TextDecoder(charset).decode(body)
  } catch {
    // A charset no decoder knows: UTF-8 shows most pages well enough.
    return new TextDecoder().decode(body)
  }
}

function describeBinary(mediaType: string, bytes: number): string {
  const what =
    mediaType === 'application/pdf'
      ? 'a PDF document'
      : mediaType.startsWith('image/')
        ? 'an image'
        : 'a file'
  return `The URL is ${what} (${mediaType}, ${formatBytes(bytes)}), not a page of text; its contents are not shown.`
}

/** `1.5 MiB`, `830 B`: a size as a person reads it. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`
}

/** A code fence longer than any run of backticks in `code`, so the code cannot close it. */
export function fenceFor(code: string): string {
  return '`'.repeat(Math.max(3, ...[...code.matchAll(/`+/g)].map(([run]) => run.length + 1)))
}
