/**
 * What a fetched body becomes for the model: an HTML page reduced to its main content (Readability)
 * and written as Markdown (Turndown) with absolute links; text and JSON as they came; anything else
 * (a PDF, an image, an archive) described by its type and size, never dumped.
 */
import { Worker } from 'node:worker_threads'
import { Readability } from '@mozilla/readability'
import { parseHTML } from 'linkedom'
import TurndownService from 'turndown'
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

/** Link schemes a page's links keep; others (`javascript:`, `data:`) become plain text. */
const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:'])

type PageMarkdown = { text: string; title?: string }

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

/** The page's main content as Markdown, its links absolute, and its title. */
export function htmlToMarkdown(html: string, url: string): PageMarkdown {
  const { document } = parseHTML(html)
  const base = absolute(document.querySelector('base[href]')?.getAttribute('href') ?? '', url) ?? url
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const target = absolute(element.getAttribute(attribute) ?? '', base)
      if (target) element.setAttribute(attribute, target)
      else element.removeAttribute(attribute)
    }
  }
  const pageTitle = document.title.trim()
  // Readability's DOM is the browser's; linkedom implements what it uses.
  const article = new Readability(document as unknown as Document, { keepClasses: true }).parse()
  const content = article?.content ?? document.body?.innerHTML ?? ''
  const title = article?.title?.trim() || pageTitle
  return { text: turndown.turndown(content).trim(), ...(title && { title }) }
}

function absolute(link: string, base: string): string | undefined {
  if (link.startsWith('#')) return undefined
  try {
    const target = new URL(link, base)
    return LINK_SCHEMES.has(target.protocol) ? target.href : undefined
  } catch {
    return undefined
  }
}

const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '_',
})
turndown.remove(['script', 'style', 'noscript', 'template', 'iframe'])
// Turndown fences only `<pre><code>`; many documentation sites (Sphinx's, Python's own) write a bare
// `<pre>` of highlighted spans, with the language on a wrapper: `<div class="highlight-python3">`.
turndown.addRule('bare-pre', {
  filter: (node) => node.nodeName === 'PRE' && node.firstElementChild?.nodeName !== 'CODE',
  replacement: (_content, node) => {
    const code = (node.textContent ?? '').replace(/\n$/, '')
    const fence = fenceFor(code)
    return `\n\n${fence}${languageOf(node as HTMLElement)}\n${code}\n${fence}\n\n`
  },
})

/** A code fence longer than any run of backticks in `code`, so the code cannot close it. */
export function fenceFor(code: string): string {
  return '`'.repeat(Math.max(3, ...[...code.matchAll(/`+/g)].map(([run]) => run.length + 1)))
}

/** The language a code block names in its own class or its wrapper's: `language-js`, `highlight-python3`. */
function languageOf(pre: HTMLElement): string {
  const classes = `${pre.getAttribute('class') ?? ''} ${pre.parentElement?.parentElement?.getAttribute('class') ?? ''} ${pre.parentElement?.getAttribute('class') ?? ''}`
  const name = /(?:^|\s)(?:language|lang|highlight)-([\w+#-]+)/.exec(classes)?.[1] ?? ''
  return name === 'default' || name === 'none' ? '' : name.replace(/^python3$/, 'python')
}

// Turndown writes no tables of its own; the page's tables stay tables, as GitHub Markdown has them.
turndown.addRule('table', {
  filter: 'table',
  replacement: (_content, node) => `\n\n${markdownTable(node as HTMLTableElement)}\n\n`,
})

function markdownTable(table: HTMLTableElement): string {
  // Turndown's own DOM (domino, in Node) gives array-likes that do not iterate.
  const rows = Array.from(table.querySelectorAll('tr')).map((row) =>
    Array.from(row.childNodes)
      .filter((cell) => cell.nodeName === 'TH' || cell.nodeName === 'TD')
      .map((cell) => tableCell(cell as HTMLElement)),
  )
  const width = Math.max(0, ...rows.map((row) => row.length))
  if (width === 0) return ''
  const padded = rows.map((row) => [...row, ...Array<string>(width - row.length).fill('')])
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  // GitHub's tables need a head: the first row is it.
  const [head = [], ...body] = padded
  return [line(head), line(Array<string>(width).fill('---')), ...body.map(line)].join('\n')
}

function tableCell(cell: HTMLElement): string {
  return turndown
    .turndown(cell.innerHTML)
    .replace(/\s*\n+\s*/g, ' ')
    .replaceAll('|', '\\|')
    .trim()
}
