import { execFileSync } from 'node:child_process'
import { chmodSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import { ephemeralLedger } from '../../../../src-main/core/freshness-ledger'
import { type GrepResult, grepTool } from '../../../../src-main/tools/builtin/grep'
import type { ToolCallScope } from '../../../../src-main/tools/executor'
import { resolveAndValidatePath } from '../../../../src-main/tools/paths'
import { DEFAULT_MAX_RESULT_CHARS } from '../../../../src-main/tools/result-limits'
import { useTempDirs } from '../../../support/temp-dir'
import { useToolHarness, writeTree } from '../../../support/tool-harness'

interface Match {
  file: string
  line: number
  text: string
}

/** "file:line" of each match, the shape most assertions compare. */
const places = (matches: Match[]) => matches.map((match) => `${match.file}:${match.line}`)

describe('grepTool', () => {
  const tempDir = useTempDirs()
  const harness = useToolHarness()

  function setup(files: Record<string, string | Buffer> = {}) {
    const { project: folder, atelier, scope } = harness()
    writeTree(folder, files)
    const grep = (args: unknown, overrides: Partial<ToolCallScope> = {}) =>
      atelier.tools.executor.execute({ name: 'grep', arguments: args }, { ...scope, ...overrides })
    async function found(args: unknown, overrides: Partial<ToolCallScope> = {}) {
      const result = await grep(args, overrides)
      expect(result.isError, result.content).toBe(false)
      return JSON.parse(result.content) as GrepResult
    }
    const matches = async (args: unknown, overrides: Partial<ToolCallScope> = {}) =>
      (await found(args, overrides)).matches
    const settings = (parameters: Record<string, unknown>) =>
      atelier.tools.settings.update(LOCAL_USER, 'grep', { parameters })
    return { folder, atelier, scope, grep, found, matches, settings }
  }

  describe('matching lines', () => {
    it('returns each matching line with its 1-based number, sorted by file then line', async () => {
      const { found } = setup({
        'src/b.ts': 'one\nneedle two\nthree needle\n',
        'src/a.ts': 'needle\n',
        'readme.md': 'no\nno\nno\nneedle at last',
      })
      expect(await found({ pattern: 'needle', path: '.' })).toEqual({
        path: '.',
        matches: [
          { file: 'readme.md', line: 4, text: 'needle at last' },
          { file: 'src/a.ts', line: 1, text: 'needle' },
          { file: 'src/b.ts', line: 2, text: 'needle two' },
          { file: 'src/b.ts', line: 3, text: 'three needle' },
        ],
        truncated: false,
      })
    })

    it('searches one file when path names a file', async () => {
      const { found } = setup({ 'src/a.ts': 'x\nneedle\n', 'src/b.ts': 'needle\n' })
      expect(await found({ pattern: 'needle', path: 'src/a.ts' })).toEqual({
        path: 'src/a.ts',
        matches: [{ file: 'src/a.ts', line: 2, text: 'needle' }],
        truncated: false,
      })
    })

    it('treats ^ and $ as line anchors and drops the \\r of CRLF lines', async () => {
      const { matches } = setup({ 'a.ts': 'import x\r\n  import y\r\nthe end\r\nend of it\r\n' })
      expect(await matches({ pattern: '^import', path: '.' })).toEqual([
        { file: 'a.ts', line: 1, text: 'import x' },
      ])
      expect(await matches({ pattern: 'end$', path: '.' })).toEqual([
        { file: 'a.ts', line: 3, text: 'the end' },
      ])
    })

    it('does not report a match that spans lines', async () => {
      const { matches } = setup({ 'a.txt': 'foo\nbar\nfoo bar\n' })
      expect(places(await matches({ pattern: 'foo\\s+bar', path: '.' }))).toEqual(['a.txt:3'])
    })

    it('matches letters regardless of case with caseInsensitive, also beyond ASCII', async () => {
      const { matches } = setup({ 'a.txt': 'café au lait\nCAFÉ NOIR\ncafe\n' })
      expect(places(await matches({ pattern: 'café', path: '.' }))).toEqual(['a.txt:1'])
      expect(places(await matches({ pattern: 'café', path: '.', caseInsensitive: true }))).toEqual([
        'a.txt:1',
        'a.txt:2',
      ])
    })

    it('leaves out a UTF-8 byte order mark', async () => {
      const { matches } = setup({ 'a.txt': '\uFEFFfirst line\n' })
      expect(await matches({ pattern: '^first', path: '.' })).toEqual([
        { file: 'a.txt', line: 1, text: 'first line' },
      ])
    })

    it('cuts long lines to 500 characters with a trailing …', async () => {
      const { matches } = setup({ 'min.js': `${'a'.repeat(600)}needle\n` })
      const [match] = await matches({ pattern: 'needle', path: '.' })
      expect(match?.text).toBe(`${'a'.repeat(500)}…`)
    })

    it('finds the same lines as a plain line-by-line search, in files of many chunks', async () => {
      const words = [
        'lorem',
        'ipsum',
        'dolor',
        'sit',
        'amet',
        'colour',
        'color',
        'aab',
        'café',
        'ÉTÉ',
        'x{y}',
      ]
      let seed = 7
      const next = () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31
        return seed
      }
      const lines = Array.from({ length: 6000 }, (_, i) => {
        if (i % 997 === 0) return 'z'.repeat(20_000)
        const line = Array.from({ length: next() % 12 }, () => words[next() % words.length]).join(' ')
        return i % 401 === 3 ? `${line} needle-${i}` : line
      })
      const text = lines.map((line, i) => (i % 5 === 0 ? `${line}\r` : line)).join('\n')
      const { matches, settings } = setup({ 'big.txt': text })
      // Enough to see every chunk, few enough that the JSON stays under the executor's output cap.
      settings({ maxResults: 5000, maxMatchesPerFile: 400 })
      const cases: [string, boolean][] = [
        ['ipsum', false],
        ['dolor sit', false],
        ['colou?r', false],
        ['a+b', false],
        ['\\bsit\\b amet', false],
        ['lorem|amet$', false],
        ['^color', false],
        ['x\\{y\\}', false],
        ['caf.', false],
        ['ÉTÉ', false],
        ['LOREM IPSUM', true],
        ['été|dolor$', true],
        ['z{3}', false],
        ['needle-\\d+', false],
        ['needle-1\\d*$', false],
        ['NEEDLE', true],
      ]
      for (const [pattern, caseInsensitive] of cases) {
        const regex = new RegExp(pattern, caseInsensitive ? 'i' : '')
        const expected = lines
          .map((line, i) => (regex.test(line) ? i + 1 : 0))
          .filter(Boolean)
          .slice(0, 400)
        const found = await matches({ pattern, path: 'big.txt', caseInsensitive })
        expect(
          found.map((match) => match.line),
          pattern,
        ).toEqual(expected)
        expect(expected.length, pattern).toBeGreaterThan(0)
      }
    })
  })

  describe('the glob filter', () => {
    const files = {
      'a.ts': 'needle',
      'src/b.ts': 'needle',
      'src/c.tsx': 'needle',
      'src/deep/d.ts': 'needle',
      'docs/e.md': 'needle',
    }

    it.each([
      ['*.ts', ['a.ts', 'src/b.ts', 'src/deep/d.ts']],
      ['src/*.ts', ['src/b.ts']],
      ['src/**/*.{ts,tsx}', ['src/b.ts', 'src/c.tsx', 'src/deep/d.ts']],
      ['!*.ts', ['docs/e.md', 'src/c.tsx']],
      ['*.[!t]*', ['docs/e.md']],
    ])('with %s searches only the files it matches', async (glob, expected) => {
      const { matches } = setup(files)
      expect((await matches({ pattern: 'needle', path: '.', glob })).map((match) => match.file)).toEqual(
        expected,
      )
    })

    it('reaches dot names with wildcards only with includeDotfiles, as glob does', async () => {
      const { matches, settings } = setup({
        '.hidden/a.ts': 'needle',
        '.hidden/.inner/b.ts': 'needle',
        '.hidden/deep/.env': 'needle',
      })
      const files = async (glob: string) =>
        (await matches({ pattern: 'needle', path: '.', glob })).map((match) => match.file)
      expect(await files('.hidden/**')).toEqual(['.hidden/a.ts'])
      expect(await files('.env')).toEqual([])
      settings({ includeDotfiles: true })
      expect(await files('.hidden/**')).toEqual(['.hidden/.inner/b.ts', '.hidden/a.ts', '.hidden/deep/.env'])
      expect(await files('.env')).toEqual(['.hidden/deep/.env'])
    })

    it('is matched against paths below the folder searched', async () => {
      const { matches } = setup(files)
      expect((await matches({ pattern: 'needle', path: 'src', glob: 'deep/*' })).map((m) => m.file)).toEqual([
        'src/deep/d.ts',
      ])
    })
  })

  describe('limits', () => {
    const files = { 'a.txt': 'hit\nhit\nhit\n', 'b.txt': 'hit\nhit\n' }

    it('stops at maxResults and says truncated', async () => {
      const { found, settings } = setup(files)
      settings({ maxResults: 4 })
      expect(await found({ pattern: 'hit', path: '.' })).toMatchObject({ truncated: true })
      expect(places((await found({ pattern: 'hit', path: '.' })).matches)).toEqual([
        'a.txt:1',
        'a.txt:2',
        'a.txt:3',
        'b.txt:1',
      ])
    })

    it('is not truncated when the matches exactly fill maxResults', async () => {
      const { found, settings } = setup(files)
      settings({ maxResults: 5 })
      const result = await found({ pattern: 'hit', path: '.' })
      expect(result.matches).toHaveLength(5)
      expect(result.truncated).toBe(false)
    })

    it('returns at most maxMatchesPerFile lines of each file', async () => {
      const { matches, settings } = setup(files)
      settings({ maxMatchesPerFile: 2 })
      expect(places(await matches({ pattern: 'hit', path: '.' }))).toEqual([
        'a.txt:1',
        'a.txt:2',
        'b.txt:1',
        'b.txt:2',
      ])
    })

    it('returns whole matches, as valid JSON, when they would pass the result cap', async () => {
      const line = `needle ${'x'.repeat(400)}`
      const files = Object.fromEntries(
        Array.from({ length: 30 }, (_, i) => [`f${String(i).padStart(2, '0')}.txt`, `${line}\n`.repeat(20)]),
      )
      const { grep, settings } = setup(files)
      settings({ maxResults: 5000 })
      const result = await grep({ pattern: 'needle', path: '.' })
      expect(result.content.length).toBeLessThanOrEqual(DEFAULT_MAX_RESULT_CHARS)
      expect(result.content).not.toContain('[Output truncated')
      const found = JSON.parse(result.content) as { matches: Match[]; truncated: boolean }
      expect(found.truncated).toBe(true)
      expect(result.truncated).toBe(true)
      // The first matches in order, as many as fit: about 200 of the 600, one more would not have.
      const count = found.matches.length
      expect(count).toBeGreaterThan(150)
      expect(places(found.matches)).toEqual(
        Array.from(
          { length: count },
          (_, i) => `f${String(Math.floor(i / 20)).padStart(2, '0')}.txt:${(i % 20) + 1}`,
        ),
      )
      const next = { file: 'f00.txt', line: 1, text: line }
      expect(result.content.length + JSON.stringify(next, null, 2).length + 22).toBeGreaterThan(
        DEFAULT_MAX_RESULT_CHARS,
      )
      expect(found.matches.every((match) => match.text === line)).toBe(true)
    })

    it('matches every line with an empty pattern match such as ^, up to the caps', async () => {
      const { matches, settings } = setup({ 'a.txt': 'one\n\nthree' })
      settings({ maxMatchesPerFile: 2 })
      expect(places(await matches({ pattern: '^', path: 'a.txt' }))).toEqual(['a.txt:1', 'a.txt:2'])
    })
  })

  describe('files it skips', () => {
    it('skips binary files (a NUL in the first 8 KiB) in folders, but not a NUL further on', async () => {
      const { matches } = setup({
        'bin.dat': Buffer.concat([Buffer.from('needle\n'), Buffer.from([0]), Buffer.from('\nneedle\n')]),
        'late.log': Buffer.concat([
          Buffer.from(`${'x'.repeat(8192)}\n`),
          Buffer.from([0]),
          Buffer.from('\nneedle\n'),
        ]),
      })
      expect(places(await matches({ pattern: 'needle', path: '.' }))).toEqual(['late.log:3'])
    })

    it('skips files above maxFileSizeBytes in folders', async () => {
      const { matches, settings } = setup({ 'big.txt': `needle\n${'x'.repeat(2000)}`, 'small.txt': 'needle' })
      settings({ maxFileSizeBytes: 1024 })
      expect(places(await matches({ pattern: 'needle', path: '.' }))).toEqual(['small.txt:1'])
    })

    it('reports the files of a folder it skipped for size: all counted, the first five named', async () => {
      const big = `needle\n${'x'.repeat(2 * 1024 * 1024)}\n`
      const { found } = setup({
        'logs/huge.log': big,
        ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`dumps/part-${i}/dump.txt`, big])),
        'small.txt': 'needle',
        'image.png': Buffer.from([0x89, 0x50, 0, 0x47]),
      })
      const result = await found({ pattern: 'needle', path: '.' })
      expect(places(result.matches)).toEqual(['small.txt:1'])
      expect(result.truncated).toBe(false)
      expect(result.skipped).toMatchObject({ count: 7, reasons: { too_large: 7 } })
      expect(result.skipped?.files).toHaveLength(5)
      for (const file of result.skipped?.files ?? []) {
        expect(file.reason).toBe('too_large')
        expect(file.file).toMatch(/^(logs\/huge\.log|dumps\/part-\d\/dump\.txt)$/)
      }
    })

    it('leaves skipped out when every file of the folder was searched or binary', async () => {
      const { found } = setup({ 'a.txt': 'needle', 'image.png': Buffer.from([0x89, 0x50, 0, 0x47]) })
      expect(await found({ pattern: 'needle', path: '.' })).not.toHaveProperty('skipped')
    })

    // Root opens a file whatever its mode, so only another user can see one it cannot open.
    it.skipIf(process.getuid?.() === 0)(
      'reports a file of a folder it could not open as unreadable',
      async () => {
        const { folder, found } = setup({ 'secret.txt': 'needle', 'open.txt': 'needle' })
        chmodSync(join(folder, 'secret.txt'), 0)
        const result = await found({ pattern: 'needle', path: '.' })
        expect(places(result.matches)).toEqual(['open.txt:1'])
        expect(result.skipped).toEqual({
          count: 1,
          reasons: { unreadable: 1 },
          files: [{ file: 'secret.txt', reason: 'unreadable' }],
        })
      },
    )

    it('says why a file named on its own was not searched, rather than finding nothing', async () => {
      const { grep, settings } = setup({ 'bin.dat': Buffer.from([110, 0, 101]), 'big.txt': 'x'.repeat(2000) })
      settings({ maxFileSizeBytes: 1024 })
      const binary = await grep({ pattern: 'n', path: 'bin.dat' })
      expect(binary).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(binary.content).toContain('"bin.dat" was not searched: it looks binary')
      const big = await grep({ pattern: 'x', path: 'big.txt' })
      expect(big).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(big.content).toContain(`"big.txt" was not searched: it is larger than grep's maxFileSizeBytes`)
    })

    it('skips dotfiles unless includeDotfiles', async () => {
      const { matches, settings } = setup({ '.env': 'needle', '.config/a.json': 'needle', 'a.txt': 'needle' })
      expect(places(await matches({ pattern: 'needle', path: '.' }))).toEqual(['a.txt:1'])
      settings({ includeDotfiles: true })
      expect(places(await matches({ pattern: 'needle', path: '.' }))).toEqual([
        '.config/a.json:1',
        '.env:1',
        'a.txt:1',
      ])
    })

    it('skips what .gitignore excludes, node_modules included, unless respectGitignore is off', async () => {
      const { matches, settings } = setup({
        '.gitignore': 'node_modules/\n*.log\n',
        'node_modules/pkg/index.js': 'needle',
        'debug.log': 'needle',
        'src/.gitignore': 'gen/\n',
        'src/gen/out.js': 'needle',
        'src/main.js': 'needle',
      })
      expect(places(await matches({ pattern: 'needle', path: '.' }))).toEqual(['src/main.js:1'])
      expect(places(await matches({ pattern: 'needle', path: 'src' }))).toEqual(['src/main.js:1'])
      settings({ respectGitignore: false })
      expect(places(await matches({ pattern: 'needle', path: '.' }))).toEqual([
        'debug.log:1',
        'node_modules/pkg/index.js:1',
        'src/gen/out.js:1',
        'src/main.js:1',
      ])
    })

    it('does not follow symlinks in a folder, to files or to folders', async () => {
      const { matches, folder } = setup({ 'real.txt': 'needle' })
      const outside = realpathSync(tempDir())
      writeTree(outside, { 'secret.txt': 'needle' })
      symlinkSync('real.txt', join(folder, 'link.txt'))
      symlinkSync(outside, join(folder, 'out'))
      symlinkSync('/etc', join(folder, 'etc'))
      const chat = { mode: 'chat' as const, workingDirectory: null }
      expect(places(await matches({ pattern: 'needle|root:', path: folder }, chat))).toEqual([
        `${join(folder, 'real.txt')}:1`,
      ])
    })

    it('searches what a symlink named on its own leads to, reported by its real path', async () => {
      const { matches, folder } = setup({ 'real.txt': 'needle' })
      symlinkSync('real.txt', join(folder, 'link.txt'))
      expect(places(await matches({ pattern: 'needle', path: 'link.txt' }))).toEqual(['real.txt:1'])
    })

    it('never searches a denied folder inside the one searched', async () => {
      const { matches, settings, folder } = setup({ 'secret/key.txt': 'needle', 'open/a.txt': 'needle' })
      settings({ deniedPaths: [join(folder, 'secret')] })
      expect(places(await matches({ pattern: 'needle', path: '.' }))).toEqual(['open/a.txt:1'])
    })

    it('passes over a FIFO without waiting for a writer', async () => {
      const { matches, folder } = setup({ 'a.txt': 'needle' })
      execFileSync('mkfifo', [join(folder, 'pipe')])
      expect(places(await matches({ pattern: 'needle', path: '.' }))).toEqual(['a.txt:1'])
    })
  })

  describe('result paths', () => {
    it('are relative to the working folder, whatever folder was searched', async () => {
      const { matches } = setup({ 'src/deep/a.ts': 'needle' })
      expect(places(await matches({ pattern: 'needle', path: 'src/deep' }))).toEqual(['src/deep/a.ts:1'])
    })

    it('are absolute in chat mode and without a folder', async () => {
      const { matches, folder } = setup({ 'src/a.ts': 'needle' })
      const expected = [`${join(folder, 'src/a.ts')}:1`]
      expect(places(await matches({ pattern: 'needle', path: folder }, { mode: 'chat' }))).toEqual(expected)
      expect(places(await matches({ pattern: 'needle', path: folder }, { workingDirectory: null }))).toEqual(
        expected,
      )
    })

    it('start from the process’s working directory in chat mode, where the folder is not injected', async () => {
      const { matches } = setup()
      const here = realpathSync(process.cwd())
      expect(
        places(await matches({ pattern: '^  "name": ', path: 'package.json' }, { mode: 'chat' })),
      ).toEqual([`${join(here, 'package.json')}:2`])
    })

    it('are absolute outside the working folder', async () => {
      const { matches, settings } = setup()
      const other = realpathSync(tempDir())
      writeTree(other, { 'notes.md': 'needle' })
      settings({ allowedPaths: [other] })
      expect(places(await matches({ pattern: 'needle', path: other }))).toEqual([
        `${join(other, 'notes.md')}:1`,
      ])
    })

    it.each([
      ['agent', {}],
      ['chat', { mode: 'chat' as const }],
    ])('resolve back to the files they came from (%s)', async (_, overrides) => {
      const { matches, folder, scope, atelier } = setup({ 'a.txt': 'needle', 'src/b.txt': 'needle' })
      const found = await matches({ pattern: 'needle', path: folder }, overrides)
      const context = {
        ...scope,
        ...overrides,
        chatId: null,
        signal: new AbortController().signal,
        onUpdate: () => {},
        settings: atelier.tools.settings.resolve(LOCAL_USER, { tool: grepTool, source: { kind: 'builtin' } })
          .settings,
        protectedPaths: [atelier.dataDir],
        ledger: ephemeralLedger(),
      }
      const resolved = await Promise.all(
        found.map(async ({ file }) => (await resolveAndValidatePath(file, context)).real),
      )
      expect(resolved).toEqual([join(folder, 'a.txt'), join(folder, 'src/b.txt')])
    })
  })

  describe('refusals', () => {
    it.each([
      ['{"pattern": "x", "caseInsensitive": "true"}', '/caseInsensitive: Expected boolean (got "true")'],
      [{ pattern: 'x', path: 42 }, '/path: Expected string (got 42)'],
      [{ pattern: 'x' }, '/path: Expected required property'],
      [{ pattern: 'x', path: '.', glob: 7 }, '/glob: Expected string'],
      [{ pattern: 'x', path: '.', context: 2 }, '/context: Unexpected property'],
    ])('rejects %j as validation_failed instead of guessing', async (args, problem) => {
      const { grep } = setup({ 'a.txt': 'x' })
      const result = await grep(args)
      expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(result.content).toContain(problem)
    })

    it.each([
      ['(unclosed', 'Unterminated group'],
      ['(?i)needle', 'Invalid group'],
      ['a**', 'Nothing to repeat'],
    ])('rejects the invalid regex %s as validation_failed, saying what to fix', async (pattern, reason) => {
      const { grep } = setup({ 'a.txt': 'x' })
      const result = await grep({ pattern, path: '.' })
      expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(result.content).toContain(
        `pattern ${JSON.stringify(pattern)} is not a valid JavaScript regular expression (${reason})`,
      )
      expect(result.content).toContain('use caseInsensitive')
    })

    it.each(['..', '../..', '/etc', '/etc/hostname'])(
      'refuses path %s outside the working folder with path_denied',
      async (path) => {
        const { grep } = setup({ 'a.txt': 'x' })
        expect(await grep({ pattern: 'x', path })).toMatchObject({ isError: true, errorType: 'path_denied' })
      },
    )

    it('answers not_found for a path that does not exist', async () => {
      const { grep } = setup()
      expect(await grep({ pattern: 'x', path: 'nowhere' })).toMatchObject({
        isError: true,
        errorType: 'not_found',
      })
    })
  })

  describe('stopping', () => {
    it('ends a big search when the user stops it, and does no more work after', async () => {
      const line = `${'lorem ipsum dolor sit amet '.repeat(3)}\n`
      const files = Object.fromEntries(
        Array.from({ length: 200 }, (_, i) => [`f${String(i).padStart(3, '0')}.txt`, line.repeat(1500)]),
      )
      const { grep } = setup(files)
      const controller = new AbortController()
      const progress: unknown[] = []
      const result = await grep(
        { pattern: 'no such (text|line)', path: '.' },
        {
          signal: controller.signal,
          onUpdate: (update) => {
            progress.push(update)
            controller.abort()
          },
        },
      )
      expect(result).toMatchObject({ isError: true, errorType: 'aborted' })
      expect(progress).toEqual([{ kind: 'progress', done: expect.any(Number), message: '0 matches' }])
      expect((progress[0] as { done: number }).done).toBeLessThan(200)
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(progress).toHaveLength(1)
    })
  })

  describe('definition', () => {
    it('tells the model what is skipped and the caps, following the settings', async () => {
      const { atelier, settings } = setup()
      const definition = () => {
        const { settings: effective } = atelier.tools.settings.resolve(LOCAL_USER, {
          tool: grepTool,
          source: { kind: 'builtin' },
        })
        return grepTool.buildDefinition?.(effective).description
      }
      expect(definition()).toContain('files excluded by .gitignore')
      expect(definition()).toContain('dotfiles')
      expect(definition()).toContain('at most 100 matching lines (20 per file)')
      settings({ respectGitignore: false, includeDotfiles: true, maxResults: 7, maxMatchesPerFile: 3 })
      expect(definition()).not.toContain('.gitignore')
      expect(definition()).not.toContain('dotfiles')
      expect(definition()).toContain('at most 7 matching lines (3 per file)')
    })
  })
})

