/**
 * Grep's scan engine: reads a file and finds its lines that match a compiled pattern, skipping
 * what the pattern's required text rules out before any decoding.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { looksBinary, openedAt } from '../files'
import type { LineMatcher } from './grep-pattern'
import type { FileSummary } from './tree-cache'
import { mayMatch } from './trigrams'

/** Longer lines are cut: one minified line could otherwise fill the model's context. */
export const MAX_LINE_CHARS = 500
/**
 * Text is decoded and scanned in pieces of about this size, each ending after a newline. V8 puts
 * strings over 128 KiB in its large-object space, and allocating those made decoding a 1 MB file
 * several times slower than searching it.
 */
const CHUNK_BYTES = 16 * 1024
/** No symlink is followed, and opening a FIFO that raced in must not block. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/** Why a file was not searched. */
export type SkipReason = 'binary' | 'too_large' | 'unreadable' | 'moved'

/** A matching line of a file. */
export interface MatchedLine {
  /** 1-based. */
  line: number
  /** The line, cut to MAX_LINE_CHARS characters with a trailing "…". */
  text: string
}

/**
 * Searches files one at a time, through one buffer that grows to the largest file read. The calls
 * are synchronous: with a thread-pool round trip for each open, stat, read and close, a search of
 * node_modules took 3 to 5 times longer. It runs in a search worker, which a stop terminates.
 */
export class FileSearcher {
  private buffer = Buffer.allocUnsafe(64 * 1024)
  /** Files opened so far (those a summary ruled out are not): the worker's cache figures count them. */
  filesRead = 0

  constructor(
    private readonly matcher: LineMatcher,
    private readonly maxBytes: number,
  ) {}

  /**
   * The file's matching lines, at most `limit`; or why it was not searched. With a summary of the
   * file as it is now, a file it rules out is not opened.
   */
  search(path: string, limit: number, summary?: FileSummary): MatchedLine[] | SkipReason {
    if (summary) {
      if (summary.size > this.maxBytes) return 'too_large'
      if (summary.binary) return 'binary'
      const { query } = this.matcher
      if (query && summary.table && !mayMatch(summary.table, query)) return []
    }
    let fd: number
    try {
      fd = openSync(path, OPEN_FLAGS)
    } catch {
      return 'unreadable'
    }
    this.filesRead++
    try {
      const bytes = this.read(fd)
      if (typeof bytes === 'string') return bytes
      const lines = matchLines(bytes, this.matcher, limit)
      // A folder on the way may have been swapped for a link to outside since it was listed. What
      // was read through it reaches no one unless it matched, so only then is the file checked.
      if (lines.length > 0 && !openedAt(fd, path)) return 'moved'
      return lines
    } finally {
      closeSync(fd)
    }
  }

  private read(fd: number): Buffer | SkipReason {
    try {
      const stats = fstatSync(fd)
      if (!stats.isFile()) return 'unreadable'
      if (stats.size > this.maxBytes) return 'too_large'
      if (this.buffer.length < stats.size) this.buffer = Buffer.allocUnsafe(stats.size)
      // A file that grows meanwhile is searched up to the size it had; the cap is never passed.
      let length = 0
      while (length < stats.size) {
        const read = readSync(fd, this.buffer, length, stats.size - length, length)
        if (read === 0) break
        length += read
      }
      const bytes = this.buffer.subarray(0, length)
      return looksBinary(bytes) ? 'binary' : bytes
    } catch {
      return 'unreadable'
    }
  }
}

/** The matching lines of a file's bytes, at most `limit`, in order. */
function matchLines(bytes: Buffer, matcher: LineMatcher, limit: number): MatchedLine[] {
  const found: MatchedLine[] = []
  const { required } = matcher
  if (required && !required.some((texts) => texts.every((text) => bytes.includes(text)))) return found
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
  // Line numbers are counted only up to where a match is, and only once: `lineAtCounted` is the
  // line at byte `counted`.
  let counted = bom ? 3 : 0
  let lineAtCounted = 1
  for (let start = counted; start < bytes.length && found.length < limit; ) {
    if (required) {
      // Jump to the line of the next place the required text occurs: no line before it can match.
      const next = nextOccurrence(bytes, required, start)
      if (next === -1) break
      start = Math.max(start, bytes.lastIndexOf(10, next) + 1)
    }
    const newline = bytes.indexOf(10, start + CHUNK_BYTES)
    const end = newline === -1 ? bytes.length : newline + 1
    if (matcher.candidates && !matcher.candidates.test(bytes.toString('latin1', start, end))) {
      start = end
      continue
    }
    const text = bytes.toString('utf8', start, end)
    const { scan } = matcher
    scan.lastIndex = 0
    // The line number at `previousStart` in this piece; 0 until the piece's first candidate.
    let line = 0
    let previousStart = 0
    for (let match = scan.exec(text); match; match = scan.exec(text)) {
      // The empty position after a piece's final newline is not a line of the file.
      if (match.index === text.length && text.endsWith('\n')) break
      if (line === 0) {
        lineAtCounted += countNewlineBytes(bytes, counted, start)
        counted = start
        line = lineAtCounted
      }
      const lineStart = match.index === 0 ? 0 : text.lastIndexOf('\n', match.index - 1) + 1
      const newlineAt = text.indexOf('\n', match.index)
      const lineEnd = newlineAt === -1 ? text.length : newlineAt
      line += countNewlines(text, previousStart, lineStart)
      previousStart = lineStart
      const content = text.slice(lineStart, text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd)
      if (matcher.line.test(content)) {
        found.push({ line, text: cut(content) })
        if (found.length === limit) break
      }
      if (newlineAt === -1) break
      scan.lastIndex = lineEnd + 1
    }
    start = end
  }
  return found
}

/** Where the longest text of any alternative next occurs, or -1. */
function nextOccurrence(bytes: Buffer, required: Buffer[][], from: number): number {
  let next = -1
  for (const [text] of required) {
    const at = bytes.indexOf(text, from)
    if (at !== -1 && (next === -1 || at < next)) next = at
  }
  return next
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) count++
  return count
}

function countNewlineBytes(bytes: Buffer, from: number, to: number): number {
  let count = 0
  for (let at = bytes.indexOf(10, from); at !== -1 && at < to; at = bytes.indexOf(10, at + 1)) count++
  return count
}

function cut(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line
  const high = line.charCodeAt(MAX_LINE_CHARS - 1)
  // Never split a surrogate pair.
  const end = high >= 0xd800 && high <= 0xdbff ? MAX_LINE_CHARS - 1 : MAX_LINE_CHARS
  return `${line.slice(0, end)}…`
}
