/** Reading a tool call's arguments for display, and the words and numbers a card shows. */

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

/**
 * Arguments as indented JSON; as written when they are not JSON (yet: they may still be streaming).
 * When a value runs over several lines (an edit's old and new text, a file's content), each argument
 * goes on its own `name:` line with such a value's lines below it: text reads as text, not as `\n`.
 */
export function prettyArguments(text: string): string {
  if (text.trim() === '') return ''
  const value = parseJson(text)
  if (value === undefined) return text
  if (!isRecord(value) || !Object.values(value).some(isMultiline)) return JSON.stringify(value, null, 2)
  return Object.entries(value)
    .map(([key, item]) =>
      isMultiline(item)
        ? `${key}:\n${item
            .split('\n')
            .map((line) => `  ${line}`)
            .join('\n')}`
        : `${key}: ${typeof item === 'string' ? item : JSON.stringify(item)}`,
    )
    .join('\n')
}

function isMultiline(value: unknown): value is string {
  return typeof value === 'string' && value.includes('\n')
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

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`
  const minutes = Math.floor(ms / 60_000)
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`
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
