import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'

/**
 * Where to make folders a sandboxed command must see as they are — a home holding keys, a folder
 * outside its writable set: a sandboxed command has a private /tmp, so under /tmp they would simply
 * not be there.
 */
export const OUTSIDE_TMP = '/var/tmp'

/** A fresh real folder per call (under `parent`, the temp folder by default), removed after the current test. */
export function useTempDirs(parent = tmpdir()): () => string {
  const made: string[] = []
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  return () => {
    const dir = mkdtempSync(join(parent, 'atelier-test-'))
    made.push(dir)
    return dir
  }
}
