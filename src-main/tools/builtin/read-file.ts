import { type Static, Type } from '@sinclair/typebox'
import type { ToolDisplay } from '../../../src-shared/tools'
import { defineTool } from '../define-tool'
import { ToolArgumentError, ToolError } from '../errors'
import { BINARY_PROBE_BYTES, looksBinary, readBounded, sha256, WHOLE_FILE_CEILING } from '../files'
import {
  checkPath,
  describePath,
  loadPathPolicy,
  pathArgument,
  pathToolSettings,
  resolveAndValidatePath,
} from '../paths'
import { withDisplay } from '../pipeline/shape'
import { registerTool } from '../registry'
import type { ToolContext } from '../types'

/** The text view reads whole files up to this size. */
export const TEXT_VIEW_CEILING = WHOLE_FILE_CEILING
/** Byte views send the whole file to the model, hence the far lower ceiling. */
export const BYTE_VIEW_CEILING = 256 * 1024
export const DEFAULT_MAX_LINES = 2000
export const MAX_MAX_LINES = 5000
/** Longer lines are cut: minified code would otherwise fill the window with one line. */
export const MAX_LINE_CHARS = 2000
/** The numbered window, measured as JSON text, stays well under the cap on a result (DEFAULT_MAX_RESULT_CHARS). */
export const MAX_WINDOW_CHARS = 80_000

const Parameters = Type.Object(
  {
    path: pathArgument('file'),
    startLine: Type.Optional(
      Type.Integer({ minimum: 1, description: 'First line to return, 1-based (text view only). Default 1.' }),
    ),
    maxLines: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_MAX_LINES,
        description: `How many lines to return (text view only). Default ${DEFAULT_MAX_LINES}.`,
      }),
    ),
    view: Type.Optional(
      Type.Union([Type.Literal('text'), Type.Literal('hex'), Type.Literal('base64')], {
        description:
          'text (default): numbered lines. hex or base64: the raw bytes, for binary files up to 256 KiB.',
      }),
    ),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

export interface ReadFileResult {
  content: string
  path: string
  size: number
  sha256: string
  totalLines: number
  startLine: number
  endLine: number
  truncated: boolean
  view?: 'hex' | 'base64'
}

/** `cat -n` style: the line number right-aligned in six columns, a tab, the line. */
function numbered(number: number, line: string): string {
  return `${String(number).padStart(6)}\t${line}`
}

/** Counts lines and decodes only the requested window: a 10 MiB file is never split whole. */
function textWindow(bytes: Buffer, display: string, startLine: number, maxLines: number) {
  const NEWLINE = 0x0a
  let totalLines = 0
  let windowStart = bytes.length
  for (let at = 0; at < bytes.length; ) {
    if (totalLines === startLine - 1) windowStart = at
    totalLines++
    const next = bytes.indexOf(NEWLINE, at)
    at = next === -1 ? bytes.length : next + 1
  }
  if (totalLines > 0 && startLine > totalLines) {
    throw new ToolArgumentError(
      `startLine ${startLine} is past the end of "${display}", which has ${totalLines} lines`,
      'startLine',
    )
  }
  const out: string[] = []
  const lines: string[] = []
  let size = 0
  let truncated = false
  let endLine = startLine - 1
  for (let at = windowStart; at < bytes.length && endLine < startLine - 1 + maxLines; ) {
    const next = bytes.indexOf(NEWLINE, at)
    const stop = next === -1 ? bytes.length : next
    let line = bytes.toString('utf8', at, stop).replace(/\r$/, '')
    at = stop + 1
    if (line.length > MAX_LINE_CHARS) {
      line = `${line.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} characters]`
      truncated = true
    }
    const entry = numbered(endLine + 1, line)
    size += JSON.stringify(entry).length
    if (size > MAX_WINDOW_CHARS && out.length > 0) {
      truncated = true
      break
    }
    out.push(entry)
    lines.push(line)
    endLine++
  }
  let content = out.join('\n')
  if (truncated) {
    content += `\n[Output truncated to fit: use startLine/maxLines to read more (next: startLine ${endLine + 1}).]`
  }
  return { content, lines, totalLines, endLine, truncated }
}

/** The result the model reads and, for the text view, the window's own lines, for the card. */
async function readFile(
  args: Parameters,
  context: ToolContext,
): Promise<{ result: ReadFileResult; lines?: string[] }> {
  const view = args.view ?? 'text'
  if (view !== 'text' && (args.startLine !== undefined || args.maxLines !== undefined)) {
    throw new ToolArgumentError(`startLine and maxLines apply to the text view only, not to view "${view}"`)
  }
  const policy = await loadPathPolicy(context)
  const { real } = await resolveAndValidatePath(args.path, context, policy)
  const display = policy.display(real)
  const bytes = await readBounded(
    real,
    display,
    view === 'text' ? TEXT_VIEW_CEILING : BYTE_VIEW_CEILING,
    context.signal,
  )
  const digest = sha256(bytes)
  // Recorded on every read, partial or not, byte view or text: what write_file's guard checks.
  await context.ledger.record(real, digest)
  const common = { path: display, size: bytes.length, sha256: digest }
  if (view !== 'text') {
    const content = bytes.toString(view)
    return { result: { content, ...common, totalLines: 0, startLine: 0, endLine: 0, truncated: false, view } }
  }
  if (looksBinary(bytes.subarray(0, BINARY_PROBE_BYTES))) {
    throw new ToolError(
      'validation_failed',
      `"${display}" looks binary (a NUL byte in its first 8 KiB). Read it with view "hex" or view "base64" instead.`,
    )
  }
  const startLine = args.startLine ?? 1
  const { content, lines, totalLines, endLine, truncated } = textWindow(
    bytes,
    display,
    startLine,
    args.maxLines ?? DEFAULT_MAX_LINES,
  )
  return { result: { content, ...common, totalLines, startLine, endLine, truncated }, lines }
}

/** The window as the card shows it: the file's own lines, unnumbered, under its path and place. */
function fileDisplay(result: ReadFileResult, lines: string[]): ToolDisplay {
  const { path, startLine, endLine, totalLines, truncated } = result
  return { kind: 'file', path, startLine, endLine, totalLines, lines, truncated }
}

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Reads a file. The text view returns numbered lines (like cat -n), 2000 from startLine by default; use ' +
    'startLine/maxLines for more of a long file. Binary files need view "hex" or "base64" (up to 256 KiB). ' +
    'Reading a file is also what allows write_file and edit_file to change it afterwards.',
  parameters: Parameters,
  settings: pathToolSettings('Read files', 'Lets the model read files, as numbered text or raw bytes.'),
  kind: 'read',
  describe: (args, context) => describePath(args.path, context),
  check: (args, context) => checkPath(args.path, context),
  // A byte view reaches the model whole: hex doubles 256 KiB, plus the JSON around it.
  maxResultChars: 2 * BYTE_VIEW_CEILING + 4096,
  execute: async (args, context) => {
    const { result, lines } = await readFile(args, context)
    return withDisplay(result, lines && fileDisplay(result, lines))
  },
})

registerTool(readFileTool)
