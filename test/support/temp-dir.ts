import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'

/**
 * A fresh real folder per call, removed after the current test; in the system's temp folder unless
 * `parent` says where (a sandboxed command has a private `/tmp`, so what must stay visible to it —
 * or be hidden from it by the sandbox itself — lives elsewhere).
 */
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
