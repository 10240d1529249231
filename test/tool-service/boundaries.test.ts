/**
 * The SDK is for other people's services: it may use src-shared (the wire envelope and descriptors)
 * and packages, never Atelier's own process folders; the example uses only the SDK.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

function importsIn(dir: string): { file: string; target: string }[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .flatMap((entry) => {
      const file = relative(ROOT, join(entry.parentPath, entry.name))
      return ts
        .preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true)
        .importedFiles.map((imported) => imported.fileName)
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => ({ file, target: relative(ROOT, resolve(ROOT, dirname(file), specifier)) }))
    })
}

const topFolder = (path: string) => path.split(/[\\/]/)[0]

describe('tool-service SDK boundaries', () => {
  it('keeps src-tool-service to itself and src-shared', () => {
    const imports = importsIn('src-tool-service')
    expect(imports.length).toBeGreaterThan(5)
    expect(
      imports.filter(({ target }) => !['src-tool-service', 'src-shared'].includes(topFolder(target) ?? '')),
    ).toEqual([])
  })

  it('keeps the example to the SDK and its own folder', () => {
    const imports = importsIn('examples')
    expect(
      imports.filter(({ target }) => !['src-tool-service', 'examples'].includes(topFolder(target) ?? '')),
    ).toEqual([])
  })
})
