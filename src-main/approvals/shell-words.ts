/**
 * The words of a parsed shell command: what bash makes of each after quote removal, when that is
 * known before it runs, and the files they name. Shared by the parser (shell-command.ts), the
 * wrappers it strips (shell-wrappers.ts) and the options it weighs (risky-options.ts).
 */
import { homedir } from 'node:os'
import { basename, isAbsolute, resolve } from 'node:path'
import type { Node } from 'web-tree-sitter'

/** A word of the command line: `value` is what bash would pass, or null when it depends on an expansion. */
export interface Word {
  node: Node
  raw: string
  value: string | null
}

/** A value that may be part of a word (`--output=FILE`, `-oFILE`): a tilde expands only where `raw` starts with one. */
export type WordText = Pick<Word, 'raw' | 'value'>

export const SUBSTITUTIONS = ['command_substitution', 'process_substitution']
const EXPANSIONS = new Set([...SUBSTITUTIONS, 'simple_expansion', 'expansion', 'arithmetic_expansion'])

export function toWord(node: Node): Word {
  return { node, raw: node.text, value: literal(node) }
}

export function display(word: Word | undefined): string {
  return word === undefined ? '' : (word.value ?? word.raw)
}

/** The program's name, for matching wrappers and file commands: `/usr/bin/sudo` is sudo. */
export function commandName(word: Word | undefined): string {
  return word?.value ? basename(word.value) : ''
}

/**
 * Whether bash makes the word into something not written here: an expansion, a glob (`*`, `?`, `[…]`
 * become the names of files, which the model can create: a file named `-O`), or the `{}` that
 * find -exec and xargs -I fill in.
 */
export function knownOnlyWhenRun(word: Word): boolean {
  return word.value === null || isGlob(word.node) || word.value.includes('{}')
}

function isGlob(node: Node): boolean {
  if (node.type === 'word') return /(?:^|[^\\])[*?[]/.test(node.text)
  return node.type === 'concatenation' && node.namedChildren.some((child) => child !== null && isGlob(child))
}

export function resolvePath(word: WordText, cwd: string | null): string | null {
  // Tilde expansion happens only for an unquoted `~` at the start.
  return resolveText(word.value, word.raw.startsWith('~'), cwd)
}

export function resolveText(value: string | null, tilde: boolean, cwd: string | null): string | null {
  // `{}` is the file find -exec or xargs -I puts in: unknown here.
  if (value === null || value.includes('{}')) return null
  if (tilde) {
    if (value === '~' || value.startsWith('~/')) return resolve(homedir(), value.slice(2))
    return null
  }
  if (isAbsolute(value)) return resolve(value)
  return cwd === null ? null : resolve(cwd, value)
}

/** What bash makes of a word after quote removal, or null when it depends on an expansion. */
function literal(node: Node): string | null {
  switch (node.type) {
    case 'word':
      // Unquoted, a backslash keeps the next character; before a newline it joins lines.
      return node.text.replace(/\\([\s\S])/g, (_, next: string) => (next === '\n' ? '' : next))
    case 'raw_string':
      return node.text.slice(1, -1)
    case 'ansi_c_string':
      return decodeAnsiC(node.text.slice(2, -1))
    case 'string':
      if (node.namedChildren.some((child) => child?.type !== 'string_content')) return null
      // Inside double quotes a backslash escapes only $ ` " \ and newline.
      return node.text
        .slice(1, -1)
        .replace(/\\([$`"\\\n])/g, (_, next: string) => (next === '\n' ? '' : next))
    case 'concatenation': {
      if (expandsBraces(node)) return null
      const parts = node.children.map((child) => (child.isNamed ? literal(child) : child.text))
      return parts.includes(null) ? null : parts.join('')
    }
    default:
      if (EXPANSIONS.has(node.type) || node.descendantsOfType([...EXPANSIONS]).length > 0) return null
      return node.text
  }
}

/**
 * Brace expansion makes several words of one — `{/etc/passwd,x}`, `{--output=f,x}` — so none of
 * them is this word. Only unquoted braces and commas count: `{'a,b'}` stays one word.
 */
function expandsBraces(node: Node): boolean {
  if (node.children.some((child) => child.type === 'brace_expression')) return true
  const unquoted = node.children.map((child) => (child.type === 'word' ? child.text : '\u0000')).join('')
  return /\{[^{}]*(?:,|\.\.)[^{}]*\}/.test(unquoted.replace(/\\./g, '\u0000'))
}

/** `$'…'` strings: C escapes, including \xHH, \uHHHH, \UHHHHHHHH and octal \NNN; unknown ones stay as written. */
function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[\da-fA-F]{1,2}|u[\da-fA-F]{1,4}|U[\da-fA-F]{1,8}|[0-7]{1,3}|[\s\S])/g,
    (all, code: string) => {
      if (/^[xuU]./.test(code)) return String.fromCodePoint(Number.parseInt(code.slice(1), 16))
      if (/^[0-7]/.test(code)) return String.fromCharCode(Number.parseInt(code, 8))
      const named = 'ntrabeEfv'.indexOf(code)
      if (named !== -1) return '\n\t\r\x07\b\x1b\x1b\f\v'.charAt(named)
      return `\\'"?`.includes(code) ? code : all
    },
  )
}
