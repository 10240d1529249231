/**
 * A grep pattern compiled for the scan: the regular expressions that find and confirm matching
 * lines, and the literal text every match must contain, read off the pattern so that files and
 * stretches of text without it are skipped before any regex runs (and, with a file's trigram
 * summary, before the file is opened).
 */
import { errorMessage } from '../../../src-shared/errors'
import { ToolArgumentError } from '../errors'
import { type TrigramQuery, trigramQuery } from './trigrams'

/** The pattern is not a JavaScript regular expression; the message says how to fix it. */
export class GrepPatternError extends ToolArgumentError {
  override readonly name = 'GrepPatternError'

  constructor(pattern: string, reason: string) {
    super(
      `pattern ${JSON.stringify(pattern)} is not a valid JavaScript regular expression (${reason}). ` +
        'Escape ( ) [ ] { } . * + ? | ^ $ \\ to match them literally, and use caseInsensitive rather than inline flags such as (?i)',
      'pattern',
    )
  }
}

/** A compiled pattern: what grep-scan.ts runs on each file's bytes. */
export interface LineMatcher {
  /** Global and multiline: finds candidates in a whole piece of text at once. */
  scan: RegExp
  /** Confirms a candidate's line on its own, so a match that spans lines is not reported. */
  line: RegExp
  /**
   * Text every match contains, per alternative of the pattern (any alternative, all of its texts):
   * files and stretches without it are skipped before any decoding. Absent when unknown.
   */
  required?: Buffer[][]
  /**
   * The case-insensitive form of `required`: finds, in a piece of text decoded as latin1, a place
   * where some alternative's longest text occurs. Such text is ASCII, which latin1 decodes exactly
   * as UTF-8 does, only several times faster; pieces without it are never decoded as UTF-8.
   */
  candidates?: RegExp
  /** The three-byte sequences a match needs (from the same texts), for files with a summary. */
  query?: TrigramQuery
}

/** The matcher for a pattern; throws GrepPatternError when it is not a JavaScript regular expression. */
export function compilePattern(pattern: string, caseInsensitive: boolean): LineMatcher {
  const flags = caseInsensitive ? 'mi' : 'm'
  let scan: RegExp
  try {
    scan = new RegExp(pattern, `g${flags}`)
  } catch (error) {
    // V8 says "Invalid regular expression: /source/flags: reason"; the reason is what helps.
    const message = errorMessage(error)
    throw new GrepPatternError(pattern, message.slice(message.lastIndexOf(': ') + 2))
  }
  const line = new RegExp(pattern, flags)
  const required = requiredTexts(pattern)
  if (!required) return { scan, line }
  const query = trigramQuery(required)
  if (!caseInsensitive) return { scan, line, required, ...(query && { query }) }
  const longest = required.map(([text]) => String(text).replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'))
  return { scan, line, candidates: new RegExp(longest.join('|'), 'i'), ...(query && { query }) }
}

/**
 * The ASCII texts every match of `pattern` must contain, per top-level alternative, read the way
 * ripgrep finds literals to search for before running the regex. Conservative: any syntax this
 * reading does not follow (groups, back references, escapes other than \d \w \s \b and
 * punctuation) gives undefined, and so does an alternative with no text, which could match anywhere.
 */
export function requiredTexts(pattern: string): Buffer[][] | undefined {
  const alternatives: Buffer[][] = []
  let texts: Buffer[] = []
  let text = ''
  let lastAtomInText = false
  const endText = () => {
    if (text) texts.push(Buffer.from(text))
    text = ''
  }
  const close = () => {
    endText()
    // Longest first: the text whose next occurrence the search jumps to, as likely the rarest.
    alternatives.push(texts.sort((a, b) => b.length - a.length))
    texts = []
  }
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string
    let literal: string | undefined
    if (char === '\\') {
      const escaped = pattern[++i] ?? ''
      if (/^[dDwWsSbB]$/.test(escaped)) literal = undefined
      // Escaped ASCII punctuation stands for itself.
      else if (/^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]$/.test(escaped)) literal = escaped
      else return undefined
    } else if (char === '[') {
      // A class: skip to its closing bracket; `]` right after `[` or `[^` closes it in JavaScript.
      let j = pattern[i + 1] === '^' ? i + 2 : i + 1
      while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1
      i = j
    } else if (char === '(') {
      return undefined
    } else if (char === '|') {
      close()
      lastAtomInText = false
      continue
    } else if (
      char === '*' ||
      char === '?' ||
      char === '+' ||
      (char === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(i)))
    ) {
      const min = char === '+' ? 1 : char === '{' ? Number(/^\{(\d+)/.exec(pattern.slice(i))?.[1]) : 0
      // The repeated atom may be absent: it cannot count as required text.
      if (min === 0 && lastAtomInText) text = text.slice(0, -1)
      endText()
      if (char === '{') i = pattern.indexOf('}', i)
      if (pattern[i + 1] === '?') i++
      lastAtomInText = false
      continue
    } else if (char !== '.' && char !== '^' && char !== '$' && char.charCodeAt(0) < 0x80) {
      literal = char
    }
    if (literal === undefined) endText()
    else text += literal
    lastAtomInText = literal !== undefined
  }
  close()
  return alternatives.every((texts) => texts.length > 0) ? alternatives : undefined
}
