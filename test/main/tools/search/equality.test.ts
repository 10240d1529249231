/**
 * The seed's rules, on one real tree, as glob and grep answered them before their walk and match
 * moved into worker threads: the same paths and lines, in the same order, cut at the same caps.
 * (The tool tests and the Bun differential test hold the rest.)
 */
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import { useToolHarness, writeTree } from '../../../support/tool-harness'

const TREE: Record<string, string | Buffer> = {
  '.gitignore': 'ignored/\n*.log\n!keep.log\n',
  '.env': 'needle env\n',
  '.hidden/h.txt': 'needle hidden\n',
  'big.txt': `needle big\n${'x'.repeat(2000)}\n`,
  'bin.dat': Buffer.concat([Buffer.from('ab\0cd\n'), Buffer.from('needle binary\n')]),
  'debug.log': 'needle log\n',
  'keep.log': 'needle keep\n',
  'ignored/z.txt': 'needle z\n',
  'secret/s.txt': 'needle secret\n',
  'src/a.ts': 'needle a1\nx\nneedle a3\n',
  'src/b.ts': 'needle\n'.repeat(5),
  'src/nested/.gitignore': '*.tmp\n!important.tmp\n',
  'src/nested/x.tmp': 'needle x\n',
  'src/nested/important.tmp': 'needle important\n',
  'src/nested/deep/y.tmp': 'needle y\n',
  'sub/c.md': 'needle c\n',
}

interface Match {
  file: string
  line: number
  text: string
}

const places = (matches: Match[]) => matches.map((match) => `${match.file}:${match.line}`)

describe('glob and grep in workers give the results they gave in-thread', () => {
  const harness = useToolHarness()

  function setup(tool: 'glob' | 'grep', parameters: Record<string, unknown> = {}) {
    const tools = harness()
    writeTree(tools.project, TREE)
    tools.atelier.tools.settings.update(LOCAL_USER, tool, { parameters })
    return tools
  }
  const denySecret = { deniedPaths: ['secret'] }

  describe('grep', () => {
    async function grep(parameters: Record<string, unknown>, args: Record<string, unknown> = {}) {
      const { ok } = setup('grep', parameters)
      return ok<{ path: string; matches: Match[]; truncated: boolean }>('grep', {
        pattern: 'needle',
        path: '.',
        ...args,
      })
    }

    it('skips dotfiles, gitignored files (nested rules and negations too), binary files and denied folders', async () => {
      const result = await grep(denySecret)
      expect(places(result.matches)).toEqual([
        'big.txt:1',
        'keep.log:1',
        'src/a.ts:1',
        'src/a.ts:3',
        'src/b.ts:1',
        'src/b.ts:2',
        'src/b.ts:3',
        'src/b.ts:4',
        'src/b.ts:5',
        'src/nested/important.tmp:1',
        'sub/c.md:1',
      ])
      expect(result.truncated).toBe(false)
      expect(result.matches[0]).toEqual({ file: 'big.txt', line: 1, text: 'needle big' })
    })

    it('searches a denied folder’s files once it is no longer denied', async () => {
      expect(places((await grep({})).matches)).toContain('secret/s.txt:1')
    })

    it('skips files over maxFileSizeBytes', async () => {
      expect(places((await grep({ ...denySecret, maxFileSizeBytes: 1024 })).matches)).not.toContain(
        'big.txt:1',
      )
    })

    it('includes dotfiles and gitignored files when the settings say so', async () => {
      const result = await grep({ ...denySecret, includeDotfiles: true, respectGitignore: false })
      expect(places(result.matches)).toEqual([
        '.env:1',
        '.hidden/h.txt:1',
        'big.txt:1',
        'debug.log:1',
        'ignored/z.txt:1',
        'keep.log:1',
        'src/a.ts:1',
        'src/a.ts:3',
        'src/b.ts:1',
        'src/b.ts:2',
        'src/b.ts:3',
        'src/b.ts:4',
        'src/b.ts:5',
        'src/nested/deep/y.tmp:1',
        'src/nested/important.tmp:1',
        'src/nested/x.tmp:1',
        'sub/c.md:1',
      ])
    })

    it('cuts at maxMatchesPerFile and at maxResults, keeping the first matches in walk order', async () => {
      expect(places((await grep({ ...denySecret, maxMatchesPerFile: 2 })).matches)).toEqual([
        'big.txt:1',
        'keep.log:1',
        'src/a.ts:1',
        'src/a.ts:3',
        'src/b.ts:1',
        'src/b.ts:2',
        'src/nested/important.tmp:1',
        'sub/c.md:1',
      ])
      const capped = await grep({ ...denySecret, maxResults: 4 })
      expect(places(capped.matches)).toEqual(['big.txt:1', 'keep.log:1', 'src/a.ts:1', 'src/a.ts:3'])
      expect(capped.truncated).toBe(true)
    })

    it('names files relative to the working folder when searching below it, or one file', async () => {
      const below = await grep(denySecret, { path: 'src/nested' })
      expect(below).toEqual({
        path: 'src/nested',
        matches: [{ file: 'src/nested/important.tmp', line: 1, text: 'needle important' }],
        truncated: false,
      })
      const one = await grep(denySecret, { path: 'src/a.ts', glob: undefined })
      expect(places(one.matches)).toEqual(['src/a.ts:1', 'src/a.ts:3'])
    })

    it('filters by a glob at any depth', async () => {
      expect(places((await grep(denySecret, { glob: '*.tmp' })).matches)).toEqual([
        'src/nested/important.tmp:1',
      ])
    })
  })

  describe('glob', () => {
    async function glob(parameters: Record<string, unknown>, args: Record<string, unknown> = {}) {
      const { ok } = setup('glob', parameters)
      return ok<{ cwd: string; matches: string[]; truncated: boolean }>('glob', { pattern: '**/*', ...args })
    }

    it('skips dotfiles, gitignored entries (nested rules and negations too) and denied folders', async () => {
      expect(await glob(denySecret)).toMatchObject({
        matches: [
          'big.txt',
          'bin.dat',
          'keep.log',
          'src',
          'src/a.ts',
          'src/b.ts',
          'src/nested',
          'src/nested/deep',
          'src/nested/important.tmp',
          'sub',
          'sub/c.md',
        ],
        truncated: false,
      })
      expect((await glob({})).matches).toContain('secret/s.txt')
    })

    it('lists dot entries and ignored ones when the settings say so', async () => {
      expect((await glob({ ...denySecret, includeDotfiles: true, respectGitignore: false })).matches).toEqual(
        [
          '.env',
          '.gitignore',
          '.hidden',
          '.hidden/h.txt',
          'big.txt',
          'bin.dat',
          'debug.log',
          'ignored',
          'ignored/z.txt',
          'keep.log',
          'src',
          'src/a.ts',
          'src/b.ts',
          'src/nested',
          'src/nested/.gitignore',
          'src/nested/deep',
          'src/nested/deep/y.tmp',
          'src/nested/important.tmp',
          'src/nested/x.tmp',
          'sub',
          'sub/c.md',
        ],
      )
    })

    it('cuts at maxResults, keeping the first paths in walk order', async () => {
      expect(await glob({ ...denySecret, maxResults: 3 })).toMatchObject({
        matches: ['big.txt', 'bin.dat', 'keep.log'],
        truncated: true,
      })
    })

    it('names paths relative to the working folder from a cwd below it', async () => {
      expect(await glob(denySecret, { cwd: 'src', pattern: '**/*.tmp' })).toEqual({
        cwd: 'src',
        matches: ['src/nested/important.tmp'],
        truncated: false,
      })
    })
  })
})
