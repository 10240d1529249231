import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
}

/** Every static, dynamic and type-only import and re-export of a file, as written. */
function importsOf(file: string, source = readFileSync(join(ROOT, file), 'utf8')): string[] {
  const info = ts.preProcessFile(source, true, true)
  return info.importedFiles.map((imported) => imported.fileName)
}

function isElectron(specifier: string): boolean {
  return specifier === 'electron' || specifier.startsWith('electron/')
}

function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0] ?? '')
}

/** The top folder a relative import lands in, e.g. `src-main`. */
function folderOf(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  return relative(ROOT, resolve(ROOT, dirname(file), specifier)).split(/[\\/]/)[0]
}

function violations(dir: string, forbidden: (specifier: string, file: string) => boolean): string[] {
  return sourceFiles(dir).flatMap((file) =>
    importsOf(file)
      .filter((specifier) => forbidden(specifier, file))
      .map((specifier) => `${file} imports ${specifier}`),
  )
}

/** The layer of src-main a relative import lands in (`tools`, `db`, …), another src- folder, or none (package.json). */
function layerOf(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  const [top = '', layer] = relative(ROOT, resolve(ROOT, dirname(file), specifier)).split(/[\\/]/)
  if (top === 'src-main') return layer
  return top.startsWith('src-') ? top : undefined
}

/**
 * What each layer of src-main may import besides src-shared and packages. Lower layers know
 * nothing of the ones above them: core of nothing, db of core, tools and providers of core and db.
 */
const LAYER_RULES: Record<string, string[]> = {
  core: [],
  db: ['core'],
  // Custom tools speak the module contract authors import (src-custom-tool).
  tools: ['core', 'db', 'src-custom-tool'],
  providers: ['core', 'db'],
  approvals: ['core', 'db', 'tools', 'preferences'],
  checkpoints: ['core', 'db', 'tools', 'chats'],
  // Hooks are stages of a call (tools) and run under the trust of custom tools; the agent and the
  // approvals call them, never the other way round.
  hooks: ['core', 'tools'],
  // Language servers serve the tools (through the CodeIntelligence port) and hook into their pipeline.
  lsp: ['core', 'tools'],
}

function layerViolations(file: string, source?: string): string[] {
  const layer = file.split(/[\\/]/)[1] ?? ''
  const allowed = LAYER_RULES[layer]
  if (!allowed) return []
  // The pipeline reaches the database only through the interfaces core defines.
  const pipeline = /^src-main\/tools\/(executor\.ts|pipeline\/)/.test(file)
  return importsOf(file, source)
    .filter((specifier) => {
      const target = layerOf(file, specifier)
      if (target === undefined || target === 'src-shared' || target === layer) return false
      return !allowed.includes(target) || (pipeline && target === 'db')
    })
    .map((specifier) => `${file} imports ${specifier}`)
}

/** Where a relative import lands, from the repository root, without its extension (`src-main/tools/paths`). */
function targetOf(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  const target = relative(ROOT, resolve(ROOT, dirname(file), specifier))
    .split(/[\\/]/)
    .join('/')
  return target.replace(/\.[cm]?[jt]sx?$/, '')
}

/** The imports of a file that land in `target`: that module, or anything in that folder. */
function importsInto(file: string, target: string, source?: string): string[] {
  return importsOf(file, source)
    .filter((specifier) => {
      const landsIn = targetOf(file, specifier)
      return landsIn !== undefined && (landsIn === target || landsIn.startsWith(`${target}/`))
    })
    .map((specifier) => `${file} imports ${specifier}`)
}

/**
 * Inside src-main/tools, what a folder must not import: built-in tools do not know the executor
 * that runs them, the search workers, below glob and grep, do not know those tools, and the web
 * machinery (address rules, safe GET, pages as Markdown) knows no tool, so every web tool can use
 * it. Each with
 * a file of the folder and an import of the forbidden place as that file would write it.
 */
const TOOLS_BOUNDARIES = [
  {
    folder: 'src-main/tools/builtin',
    forbidden: 'src-main/tools/executor',
    sample: 'src-main/tools/builtin/grep.ts',
    specifier: '../executor',
  },
  {
    folder: 'src-main/tools/search',
    forbidden: 'src-main/tools/builtin',
    sample: 'src-main/tools/search/search-worker.ts',
    specifier: '../builtin/grep',
  },
  {
    folder: 'src-main/tools/web-search',
    forbidden: 'src-main/tools/builtin',
    sample: 'src-main/tools/web-search/search-engines.ts',
    specifier: '../builtin/web-search',
  },
  {
    folder: 'src-main/tools/web',
    forbidden: 'src-main/tools/builtin',
    sample: 'src-main/tools/web/safe-get.ts',
    specifier: '../builtin/web-fetch',
  },
]

