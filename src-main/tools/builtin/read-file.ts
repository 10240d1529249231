import type { FileHandle } from 'node:fs/promises'
import { type Static, Type } from '@sinclair/typebox'
import type { ToolDisplay } from '../../../src-shared/tools'
import { defineTool } from '../define-tool'
import { ToolArgumentError, ToolError } from '../errors'
import {
  BINARY_PROBE_BYTES,
  formatBytes,
  looksBinary,
  openRegularFile,
  readOpened,
  sha256,
  tooLarge,
  WHOLE_FILE_CEILING,
} from '../files'
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
import { streamTextWindow, textWindow } from '../text-window'
import type { ToolContext } from '../types'

/** The text view reads whole files up to this size. */
export const TEXT_VIEW_CEILING = WHOLE_FILE_CEILING
/** Byte views send the whole file to the model, hence the far lower ceiling. */
export const BYTE_VIEW_CEILING = 256 * 1024
export const DEFAULT_MAX_LINES = 2000
export const MAX_MAX_LINES = 5000
export { MAX_LINE_CHARS } from '../text-window'

/** What a text read refused at the ceiling is told: the same file can be read in windows. */
const READ_IN_WINDOWS =
  `Read it in windows, with startLine and maxLines (up to ${MAX_MAX_LINES} lines each), ` +
  'which are streamed from the start of the file to the lines asked for.'

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
  /** Of the whole file; absent when a file too large to read whole was streamed only to the window. */
  sha256?: string
  /** Absent when a streamed window stopped before the end of the file: the count is not known. */
  totalLines?: number
  startLine: number
  endLine: number
  truncated: boolean
  view?: 'hex' | 'base64'
  /** Only for a file too large to read whole: how many bytes from its start were read for the window. */
  bytesRead?: number
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
  const opened = await openRegularFile(real, display)
  try {
    if (view === 'text' && opened.size > TEXT_VIEW_CEILING) {
      return await readLargeWindow(args, opened.handle, opened.size, display, context.signal)
    }
    const bytes = await readOpened(
      opened,
      display,
      view === 'text' ? TEXT_VIEW_CEILING : BYTE_VIEW_CEILING,
      context.signal,
      view === 'text' ? READ_IN_WINDOWS : '',
    )
    const digest = sha256(bytes)
    // Recorded on every read, partial or not, byte view or text: what write_file's guard checks.
    await context.ledger.record(real, digest)
    const common = { path: display, size: bytes.length, sha256: digest }
    if (view !== 'text') {
      const content = bytes.toString(view)
      return {
        result: { content, ...common, totalLines: 0, startLine: 0, endLine: 0, truncated: false, view },
      }
    }
    refuseBinary(bytes, display)
    const startLine = args.startLine ?? 1
    const { content, lines, totalLines, endLine, truncated } = textWindow(
      bytes,
      display,
      startLine,
      args.maxLines ?? DEFAULT_MAX_LINES,
    )
    return { result: { content, ...common, totalLines, startLine, endLine, truncated }, lines }
  } finally {
    await opened.handle.close()
  }
}

function refuseBinary(head: Buffer, display: string): void {
  if (looksBinary(head.subarray(0, BINARY_PROBE_BYTES))) {
    throw new ToolError(
      'validation_failed',
      `"${display}" looks binary (a NUL byte in its first 8 KiB). Read it with view "hex" or view "base64" instead.`,
    )
  }
}

/**
 * A window of a file over the text view's ceiling, streamed from its start only to the lines asked
 * for. A read that names no window is refused: the ceiling is on reading whole, and the model is
 * told how to ask. Nothing is recorded in the freshness ledger, since the whole file's hash is not
 * known — and write_file and edit_file refuse a file this large whatever was read of it.
 */
async function readLargeWindow(
  args: Parameters,
  handle: FileHandle,
  size: number,
  display: string,
  signal: AbortSignal,
): Promise<{ result: ReadFileResult; lines: string[] }> {
  if (args.startLine === undefined && args.maxLines === undefined) {
    throw tooLarge(display, TEXT_VIEW_CEILING, `It is ${formatBytes(size)}. ${READ_IN_WINDOWS}`)
  }
  const head = Buffer.alloc(BINARY_PROBE_BYTES)
  const { bytesRead: headBytes } = await handle.read(head, 0, head.length, 0)
  refuseBinary(head.subarray(0, headBytes), display)
  const startLine = args.startLine ?? 1
  const window = await streamTextWindow(
    handle,
    display,
    startLine,
    args.maxLines ?? DEFAULT_MAX_LINES,
    signal,
  )
  const { endLine, totalLines, bytesRead } = window
  const extent =
    totalLines === undefined
      ? `read ${formatBytes(bytesRead)} from its start to reach this window, so its line count is not known`
      : `read to its end: ${totalLines} lines`
  const notice =
    `[${display} is ${formatBytes(size)} (${size} bytes), over the ${formatBytes(TEXT_VIEW_CEILING)} read_file reads whole; ` +
    `${extent}.${endLine === totalLines ? '' : ` Read more with startLine/maxLines (next: startLine ${endLine + 1}).`} ` +
    'A file this large cannot be changed with write_file or edit_file.]'
  const result: ReadFileResult = {
    content: window.content ? `${window.content}\n${notice}` : notice,
    path: display,
    size,
    ...(totalLines !== undefined && { totalLines }),
    startLine,
    endLine,
    truncated: window.truncated,
    bytesRead,
  }
  return { result, lines: window.lines }
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
    'startLine/maxLines for more of a long file. A file over 10 MiB is read only in windows: give startLine ' +
    'and/or maxLines. Binary files need view "hex" or "base64" (up to 256 KiB). ' +
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
