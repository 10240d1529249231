import { isUtf8 } from 'node:buffer'
import { createTwoFilesPatch } from 'diff'
import { looksBinary } from './files'

/**
 * A change to a text file as a unified diff, or undefined when either side is not UTF-8 text or the
 * diff cannot be made within a second (it is quadratic on large rewrites).
 */
export function unifiedDiff(path: string, before: Buffer, after: Buffer): string | undefined {
  if (!isText(before) || !isText(after)) return undefined
  return createTwoFilesPatch(path, path, before.toString('utf8'), after.toString('utf8'), undefined, undefined, {
    context: 3,
    timeout: 1000,
  })
}

export function isText(bytes: Buffer): boolean {
  return !looksBinary(bytes) && isUtf8(bytes)
}
