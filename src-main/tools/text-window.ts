/**
 * read_file's text view: a window of a file's lines, numbered like `cat -n`, cut to fit the model's
 * context. A file read whole is windowed in memory; a file too large to read whole is streamed from
 * its start only as far as the window, so memory stays bounded by the window, never the file.
 */
import type { FileHandle } from 'node:fs/promises'
import { ToolArgumentError } from './errors'

/** Longer lines are cut: minified code would otherwise fill the window with one line. */
export const MAX_LINE_CHARS = 2000
/** The numbered window, measured as JSON text, stays well under the cap on a result (DEFAULT_MAX_RESULT_CHARS). */
export const MAX_WINDOW_CHARS = 80_000
/** A streamed file is read in pieces of this size. */
const STREAM_CHUNK_BYTES = 256 * 1024
/**
 * A line of a streamed window keeps at most this many bytes: enough to decode more than
 * MAX_LINE_CHARS characters (a UTF-8 character takes up to 4 bytes), so the cut is the same as for
 * a file read whole, and a file of one endless line never fills memory.
 */
const MAX_LINE_BYTES = (MAX_LINE_CHARS + 1) * 4
const NEWLINE = 0x0a

/** A window of numbered lines. */
export interface TextWindow {
  /** The numbered lines, and a notice when some were cut or left out. */
  content: string
  /** The window's lines as in the file (cut where too long), for the card. */
  lines: string[]
  endLine: number
  /** A line was cut or the window stopped early to fit. */
  truncated: boolean
}

/** The lines of a window as they are added, each cut to MAX_LINE_CHARS, the whole to MAX_WINDOW_CHARS. */
class WindowLines {
  readonly numbered: string[] = []
  readonly lines: string[] = []
  truncated = false
  /** No more lines fit: maxLines reached, or the next line would pass MAX_WINDOW_CHARS. */
  full = false
  private chars = 0

  constructor(
    private readonly startLine: number,
    private readonly maxLines: number,
  ) {
    this.full = maxLines <= 0
  }

  get endLine(): number {
    return this.startLine - 1 + this.lines.length
  }

  /** Adds the next line, its bytes without the newline. */
  add(bytes: Buffer): void {
    let line = bytes.toString('utf8').replace(/\r$/, '')
    if (line.length > MAX_LINE_CHARS) {
      line = `${line.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} characters]`
      this.truncated = true
    }
    const entry = `${String(this.endLine + 1).padStart(6)}\t${line}`
    this.chars += JSON.stringify(entry).length
    if (this.chars > MAX_WINDOW_CHARS && this.lines.length > 0) {
      this.truncated = true
      this.full = true
      return
    }
    this.numbered.push(entry)
    this.lines.push(line)
    if (this.lines.length === this.maxLines) this.full = true
  }

  window(): TextWindow {
    let content = this.numbered.join('\n')
    if (this.truncated) {
      content += `\n[Output truncated to fit: use startLine/maxLines to read more (next: startLine ${this.endLine + 1}).]`
    }
    return { content, lines: this.lines, endLine: this.endLine, truncated: this.truncated }
  }
}

function pastTheEnd(display: string, startLine: number, totalLines: number): ToolArgumentError {
  return new ToolArgumentError(
    `startLine ${startLine} is past the end of "${display}", which has ${totalLines} lines`,
    'startLine',
  )
}

/** Counts the lines of a file read whole and decodes only the requested window: it is never split whole. */
export function textWindow(
  bytes: Buffer,
  display: string,
  startLine: number,
  maxLines: number,
): TextWindow & { totalLines: number } {
  let totalLines = 0
  let windowStart = bytes.length
  for (let at = 0; at < bytes.length; ) {
    if (totalLines === startLine - 1) windowStart = at
    totalLines++
    const next = bytes.indexOf(NEWLINE, at)
    at = next === -1 ? bytes.length : next + 1
  }
  if (totalLines > 0 && startLine > totalLines) throw pastTheEnd(display, startLine, totalLines)
  const window = new WindowLines(startLine, maxLines)
  for (let at = windowStart; at < bytes.length && !window.full; ) {
    const next = bytes.indexOf(NEWLINE, at)
    const stop = next === -1 ? bytes.length : next
    window.add(bytes.subarray(at, stop))
    at = stop + 1
  }
  return { ...window.window(), totalLines }
}

/** A window streamed from a file too large to read whole, and how far the stream went. */
export interface StreamedWindow extends TextWindow {
  /** Bytes read from the file's start: up to the window's end, or the whole file. */
  bytesRead: number
  /** Known only when the stream reached the end of the file. */
  totalLines?: number
}

/**
 * Streams an opened file from its start to the lines asked for and stops there. Lines before the
 * window are only counted; a line in it keeps at most MAX_LINE_BYTES. `signal` is checked between
 * pieces, so a stop ends a long scan.
 */
export async function streamTextWindow(
  handle: FileHandle,
  display: string,
  startLine: number,
  maxLines: number,
  signal: AbortSignal,
): Promise<StreamedWindow> {
  const chunk = Buffer.allocUnsafe(STREAM_CHUNK_BYTES)
  const window = new WindowLines(startLine, maxLines)
  // The current line's number, the bytes kept of it when it is in the window, and whether any byte
  // of it was read (a file ending in a newline has no line after it).
  let line = 1
  let kept: Buffer[] = []
  let keptBytes = 0
  let lineStarted = false
  let position = 0
  let atEnd = false
  while (!window.full) {
    signal.throwIfAborted()
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position)
    if (bytesRead === 0) {
      atEnd = true
      break
    }
    position += bytesRead
    let at = 0
    while (at < bytesRead && !window.full) {
      const newline = chunk.indexOf(NEWLINE, at)
      const stop = newline === -1 || newline >= bytesRead ? bytesRead : newline
      if (line >= startLine && keptBytes < MAX_LINE_BYTES) {
        // Copied: the chunk is overwritten by the next read.
        const piece = Buffer.from(chunk.subarray(at, Math.min(stop, at + MAX_LINE_BYTES - keptBytes)))
        kept.push(piece)
        keptBytes += piece.length
      }
      lineStarted = lineStarted || stop > at
      if (stop === bytesRead) {
        at = bytesRead
        break
      }
      if (line >= startLine) window.add(Buffer.concat(kept))
      kept = []
      keptBytes = 0
      lineStarted = false
      line++
      at = stop + 1
    }
    // Every byte read was used and the window is full: one more read tells whether the file ends here.
    if (window.full && at === bytesRead) {
      const { bytesRead: more } = await handle.read(chunk, 0, 1, position)
      atEnd = more === 0
    }
  }
  if (atEnd && lineStarted && !window.full && line >= startLine) window.add(Buffer.concat(kept))
  const totalLines = atEnd ? line - (lineStarted ? 0 : 1) : undefined
  if (totalLines !== undefined && totalLines > 0 && startLine > totalLines)
    throw pastTheEnd(display, startLine, totalLines)
  return {
    ...window.window(),
    bytesRead: position,
    ...(totalLines !== undefined && { totalLines }),
  }
}
