import { existsSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CustomToolsInfo } from '../../../../src-shared/custom-tools'
import {
  type CustomToolApp,
  copyTool,
  customToolApp,
  fileOf,
  markerCode,
  REPO_STATS,
  toolSource,
  writeFile,
} from '../../../support/custom-tools'

/**
 * One home whose tool folders hold every kind of file discovery tells apart; the tests read what
 * the settings panel lists for it and what the registry holds.
 */
describe('discovery of the tool folders', { timeout: 60_000 }, () => {
  let app: CustomToolApp
  let info: CustomToolsInfo
  let atelierTools: string
  let claudeTools: string
  let codexTools: string
  let marker: string

  beforeAll(async () => {
    app = customToolApp()
    atelierTools = app.userTools
    claudeTools = join(app.home, '.claude', 'tools')
    codexTools = join(app.home, '.codex', 'tools')
    marker = join(app.home, 'metadata-ran')
    copyTool(REPO_STATS, atelierTools)
    writeFile(join(atelierTools, 'notes.md'), markerCode(marker))
    writeFile(join(atelierTools, 'manifest.json'), markerCode(marker))
    writeFile(join(atelierTools, 'types.d.ts'), 'export type Nothing = never\n')
    writeFile(join(atelierTools, 'shadow.ts'), toolSource('read_file'))
    writeFile(join(atelierTools, 'twin-a.ts'), toolSource('twin', { text: 'the first twin' }))
    writeFile(join(atelierTools, 'twin-b.ts'), toolSource('twin', { text: 'the second twin' }))
    writeFile(
      join(atelierTools, 'broken.ts'),
      'export default (api) => {\n  const ok = 1\n  const broken = ;\n  return []\n}\n',
    )
    writeFile(
      join(atelierTools, 'missing-import.ts'),
      "// A helper that was never written.\nimport { helper } from './helpers/nothing-here'\nexport default (api) => helper(api)\n",
    )
    writeFile(join(atelierTools, 'packaged', 'index.ts'), toolSource('from_index'))
    writeFile(join(atelierTools, 'packaged', 'helper.ts'), markerCode(marker))
    writeFile(
      join(atelierTools, 'common.js'),
      toolSource('from_commonjs').replace('export default (api) =>', 'module.exports = (api) =>'),
    )
    writeFile(join(atelierTools, 'plain.mjs'), toolSource('from_mjs'))
    writeFile(
      join(atelierTools, 'imports.ts'),
      [
        "import { Type } from '@sinclair/typebox'",
        "import { defineTool, defineTools, textResult, type CustomToolFactory } from 'atelier'",
        'const factory: CustomToolFactory = defineTools(() =>',
        "  defineTool({ name: 'by_import', label: 'By import', description: 'Imports its helpers',",
        '    parameters: Type.Object({ who: Type.String() }),',
        '    execute: (_id, { who }) => textResult("hello " + who) }))',
        'export default factory',
        '',
      ].join('\n'),
    )
    writeFile(
      join(atelierTools, 'many.ts'),
      [
        'const tool = (api, name) => ({ name, label: name, description: name, parameters: api.typebox.Type.Object({}),',
        "  execute: async () => ({ content: [{ type: 'text', text: name }] }) })",
        "export default async (api) => [tool(api, 'first_of_many'), tool(api, 'second_of_many')]",
        '',
      ].join('\n'),
    )
    writeFile(
      join(atelierTools, 'no-execute.ts'),
      "export default (api) => ({ name: 'lazy', label: 'Lazy', description: 'No execute', parameters: api.typebox.Type.Object({}) })\n",
    )
    writeFile(join(claudeTools, 'twin-c.ts'), toolSource('twin', { text: 'the third twin' }))
    writeFile(join(codexTools, 'only.json'), markerCode(marker))
    symlinkSync(join(atelierTools, 'repo-stats.ts'), join(claudeTools, 'stats-link.ts'))
    info = await app.list(null)
  })
  afterAll(() => app?.close())

  it('lists the folders in order: ~/.atelier/tools, ~/.claude/tools, ~/.codex/tools', () => {
    expect(info.folders.map(({ path, origin, trusted }) => ({ path, origin, trusted }))).toEqual([
      { path: atelierTools, origin: 'user', trusted: true },
      { path: claudeTools, origin: 'user', trusted: true },
      { path: codexTools, origin: 'user', trusted: true },
    ])
    // A folder of metadata only has no host to run.
    expect(info.folders.map((folder) => folder.running)).toEqual([true, true, false])
    expect(info.trustNeeded).toBeNull()
  })

  it('lists .md and .json beside the tools as metadata and never runs them', () => {
    for (const path of [
      join(atelierTools, 'notes.md'),
      join(atelierTools, 'manifest.json'),
      join(codexTools, 'only.json'),
    ]) {
      expect(fileOf(info, path)).toMatchObject({ status: 'metadata', tools: [] })
    }
    // Neither they nor the helper beside a folder's index.ts ran; a .d.ts is no tool at all.
    expect(existsSync(marker)).toBe(false)
    const listed = info.folders.flatMap((folder) => folder.files.map((file) => file.path))
    expect(listed).not.toContain(join(atelierTools, 'types.d.ts'))
    expect(listed).not.toContain(join(atelierTools, 'packaged', 'helper.ts'))
    expect(fileOf(info, join(atelierTools, 'packaged', 'index.ts'))).toMatchObject({
      status: 'loaded',
      tools: [{ name: 'from_index' }],
    })
  })

  it('loads a file found twice (through a symlink) once, where it was found first', async () => {
    const original = join(atelierTools, 'repo-stats.ts')
    expect(fileOf(info, original)).toMatchObject({ status: 'loaded', tools: [{ name: 'repo_stats' }] })
    expect(fileOf(info, join(claudeTools, 'stats-link.ts'))).toMatchObject({
      status: 'duplicate',
      duplicateOf: original,
      tools: [],
    })
    const registered = app.atelier.tools.registry
      .list()
      .filter((entry) => entry.tool.definition.name === 'repo_stats')
    expect(registered).toHaveLength(1)
    expect(registered[0]?.source).toEqual({ kind: 'custom', module: original })
  })

  it('rejects a tool named like a built-in, naming the file and the built-in; the built-in stays', async () => {
    const shadow = join(atelierTools, 'shadow.ts')
    expect(fileOf(info, shadow)).toMatchObject({
      status: 'conflict',
      tools: [],
      conflicts: [{ name: 'read_file', heldBy: 'a built-in tool' }],
    })
    expect(app.atelier.tools.registry.get('read_file')?.source).toEqual({ kind: 'builtin' })
    expect(app.atelier.customTools.log(shadow).text).toContain(
      'The tool "read_file" is not loaded: a built-in tool has that name.',
    )
    writeFile(join(app.project, 'hello.txt'), 'hello\n')
    const read = await app.call('read_file', { path: 'hello.txt' })
    expect(read.isError).toBe(false)
    expect(read.content).toContain('hello')
  })

  it("rejects a second file's tool of the same name, naming the first file, in its folder and in the next", async () => {
    const first = join(atelierTools, 'twin-a.ts')
    expect(fileOf(info, first)).toMatchObject({ status: 'loaded', tools: [{ name: 'twin' }] })
    for (const second of [join(atelierTools, 'twin-b.ts'), join(claudeTools, 'twin-c.ts')]) {
      expect(fileOf(info, second)).toMatchObject({
        status: 'conflict',
        conflicts: [{ name: 'twin', heldBy: first }],
      })
    }
    expect(app.atelier.tools.registry.get('twin')?.source).toEqual({ kind: 'custom', module: first })
    expect((await app.call('twin', {})).content).toBe('the first twin')
  })

  it('shows a syntax error with its file and line, and loads the rest of the folder', () => {
    const broken = join(atelierTools, 'broken.ts')
    const file = fileOf(info, broken)
    expect(file.status).toBe('failed')
    expect(file.error?.line).toBe(3)
    // The place is in its own fields (the column counted from 1), not repeated in the message.
    expect(file.error?.message).toMatch(/^ParseError: Unexpected token/)
    expect(file.error?.message).not.toContain(broken)
    const line = readFileSync(broken, 'utf8').split('\n')[(file.error?.line ?? 0) - 1] ?? ''
    expect(line).toContain('= ;')
    expect(line[(file.error?.column ?? 0) - 1]).toBe(';')
  })

  it('shows an import of a missing file with its line', () => {
    const file = fileOf(info, join(atelierTools, 'missing-import.ts'))
    expect(file.status).toBe('failed')
    expect(file.error?.message).toContain("Cannot find module './helpers/nothing-here'")
    expect(file.error?.line).toBe(2)
  })

  it('takes a CommonJS export, an .mjs file, an async factory of several tools and imports of typebox and atelier; refuses a tool without execute', async () => {
    expect(fileOf(info, join(atelierTools, 'common.js'))).toMatchObject({
      status: 'loaded',
      tools: [{ name: 'from_commonjs' }],
    })
    expect(fileOf(info, join(atelierTools, 'plain.mjs'))).toMatchObject({
      status: 'loaded',
      tools: [{ name: 'from_mjs' }],
    })
    expect(fileOf(info, join(atelierTools, 'many.ts'))).toMatchObject({
      status: 'loaded',
      tools: [{ name: 'first_of_many' }, { name: 'second_of_many' }],
    })
    expect((await app.call('second_of_many', {})).content).toBe('second_of_many')
    // `@sinclair/typebox` and `atelier` resolve to Atelier's own, installed nowhere near the tool.
    expect(fileOf(info, join(atelierTools, 'imports.ts')).status).toBe('loaded')
    expect((await app.call('by_import', { who: 'you' })).content).toBe('hello you')
    const lazy = fileOf(info, join(atelierTools, 'no-execute.ts'))
    expect(lazy.status).toBe('failed')
    expect(lazy.error?.message).toBe(
      'The factory\'s result is not usable: the tool "lazy" has no execute function.',
    )
    expect(app.atelier.tools.registry.get('lazy')).toBeUndefined()
  })

  it('listing again loads nothing and announces nothing (the panel lists again on each announcement)', async () => {
    const announced: string[] = []
    const unsubscribe = app.atelier.events.subscribe((event) => {
      if (event === 'customTools.changed') announced.push(event)
    })
    const again = await app.list(null)
    unsubscribe()
    expect(announced).toEqual([])
    expect(again.folders).toEqual(info.folders)
  })
})