describe('import boundaries', () => {
  it('sees the imports it polices', () => {
    expect(importsOf('src-main/index.ts')).toContain('electron')
    expect(
      importsOf('src-renderer/src/App.tsx').some(
        (s) => folderOf('src-renderer/src/App.tsx', s) === 'src-shared',
      ),
    ).toBe(true)
  })

  it('keeps src-renderer off src-main, electron and Node built-ins', () => {
    expect(
      violations(
        'src-renderer',
        (specifier, file) =>
          isElectron(specifier) ||
          isNodeBuiltin(specifier) ||
          ['src-main', 'src-preload'].includes(folderOf(file, specifier) ?? ''),
      ),
    ).toEqual([])
  })

  it('lets only src-main/index.ts and src-preload import electron', () => {
    const everywhere = ['src-main', 'src-shared', 'src-renderer', 'test'].flatMap((dir) =>
      violations(
        dir,
        (specifier, file) =>
          specifier.startsWith('electron') && specifier !== 'electron-vite' && file !== 'src-main/index.ts',
      ),
    )
    expect(everywhere).toEqual([])
  })

  it('keeps src-shared free of Node, electron and the process folders', () => {
    expect(
      violations(
        'src-shared',
        (specifier, file) =>
          isElectron(specifier) ||
          isNodeBuiltin(specifier) ||
          ['src-main', 'src-preload', 'src-renderer'].includes(folderOf(file, specifier) ?? ''),
      ),
    ).toEqual([])
  })

  it('keeps each layer of src-main off the layers above it', () => {
    const files = Object.keys(LAYER_RULES).flatMap((layer) => sourceFiles(`src-main/${layer}`))
    expect(files.length).toBeGreaterThan(40)
    expect(files.flatMap((file) => layerViolations(file))).toEqual([])
  })

  it('catches a forbidden import in any layer, type-only ones too', () => {
    expect(
      layerViolations('src-main/tools/registry.ts', "import type { X } from '../providers/tool-mapper'"),
    ).toEqual(['src-main/tools/registry.ts imports ../providers/tool-mapper'])
    expect(
      layerViolations('src-main/db/chats-repository.ts', "import { y } from '../tools/paths'"),
    ).toHaveLength(1)
    expect(layerViolations('src-main/core/events.ts', "import { z } from '../db/database'")).toHaveLength(1)
    expect(
      layerViolations('src-main/tools/pipeline/run.ts', "import { a } from '../../db/freshness-repository'"),
    ).toHaveLength(1)
    expect(layerViolations('src-main/tools/paths.ts', "import { b } from '../core/images'")).toEqual([])
    expect(
      layerViolations('src-main/hooks/hook-service.ts', "import { c } from '../agent/turn-service'"),
    ).toHaveLength(1)
  })

  it.each(TOOLS_BOUNDARIES)('keeps $folder off $forbidden', ({ folder, forbidden, sample, specifier }) => {
    const files = sourceFiles(folder)
    expect(files).toContain(sample)
    expect(files.flatMap((file) => importsInto(file, forbidden))).toEqual([])
    // The check itself sees such an import, a type-only one too.
    expect(importsInto(sample, forbidden, `import type { X } from '${specifier}'`)).toEqual([
      `${sample} imports ${specifier}`,
    ])
  })

  it('keeps the custom tool contract free of Atelier internals: authors import it as `atelier`', () => {
    expect(
      violations('src-custom-tool', (specifier) => specifier.startsWith('.') || isNodeBuiltin(specifier)),
    ).toEqual([])
  })

  it('type-checks src-shared without the DOM or Node typings, so neither can creep in', () => {
    const config = ts.readConfigFile(join(ROOT, 'tsconfig.shared.json'), ts.sys.readFile).config as {
      compilerOptions: { lib: string[]; types: string[] }
    }
    expect(config.compilerOptions.lib.map((lib) => lib.toLowerCase())).not.toContainEqual(
      expect.stringMatching(/^dom/),
    )
    expect(config.compilerOptions.types).toEqual([])
  })
})
