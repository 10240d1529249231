/**
 * An HTML page as Markdown: its main content (Readability, on linkedom's DOM) written by Turndown,
 * links absolute, code fenced, tables kept. Only the page converter's thread (page-worker.ts) loads
 * this module and its libraries: the rest of Atelier starts without them.
 */
import { Readability } from '@mozilla/readability'
import { parseHTML } from 'linkedom'
import TurndownService from 'turndown'
import { fenceFor, type PageMarkdown } from './page-content'

/** Link schemes a page's links keep; others (`javascript:`, `data:`) become plain text. */
const LINK_SCHEMES = new Set(['http:', 'https:', 'mailto:'])

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