describe('grepTool line boundaries', () => {
  const harness = useToolHarness()

  it('reports no empty lines that the file does not have, even across its 16 KiB pieces', async () => {
    const { project, ok } = harness()
    writeFileSync(join(project, 'long.txt'), `${'x'.repeat(20_000)}\nabc\ndef\n`)
    const empty = await ok<{ matches: unknown[] }>('grep', { pattern: '^$', path: 'long.txt' })
    expect(empty.matches).toEqual([])
    const starts = await ok<{ matches: { line: number }[] }>('grep', { pattern: '^', path: 'long.txt' })
    expect(starts.matches.map((m) => m.line)).toEqual([1, 2, 3])
  })

  it('searches dot files a glob names outright', async () => {
    const { project, ok } = harness()
    writeFileSync(join(project, '.eslintrc.json'), '{"rules": {}}')
    writeFileSync(join(project, 'index.js'), 'rules')
    const result = await ok<{ matches: { file: string }[] }>('grep', {
      pattern: 'rules',
      path: '.',
      glob: '.eslintrc*',
    })
    expect(result.matches.map((m) => m.file)).toEqual(['.eslintrc.json'])
  })
})

describe('grepTool against a pathological pattern', () => {
  const harness = useToolHarness()

  it('finishes a catastrophically backtracking pattern quickly instead of freezing the app', async () => {
    const { project, ok } = harness()
    writeFileSync(join(project, 'a.txt'), `${'a'.repeat(40)}b\n`)
    const started = Date.now()
    const result = await ok<{ matches: unknown[] }>('grep', { pattern: '(a+)+$', path: 'a.txt' })
    expect(result.matches).toEqual([])
    expect(Date.now() - started).toBeLessThan(5_000)
  })
})
