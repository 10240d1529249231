import { isUtf8 } from 'node:buffer'
import { createTwoFilesPatch } from 'diff'
import { looksBinary } from './files'
import type { ToolOutput } from './types'

/**
 * A change to a text file as a unified diff, or undefined when either side is not UTF-8 text, the
 * two together pass `maxBytes`, or the diff cannot be made within a second (it is quadratic on
 * large rewrites).
 */
export function unifiedDiff(
  path: string,
  before: Buffer,
  after: Buffer,
  maxBytes = Number.POSITIVE_INFINITY,
): string | undefined {
  if (before.length + after.length > maxBytes || !isText(before) || !isText(after)) return undefined
  return createTwoFilesPatch(
    path,
    path,
    before.toString('utf8'),
    after.toString('utf8'),
    undefined,
    undefined,
    {
      context: 3,
      timeout: 1000,
    },
  )
}

/** A file tool's answer: its result as JSON for the model, and the change as a diff for the person. */
export function fileChangeOutput(result: object, path: string, patch: string | undefined): ToolOutput {
  return {
    content: JSON.stringify(result, null, 2),
    ...(patch !== undefined && { display: { kind: 'diff', path, patch } }),
  }
}

export function isText(bytes: Buffer): boolean {
  return !looksBinary(bytes) && isUtf8(bytes)
}
