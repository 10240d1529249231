/** Reading tool calls and results for display: the shapes the built-in tools return, parsed defensively. */
import type { ToolResultView } from './conversation'

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** Arguments as indented JSON; as written when they are not JSON (yet: they may still be streaming). */
export function prettyArguments(text: string): string {
  if (text.trim() === '') return ''
  const value = parseJson(text)
  return value === undefined ? text : JSON.stringify(value, null, 2)
}

/** The argument that says most about a call, for its header: a path, a command, a pattern. */
export function headline(text: string): string | undefined {
  const value = parseJson(text)
  if (!isRecord(value)) return undefined
  for (const key of ['command', 'path', 'pattern', 'prompt', 'query', 'url']) {
    const found = value[key]
    if (typeof found === 'string' && found.trim()) return found.split('\n')[0]
  }
  return undefined
}

export interface ShellData {
  stdout: string
  stderr: string
  exitCode: number | null
  signal: string | null
  termination: 'exited' | 'timed_out' | 'aborted' | 'signalled'
  durationMs: number
  truncated: { stdout: boolean; stderr: boolean }
}

export function shellData(data: unknown): ShellData | undefined {
  if (!isRecord(data) || typeof data.stdout !== 'string' || typeof data.stderr !== 'string') return undefined
  if (typeof data.termination !== 'string') return undefined
  const truncated = isRecord(data.truncated) ? data.truncated : {}
  return {
    stdout: data.stdout,
    stderr: data.stderr,
    exitCode: typeof data.exitCode === 'number' ? data.exitCode : null,
    signal: typeof data.signal === 'string' ? data.signal : null,
    termination: data.termination as ShellData['termination'],
    durationMs: typeof data.durationMs === 'number' ? data.durationMs : 0,
    truncated: { stdout: truncated.stdout === true, stderr: truncated.stderr === true },
  }
}

export type OutcomeLabel = 'Done' | 'Error' | 'Aborted' | 'Timed out'

/** How a call ended, in one word: from its error type, or a shell's own termination when the type is gone. */
export function outcomeOf(result: ToolResultView): OutcomeLabel {
  const shell = shellData(result.data)
  if (result.errorType === 'aborted' || shell?.termination === 'aborted') return 'Aborted'
  if (result.errorType === 'timeout' || shell?.termination === 'timed_out') return 'Timed out'
  if (!result.isError) return 'Done'
  if (/ was cancelled by the user\.$/.test(result.content)) return 'Aborted'
  if (/ timed out after \d+s and was stopped\.$/.test(result.content)) return 'Timed out'
  return 'Error'
}

/** The executor's notice, a shell's cut streams, or a tool's own `truncated: true`. */
export function isTruncated(result: ToolResultView): boolean {
  if (/\n\n\[Output truncated: showing \d+ of \d+ characters\./.test(result.content)) return true
  const shell = shellData(result.data)
  if (shell && (shell.truncated.stdout || shell.truncated.stderr)) return true
  const parsed = parseJson(result.content)
  return isRecord(parsed) && parsed.truncated === true
}

export function durationOf(result: ToolResultView): number | undefined {
  return result.durationMs ?? shellData(result.data)?.durationMs
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`
  const minutes = Math.floor(ms / 60_000)
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`
}

export interface GeneratedImageRef {
  path: string
  mimeType: string
}

export function imagesOf(result: ToolResultView | undefined): GeneratedImageRef[] {
  if (!result || !isRecord(result.data) || !Array.isArray(result.data.images)) return []
  return result.data.images.flatMap((image: unknown) =>
    isRecord(image) && typeof image.path === 'string'
      ? [{ path: image.path, mimeType: typeof image.mimeType === 'string' ? image.mimeType : 'image/png' }]
      : [],
  )
}

/** Raster types an MCP server's inline image may have to be shown (SVG and the rest are only described). */
const INLINE_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

/** The images an MCP tool returned inline, as data URLs; the model only read their description. */
export function inlineImagesOf(result: ToolResultView | undefined): string[] {
  if (!result || !isRecord(result.data) || !Array.isArray(result.data.media)) return []
  return result.data.media.flatMap((item: unknown) =>
    isRecord(item) &&
    item.type === 'image' &&
    typeof item.mimeType === 'string' &&
    INLINE_IMAGE_TYPES.has(item.mimeType) &&
    typeof item.data === 'string'
      ? [`data:${item.mimeType};base64,${item.data}`]
      : [],
  )
}

export type FileChange =
  | { kind: 'diff'; path: string | undefined; diff: string }
  | { kind: 'whole'; path: string | undefined; content: string; created: boolean | undefined }

/**
 * What an edit changed: edit_file's own unified diff once it has answered, its old/new strings
 * before; write_file's whole new content (it reports no diff).
 */
export function fileChangeOf(
  name: string,
  args: string,
  result: ToolResultView | undefined,
): FileChange | undefined {
  const input = parseJson(args)
  const path = isRecord(input) && typeof input.path === 'string' ? input.path : undefined
  if (name === 'edit_file') {
    const output = result && !result.isError ? parseJson(result.content) : undefined
    if (isRecord(output) && typeof output.diff === 'string') {
      return { kind: 'diff', path: typeof output.path === 'string' ? output.path : path, diff: output.diff }
    }
    if (result?.isError || !isRecord(input)) return undefined
    if (typeof input.old_string !== 'string' || typeof input.new_string !== 'string') return undefined
    const lines = (text: string, sign: string) =>
      text === ''
        ? []
        : text
            .replace(/\n$/, '')
            .split('\n')
            .map((line) => sign + line)
    const diff = [...lines(input.old_string, '-'), ...lines(input.new_string, '+')].join('\n')
    return { kind: 'diff', path, diff }
  }
  if (name === 'write_file') {
    if (result?.isError || !isRecord(input) || typeof input.content !== 'string') return undefined
    if (input.encoding === 'base64') return undefined
    const output = result ? parseJson(result.content) : undefined
    const created = isRecord(output) && typeof output.created === 'boolean' ? output.created : undefined
    return { kind: 'whole', path, content: input.content, created }
  }
  return undefined
}

export type DiffLineKind = 'added' | 'removed' | 'hunk' | 'meta' | 'context'

export function classifyDiffLine(line: string): DiffLineKind {
  if (
    line.startsWith('+++') ||
    line.startsWith('---') ||
    line.startsWith('Index:') ||
    line.startsWith('====')
  ) {
    return 'meta'
  }
  if (line.startsWith('@@')) return 'hunk'
  if (line.startsWith('+')) return 'added'
  if (line.startsWith('-')) return 'removed'
  if (line.startsWith('\\')) return 'meta'
  return 'context'
}

/** Progress that is neither shell output nor an image outcome, as text. */
export function progressText(progress: unknown): string {
  if (typeof progress === 'string') return progress
  if (isRecord(progress) && typeof progress.message === 'string') return progress.message
  return JSON.stringify(progress)
}
