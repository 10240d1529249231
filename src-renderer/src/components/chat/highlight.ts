/**
 * Highlighting outside Markdown: the same highlight.js grammars (lowlight's `common` set) that
 * rehype-highlight uses for the answer's code blocks, so a file in a tool card is coloured by the
 * same classes and the same theme rules (chat.css, `.hljs-*`).
 */
import { common, createLowlight } from 'lowlight'

const lowlight = createLowlight(common)

/** Extensions whose language highlight.js knows under another name, or not as an alias. */
const EXTENSION_LANGUAGES: Record<string, string> = {
  cjs: 'javascript',
  mjs: 'javascript',
  jsx: 'javascript',
  cts: 'typescript',
  mts: 'typescript',
  tsx: 'typescript',
  yml: 'yaml',
  htm: 'xml',
  html: 'xml',
  svg: 'xml',
  vue: 'xml',
  jsonc: 'json',
  toml: 'ini',
  sh: 'bash',
  zsh: 'bash',
  h: 'c',
  hpp: 'cpp',
  cc: 'cpp',
  rs: 'rust',
  py: 'python',
  rb: 'ruby',
  kt: 'kotlin',
  md: 'markdown',
}

/** The language to highlight a file in, from its name; undefined for plain text. */
export function languageForPath(path: string): string | undefined {
  const name = path.split(/[\\/]/).pop() ?? path
  if (/^dockerfile$/i.test(name)) return lowlight.registered('dockerfile') ? 'dockerfile' : undefined
  if (/^makefile$/i.test(name)) return 'makefile'
  const dot = name.lastIndexOf('.')
  if (dot <= 0) return undefined
  const extension = name.slice(dot + 1).toLowerCase()
  const language = EXTENSION_LANGUAGES[extension] ?? extension
  return lowlight.registered(language) ? language : undefined
}

/** A run of text and the highlight.js classes it carries. */
export interface Token {
  text: string
  className?: string
}

interface HastLike {
  type: string
  value?: string
  properties?: { className?: unknown }
  children?: HastLike[]
}

/**
 * Highlights `text` as a whole (a comment or string spanning lines stays one token) and splits it
 * into lines of tokens, so each line can sit next to its number.
 */
export function highlightLines(text: string, language: string | undefined): Token[][] {
  if (!language) return text.split('\n').map((line) => (line ? [{ text: line }] : []))
  let tree: HastLike
  try {
    tree = lowlight.highlight(language, text) as HastLike
  } catch {
    return highlightLines(text, undefined)
  }
  const lines: Token[][] = [[]]
  const walk = (node: HastLike, classes: string[]) => {
    if (node.type === 'text') {
      const className = classes.length > 0 ? classes.join(' ') : undefined
      const parts = (node.value ?? '').split('\n')
      parts.forEach((part, index) => {
        if (index > 0) lines.push([])
        if (part)
          (lines[lines.length - 1] as Token[]).push(className ? { text: part, className } : { text: part })
      })
      return
    }
    const own = node.properties?.className
    const next = Array.isArray(own)
      ? [...classes, ...own.filter((c): c is string => typeof c === 'string')]
      : classes
    for (const child of node.children ?? []) walk(child, next)
  }
  walk(tree, [])
  return lines
}
