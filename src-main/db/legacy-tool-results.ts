/**
 * Tool results stored before results were typed told the UI how to show them only through `data`
 * and their text, which the UI had to parse. Schema 7 gives each of them the fields a result has
 * now — `truncated`, `display`, the `errorType` of a stop — read once from what it holds, so every
 * view reads one shape. Nothing the model reads changes.
 */
import { INLINE_IMAGE_TYPES } from '../../src-shared/tools'

type Json = Record<string, unknown>

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The executor's old notice at the result cap. */
const CUT_NOTICE = /\n\n\[Output truncated: showing \d+ of \d+ characters\./

/** One stored message part, upgraded when it is a tool result from before schema 7. */
export function upgradeToolResultPart(part: unknown): unknown {
  if (!isRecord(part) || part.type !== 'tool_result' || 'truncated' in part) return part
  const content = typeof part.content === 'string' ? part.content : ''
  const parsed = parse(content)
  let data: unknown = part.data
  let display: Json | undefined
  let cutByTool = isRecord(parsed) && parsed.truncated === true

  if (isRecord(data) && typeof data.stdout === 'string' && typeof data.stderr === 'string') {
    const truncated = isRecord(data.truncated) ? data.truncated : {}
    display = {
      kind: 'shell',
      stdout: data.stdout,
      stderr: data.stderr,
      exitCode: typeof data.exitCode === 'number' ? data.exitCode : null,
      signal: typeof data.signal === 'string' ? data.signal : null,
      termination: typeof data.termination === 'string' ? data.termination : 'exited',
      durationMs: typeof data.durationMs === 'number' ? data.durationMs : 0,
      truncated: { stdout: truncated.stdout === true, stderr: truncated.stderr === true },
    }
    cutByTool ||= truncated.stdout === true || truncated.stderr === true
    data = undefined
  } else if (isRecord(data) && Array.isArray(data.images)) {
    const images = data.images.filter((image) => isRecord(image) && typeof image.path === 'string')
    if (images.length > 0) display = { kind: 'images', images }
    data = undefined
  } else if (isRecord(data) && Array.isArray(data.media)) {
    const shown = data.media.filter(
      (item) => isRecord(item) && item.type === 'image' && INLINE_IMAGE_TYPES.has(String(item.mimeType)),
    )
    if (shown.length > 0) {
      display = {
        kind: 'images',
        images: shown.map((item) => ({ data: (item as Json).data, mimeType: (item as Json).mimeType })),
      }
    }
    const rest = data.media.filter((item) => !shown.includes(item))
    const { media: _, ...others } = data
    data = rest.length > 0 ? { ...others, media: rest } : Object.keys(others).length > 0 ? others : undefined
  } else if (isRecord(parsed) && typeof parsed.path === 'string' && isPatch(parsed.diff)) {
    // edit_file's result: its path and the unified diff of the change.
    display = { kind: 'diff', path: parsed.path, patch: parsed.diff }
  }

  const { data: _old, ...upgraded } = part
  if (part.isError === true && part.errorType === undefined) {
    if (/ was cancelled by the user\.$/.test(content)) upgraded.errorType = 'aborted'
    else if (/ timed out after \d+s and was stopped\.$/.test(content)) upgraded.errorType = 'timeout'
  }
  return {
    ...upgraded,
    truncated: cutByTool || CUT_NOTICE.test(content),
    ...(display && { display }),
    ...(data !== undefined && { data }),
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function isPatch(value: unknown): value is string {
  return typeof value === 'string' && /^(Index: |={10,}|--- )/.test(value)
}
