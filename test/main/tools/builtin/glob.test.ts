import { realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import { ephemeralLedger } from '../../../../src-main/core/freshness-ledger'
import { globTool } from '../../../../src-main/tools/builtin/glob'
import type { ToolCallScope } from '../../../../src-main/tools/executor'
import { resolveAndValidatePath } from '../../../../src-main/tools/paths'
import { DEFAULT_MAX_RESULT_CHARS } from '../../../../src-main/tools/result-limits'
import { useTempDirs } from '../../../support/temp-dir'
import { useToolHarness, writeTree } from '../../../support/tool-harness'

const PROJECT = {
  'src/a.ts': '',
  'src/b.tsx': '',
  'src/lib/c.ts': '',
  'src/lib/d.js': '',
  'docs/readme.md': '',
  'x1.ts': '',
  'x2.ts': '',
  'x10.ts': '',
  'package.json': '{}',
}

describe('globTool', () => {
  const tempDir = useTempDirs()
  const harness = useToolHarness()

  function setup(files: Record<string, string> = PROJECT) {
    const { project: folder, atelier, scope } = harness()
    writeTree(folder, files)
    const glob = (args: unknown, overrides: Partial<ToolCallScope> = {}) =>
      atelier.tools.executor.execute({ name: 'glob', arguments: args }, { ...scope, ...overrides })
    async function found(args: unknown, overrides: Partial<ToolCallScope> = {}) {
      const result = await glob(args, overrides)
      expect(result.isError, result.content).toBe(false)
      return JSON.parse(result.content) as { cwd: string; matches: string[]; truncated: boolean }
    }
    const matches = async (args: unknown, overrides: Partial<ToolCallScope> = {}) =>
      (await found(args, overrides)).matches
    const settings = (parameters: Record<string, unknown>) =>
      atelier.tools.settings.update(LOCAL_USER, 'glob', { parameters })
    return { folder, atelier, scope, glob, found, matches, settings }
  }

  describe('patterns', () => {
    it.each([
      ['*.ts', ['x1.ts', 'x10.ts', 'x2.ts']],
      ['**/*.ts', ['src/a.ts', 'src/lib/c.ts', 'x1.ts', 'x10.ts', 'x2.ts']],
      ['src/**', ['src/a.ts', 'src/b.tsx', 'src/lib', 'src/lib/c.ts', 'src/lib/d.js']],
      ['src/lib/**/*', ['src/lib/c.ts', 'src/lib/d.js']],
      ['src/**/*.js', ['src/lib/d.js']],
      ['x?.ts', ['x1.ts', 'x2.ts']],
      ['x[12].ts', ['x1.ts', 'x2.ts']],
      ['x[!1].ts', ['x2.ts']],
      ['src/*.{ts,tsx}', ['src/a.ts', 'src/b.tsx']],
      ['{docs,src/lib}/*', ['docs/readme.md', 'src/lib/c.ts', 'src/lib/d.js']],
      ['@(docs|src)', ['docs', 'src']],
      ['*/lib', ['src/lib']],
      ['*/', ['docs', 'src']],
      ['src/**/', ['src/lib']],
      ['package.json', ['package.json']],
      ['missing.json', []],
      ['missing/*.json', []],
      ['package.json/**', []],
      ['!**/*.ts', ['docs', 'docs/readme.md', 'package.json', 'src', 'src/b.tsx', 'src/lib', 'src/lib/d.js']],
      ['!src/**', ['docs', 'docs/readme.md', 'package.json', 'src', 'x1.ts', 'x10.ts', 'x2.ts']],
    ])('matches %s against paths below cwd, folders included, sorted', async (pattern, expected) => {
      const { matches } = setup()
      expect(await matches({ pattern })).toEqual(expected)
    })

    it('matches relative to cwd and reports paths relative to the working folder', async () => {
      const { found } = setup()
      expect(await found({ pattern: '**/*.ts', cwd: 'src' })).toEqual({
        cwd: 'src',
        matches: ['src/a.ts', 'src/lib/c.ts'],
        truncated: false,
      })
    })

    it('echoes the folder searched as cwd when cwd is omitted', async () => {
      const { found, folder } = setup()
      expect((await found({ pattern: '*.json' })).cwd).toBe(folder)
    })
  })

  describe('maxResults', () => {
    it('stops at the cap and says truncated, returning the same paths every time', async () => {
      const { found, settings } = setup()
      settings({ maxResults: 2 })
      const first = await found({ pattern: '**/*.ts' })
      expect(first).toMatchObject({ matches: ['x1.ts', 'x10.ts'], truncated: true })
      expect(await found({ pattern: '**/*.ts' })).toEqual(first)
    })

    it('lists whole paths, as valid JSON, when they would pass the result cap', async () => {
      const name = (i: number) => `${'n'.repeat(90)}${String(i).padStart(4, '0')}.txt`
      const { glob, settings } = setup(
        Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [name(i), ''])),
      )
      settings({ maxResults: 5000 })
      const result = await glob({ pattern: '*.txt' })
      expect(result.content.length).toBeLessThanOrEqual(DEFAULT_MAX_RESULT_CHARS)
      expect(result.content).not.toContain('[Output truncated')
      const found = JSON.parse(result.content) as { matches: string[]; truncated: boolean }
      expect(found.truncated).toBe(true)
      expect(result.truncated).toBe(true)
      // The first paths in order, as many as fit: each takes its 96 characters, quotes, indent and ",\n".
      expect(found.matches.length).toBeGreaterThan(900)
      expect(found.matches).toEqual(Array.from({ length: found.matches.length }, (_, i) => name(i)))
      expect(result.content.length + name(0).length + 8).toBeGreaterThan(DEFAULT_MAX_RESULT_CHARS)
    })

    it('is not truncated when the matches exactly fill the cap', async () => {
      const { found, settings } = setup()
      settings({ maxResults: 5 })
      expect(await found({ pattern: '**/*.ts' })).toMatchObject({ truncated: false })
      expect((await found({ pattern: '**/*.ts' })).matches).toHaveLength(5)
    })
  })

  describe('dotfiles', () => {
    const files = { '.env': '', '.config/app.json': '', '.git/HEAD': '', 'a.json': '' }

    it('skips dotfiles and dot-folders by default', async () => {
      const { matches } = setup(files)
      expect(await matches({ pattern: '**/*' })).toEqual(['a.json'])
    })

    it('includes them with includeDotfiles, but never .git', async () => {
      const { matches, settings } = setup(files)
      settings({ includeDotfiles: true })
      expect(await matches({ pattern: '**/*' })).toEqual(['.config', '.config/app.json', '.env', 'a.json'])
    })
  })

  describe('.gitignore', () => {
    const files = {
      '.gitignore': 'node_modules/\n*.log\n',
      'node_modules/pkg/index.js': '',
      'app.log': '',
      'src/main.js': '',
      'src/.gitignore': '*.tmp\n!keep.tmp\n',
      'src/a.tmp': '',
      'src/keep.tmp': '',
      'b.tmp': '',
    }

    it('skips node_modules and everything else the .gitignore files exclude', async () => {
      const { matches } = setup(files)
      expect(await matches({ pattern: '**/*.{js,log,tmp}' })).toEqual([
        'b.tmp',
        'src/keep.tmp',
        'src/main.js',
      ])
    })

    it('includes them with respectGitignore off', async () => {
      const { matches, settings } = setup(files)
      settings({ respectGitignore: false })
      expect(await matches({ pattern: '**/*.{js,log,tmp}' })).toEqual([
        'app.log',
        'b.tmp',
        'node_modules/pkg/index.js',
        'src/a.tmp',
        'src/keep.tmp',
        'src/main.js',
      ])
    })

    it('applies the repository’s .gitignore when cwd is a subfolder', async () => {
      const { matches } = setup({
        '.git/HEAD': '',
        '.gitignore': 'dist/\n',
        'pkg/dist/out.js': '',
        'pkg/src/in.js': '',
      })
      expect(await matches({ pattern: '**/*.js', cwd: 'pkg' })).toEqual(['pkg/src/in.js'])
    })
  })

  describe('result paths', () => {
    it('are absolute in chat mode, where no folder is in play', async () => {
      const { matches, folder } = setup()
      expect(await matches({ pattern: 'src/*.ts', cwd: folder }, { mode: 'chat' })).toEqual([
        join(folder, 'src/a.ts'),
      ])
    })

    it('start from the process’s working directory in chat mode, where the folder is not injected', async () => {
      const { found } = setup()
      const here = realpathSync(process.cwd())
      expect(await found({ pattern: 'package.json' }, { mode: 'chat' })).toEqual({
        cwd: here,
        matches: [join(here, 'package.json')],
        truncated: false,
      })
    })

    it('are absolute when no folder is bound', async () => {
      const { matches, folder } = setup()
      expect(await matches({ pattern: 'src/*.ts', cwd: folder }, { workingDirectory: null })).toEqual([
        join(folder, 'src/a.ts'),
      ])
    })

    it('are absolute with the absolute setting', async () => {
      const { matches, settings, folder } = setup()
      settings({ absolute: true })
      expect(await matches({ pattern: 'src/*.ts' })).toEqual([join(folder, 'src/a.ts')])
    })

    it('are absolute for matches outside the working folder', async () => {
      const { matches, settings } = setup()
      const other = realpathSync(tempDir())
      writeTree(other, { 'notes.md': '' })
      settings({ allowedPaths: [other] })
      expect(await matches({ pattern: '*.md', cwd: other })).toEqual([join(other, 'notes.md')])
    })

    it.each([
      ['agent', {}],
      ['chat', { mode: 'chat' as const }],
      ['no folder', { workingDirectory: null }],
    ])('resolve back to the same files (%s)', async (_, overrides) => {
      const { matches, folder, scope, atelier } = setup()
      const args = { pattern: '**/*', cwd: folder }
      const found = await matches(args, overrides)
      const context = {
        ...scope,
        ...overrides,
        chatId: null,
        signal: new AbortController().signal,
        onUpdate: () => {},
        settings: atelier.tools.settings.resolve(LOCAL_USER, { tool: globTool, source: { kind: 'builtin' } })
          .settings,
        protectedPaths: [atelier.dataDir],
        ledger: ephemeralLedger(),
      }
      const expected = [...Object.keys(PROJECT), 'src', 'src/lib', 'docs'].map((path) => join(folder, path))
      expect(found).toHaveLength(expected.length)
      const resolved = await Promise.all(
        found.map(async (match) => (await resolveAndValidatePath(match, context)).real),
      )
      expect(resolved.sort()).toEqual(expected.sort())
    })
  })

  describe('symlinks and denied paths', () => {
    function withLinks() {
      const fixture = setup({ 'inside.txt': '', 'secret/key.txt': '' })
      const outside = realpathSync(tempDir())
      writeTree(outside, { 'outside.txt': '' })
      symlinkSync(outside, join(fixture.folder, 'out-link'))
      symlinkSync('/etc', join(fixture.folder, 'etc-link'))
      symlinkSync(join(outside, 'outside.txt'), join(fixture.folder, 'file-link.txt'))
      return { ...fixture, outside }
    }

    it('in agent mode lists no link that leads outside the folder, and enters none', async () => {
      const { matches } = withLinks()
      expect(await matches({ pattern: '**/*' })).toEqual(['inside.txt', 'secret', 'secret/key.txt'])
    })

    it('in chat mode lists links to folders without entering them', async () => {
      const { matches, folder } = withLinks()
      expect(await matches({ pattern: '**/*', cwd: folder }, { mode: 'chat' })).toEqual(
        ['etc-link', 'file-link.txt', 'inside.txt', 'out-link', 'secret', 'secret/key.txt'].map((path) =>
          join(folder, path),
        ),
      )
    })

    it('never lists a link to a denied path, nor a denied folder inside cwd', async () => {
      const { matches, settings, folder, outside } = withLinks()
      settings({ deniedPaths: [outside, join(folder, 'secret')] })
      expect(await matches({ pattern: '**/*', cwd: folder }, { mode: 'chat' })).toEqual(
        ['etc-link', 'inside.txt'].map((path) => join(folder, path)),
      )
    })
  })

  describe('refusals', () => {
    it.each([
      [{ pattern: 'x', cwd: 42 }, '/cwd: Expected string (got 42)'],
      [{ cwd: 'src' }, '/pattern: Expected required property'],
      [{ pattern: '' }, '/pattern: Expected string length greater or equal to 1'],
      [{ pattern: '*', absolute: true }, '/absolute: Unexpected property'],
    ])('rejects %j as validation_failed', async (args, problem) => {
      const { glob } = setup()
      const result = await glob(args)
      expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(result.content).toContain(problem)
    })

    it.each([
      [{ pattern: '*', cwd: '..' }],
      [{ pattern: '*', cwd: '../..' }],
      [{ pattern: '*', cwd: '/etc' }],
      [{ pattern: '../*' }],
      [{ pattern: 'src/../../*' }],
      [{ pattern: '/etc/pass*' }],
    ])('refuses %j outside the working folder with path_denied', async (args) => {
      const { glob } = setup()
      expect(await glob(args)).toMatchObject({ isError: true, errorType: 'path_denied' })
    })

    it('answers not_found for a cwd that does not exist and invalid_path for a file', async () => {
      const { glob } = setup()
      expect(await glob({ pattern: '*', cwd: 'nowhere' })).toMatchObject({
        isError: true,
        errorType: 'not_found',
      })
      expect(await glob({ pattern: '*', cwd: 'package.json' })).toMatchObject({
        isError: true,
        errorType: 'invalid_path',
      })
    })
  })

  describe('definition', () => {
    it('tells the model what is skipped and the cap, following the settings', async () => {
      const { atelier, settings } = setup()
      const definition = () => {
        const { settings: effective } = atelier.tools.settings.resolve(LOCAL_USER, {
          tool: globTool,
          source: { kind: 'builtin' },
        })
        return globTool.buildDefinition?.(effective).description
      }
      expect(definition()).toContain('excluded by .gitignore')
      expect(definition()).toContain('dotfiles')
      expect(definition()).toContain('at most 200')
      settings({ respectGitignore: false, includeDotfiles: true, maxResults: 50 })
      expect(definition()).not.toContain('.gitignore')
      expect(definition()).not.toContain('dotfiles')
      expect(definition()).toContain('at most 50')
    })
  })
})

describe('globTool with dot entries named outright', () => {
  const harness = useToolHarness()

  it('finds .env and .github files by name while dotfiles stay hidden from wildcards', async () => {
    const { project, ok, folder } = harness()
    folder('pkg', '.github')
    writeFileSync(join(project, '.env'), 'X=1')
    writeFileSync(join(project, 'pkg', '.env'), 'Y=2')
    writeFileSync(join(project, 'pkg', '.github', 'ci.yml'), '')
    writeFileSync(join(project, 'pkg', 'visible.yml'), '')
    const matches = async (pattern: string) => (await ok<{ matches: string[] }>('glob', { pattern })).matches
    expect(await matches('.env')).toEqual(['.env'])
    expect(await matches('**/.env')).toEqual(['.env', 'pkg/.env'])
    expect(await matches('**/.github/*.yml')).toEqual(['pkg/.github/ci.yml'])
    expect(await matches('**/*.yml')).toEqual(['pkg/visible.yml'])
  })
})
