/**
 * glob and grep held against the seed's own reference. The seeds define both tools by Bun.Glob: glob
 * lists `new Bun.Glob(pattern).scan({ cwd, dot, onlyFiles: false })`, grep walks a folder with
 * Bun.Glob, reads each candidate with Bun.file().text(), splits it into lines and records
 * { file, line, text }, skipping files with a NUL in their first 8 KiB and files over
 * maxFileSizeBytes. Here a real Bun (the `bun` dev dependency, whose linux x64 build is @oven/bun-linux-x64) runs that reference on a
 * real tree beside our tools, called through the executor, and the results must be the same sets.
 * The seeds have no .gitignore rule, so ours runs with respectGitignore off.
 *
 * Where ours parts from Bun on purpose, a test says "parts from Bun" or names the reading it takes
 * (a leading !, a glob filter without a slash, the caps), asserts both sides, and the tool's
 * description tells the model.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import { globTool } from '../../../../src-main/tools/builtin/glob'
import { grepTool } from '../../../../src-main/tools/builtin/grep'
import { DEFAULT_MAX_RESULT_CHARS } from '../../../../src-main/tools/result-limits'
import { useTempDirs } from '../../../support/temp-dir'
import { useToolHarness, writeTree } from '../../../support/tool-harness'

const BUN = fileURLToPath(new URL('../../../../node_modules/@oven/bun-linux-x64/bin/bun', import.meta.url))
const BUN_RUNS_HERE = process.platform === 'linux' && process.arch === 'x64'

/** The seed's glob and grep, in Bun: reads one JSON request on stdin, prints one JSON answer. */
const REFERENCE = String.raw`
import { readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const request = JSON.parse(readFileSync(0, 'utf8'))

function scan(pattern, cwd, dot, onlyFiles) {
  return [...new Bun.Glob(pattern).scanSync({ cwd, dot, onlyFiles })]
}

function glob({ pattern, cwd, dot }) {
  return scan(pattern, join(request.root, cwd ?? '.'), dot, false).map((path) => join(cwd ?? '', path))
}

/** Bun.Glob's own matcher over everything a scan of ** lists: how Bun.Glob reads a leading !. */
function globMatch({ pattern, cwd, dot }) {
  const matcher = new Bun.Glob(pattern)
  return scan('**', join(request.root, cwd ?? '.'), dot, false)
    .filter((path) => matcher.match(path))
    .map((path) => join(cwd ?? '', path))
}

/**
 * The files grep searches below a folder, by Bun.Glob. Our reading of the filter: without a slash it
 * matches names at any depth, and a leading ! excludes; literal: Bun's scan of the filter as it is.
 */
function candidates(folder, filter, dot, literal) {
  if (!filter) return scan('**/*', folder, dot, true)
  if (literal) return scan(filter, folder, dot, true)
  const anyDepth = (pattern) => (pattern.includes('/') ? pattern : '**/' + pattern)
  if (!filter.startsWith('!')) return scan(anyDepth(filter), folder, dot, true)
  const excluded = new Bun.Glob(anyDepth(filter.slice(1)))
  return scan('**/*', folder, dot, true).filter((path) => !excluded.match(path))
}

async function grep(call) {
  const { path, pattern, glob, literal, caseInsensitive, dot, maxResults, maxMatchesPerFile, maxFileSizeBytes } =
    call
  const target = join(request.root, path)
  const regex = new RegExp(pattern, caseInsensitive ? 'i' : '')
  const files = statSync(target).isDirectory()
    ? candidates(target, glob, dot, literal).map((file) => join(target, file))
    : [target]
  const matches = []
  let truncated = false
  search: for (const file of files.sort()) {
    if (Bun.file(file).size > maxFileSizeBytes) continue
    const bytes = await Bun.file(file).bytes()
    if (bytes.subarray(0, 8192).includes(0)) continue
    const text = await Bun.file(file).text()
    const lines = text.split('\n')
    // The empty string after a final newline is not a line of the file.
    if (text.endsWith('\n')) lines.pop()
    let inFile = 0
    for (let i = 0; i < lines.length && inFile < maxMatchesPerFile; i++) {
      const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i]
      if (!regex.test(line)) continue
      if (matches.length === maxResults) {
        truncated = true
        break search
      }
      matches.push({ file: relative(request.root, file), line: i + 1, text: line })
      inFile++
    }
  }
  return { matches, truncated }
}

const answer = { globs: request.globs.map(glob), globMatches: request.globMatches.map(globMatch), greps: [] }
for (const call of request.greps) answer.greps.push(await grep(call))
process.stdout.write(JSON.stringify(answer))
`

interface GlobCall {
  pattern: string
  cwd?: string
  dot: boolean
}

interface Match {
  file: string
  line: number
  text: string
}

interface GrepCall {
  pattern: string
  path: string
  glob?: string
  /** The reference only: Bun's scan of the glob filter as it is, not our reading of it. */
  literal?: boolean
  caseInsensitive?: boolean
  dot: boolean
  maxResults: number
  maxMatchesPerFile: number
  maxFileSizeBytes: number
}

interface Reference {
  globs: string[][]
  globMatches: string[][]
  greps: { matches: Match[]; truncated: boolean }[]
}

const TEXT = [
  'import { needle } from "./needle"',
  'const Needle = 1 // TODO: rename',
  '',
  'NEEDLE in caps; FIXME later',
  'café and CAFÉ, ſ and s',
  'the end',
  '  trailing spaces   ',
  'phone 555-123-4567 and 42',
  'a.c abc a-c',
].join('\n')

/** Every rule either seed states, on one tree: dot entries, nesting, odd names, binaries, sizes. */
const TREE: Record<string, string | Buffer> = {
  'a.ts': `${TEXT}\n`,
  'b.js': 'export const b = "needle"\n',
  'x1.ts': 'one\n',
  'x2.ts': 'two\n',
  'x10.ts': 'ten\n',
  'README.md': '# Title\n\nSome needle text.\n',
  'package.json': '{ "name": "fixture", "needle": true }\n',
  '.env': 'SECRET=needle\n',
  '.gitignore': 'node_modules/\n*.log\n',
  'debug.log': 'needle in a log\n',
  '.hidden/x.ts': `${TEXT}\n`,
  '.hidden/deep/y.md': 'needle deep in a dot folder\n',
  '.hidden/.inner/z.ts': 'needle\n',
  '.hidden/.env': 'HIDDEN=needle\n',
  'src/a.ts': `${TEXT}\n`,
  'src/b.tsx': 'export const B = () => <div>needle</div>\n',
  'src/.dot.ts': 'needle\n',
  'src/.cache/c.ts': 'needle\n',
  'src/lib/c.ts': TEXT,
  'src/lib/d.js': 'function d() { return "Needle" }\n',
  'src/lib/deep/e.ts': `${TEXT}\n`,
  'src/lib/deep/f.json': '{ "needle": 1 }\n',
  'docs/readme.md': 'needle\nNeedle\nNEEDLE\n',
  'docs/guide/intro.md': 'an intro without the word\n',
  'docs/a b.md': 'needle with spaces in the name\n',
  'docs/weird [1].txt': 'needle in brackets\n',
  'docs/café.md': 'café needle\n',
  'node_modules/pkg/index.js': 'module.exports = "needle"\n',
  'node_modules/pkg/package.json': '{ "name": "pkg" }\n',
  'config/settings.json': '{ "needle": "yes" }\n',
  'config/nested/deeper.json': '{ "needle": "deeper" }\n',
  'config/.local.json': '{ "needle": "local" }\n',
  'crlf.txt': 'needle one\r\nthe end\r\nneedle two\r\n',
  'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('needle after a BOM\n')]),
  'latin1.txt': Buffer.from([
    0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x20, 0xe9, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a,
  ]),
  'bin/tool.bin': Buffer.concat([Buffer.from('needle\n'), Buffer.from([0]), Buffer.from('\nneedle\n')]),
  'bin/late.bin': Buffer.concat([
    Buffer.from(`${'x'.repeat(8192)}\n`),
    Buffer.from([0]),
    Buffer.from('\nneedle\n'),
  ]),
  'big/large.txt': `needle\n${'filler line\n'.repeat(500)}`,
  'big/small.txt': 'needle\n',
}
const EMPTY_FOLDERS = ['empty', '.emptydot', 'src/lib/void']
/** Below MAX_FILE_SIZE: large.txt (6 KB) is skipped, everything else searched. */
const MAX_FILE_SIZE = 4096

const GLOB_PATTERNS = [
  '*',
  '**',
  '**/*',
  '*.ts',
  '**/*.ts',
  '**/*.{ts,tsx}',
  '**/*.[jt]s',
  '**/[a-c].ts',
  'x?.ts',
  'x[12].ts',
  'x[!1].ts',
  'x[0-9]*.ts',
  'src/*',
  'src/**',
  'src/**/*',
  'src/**/*.ts',
  'src/lib/**',
  'src/lib/**/*',
  '**/lib/**',
  '**/deep/*',
  '{src,docs}/*',
  '{src,docs}/**',
  '*/*/*',
  '.hidden/*',
  '.hidden/**',
  '.env',
  '**/.env',
  '.*',
  '**/.*',
  '**/.cache/*',
  '**/*.json',
  'config/**/*.json',
  'docs/*.md',
  'docs/a b.md',
  'docs/caf*',
  'docs/weird \\[1\\].txt',
  '@(src|docs)',
  '*/',
  'src/*/',
  'src/lib',
  'package.json',
  'package.json/**',
  'missing.txt',
  'missing/*',
  'empty',
  'empty/**',
  'link.ts',
  'linkdir',
  '**/*.md',
]
/** A leading ! is where scanning and matching part in Bun; see DECIDED. */
const NEGATED_PATTERNS = ['!**/*.ts', '!src/**', '!*', '!**/*.{md,json}', '!.env', '!.hidden/**']
const GLOB_CWDS: [string, string][] = [
  ['src', '**/*.ts'],
  ['src', '**'],
  ['src', 'lib/**'],
  ['.hidden', '**'],
  ['docs', '*'],
]

const GREP_PATTERNS: [string, boolean?][] = [
  ['needle'],
  ['needle', true],
  ['Needle'],
  ['NEEDLE|FIXME'],
  ['^import'],
  ['end$'],
  ['^$'],
  ['^'],
  ['\\s+$'],
  ['\\bneedle\\b'],
  ['\\d{3}-\\d{4}'],
  ['a.c'],
  ['a\\.c'],
  ['[A-Z]{4,}'],
  ['caf[eé]'],
  ['café', true],
  ['s', true],
  ['ſ'],
  ['(?:TODO|FIXME):?'],
  ['"needle"'],
  ['x{3,}'],
  ['needle.*text'],
  ['\\u00e9'],
]
const GREP_FILTERS = [
  '*.ts',
  '*.json',
  '*.md',
  '*.{ts,tsx}',
  'src/**/*.ts',
  'src/*.ts',
  'docs/*',
  '**/deep/*',
  '!*.ts',
  '!**/*.md',
  '.env',
  '.*',
  '!.env',
  '.hidden/**',
]
const GREP_PATHS = [
  '.',
  'src',
  'docs',
  '.hidden',
  'a.ts',
  'crlf.txt',
  'bom.txt',
  'latin1.txt',
  'bin/late.bin',
]

/**
 * Where ours parts from Bun's scan on purpose, each told to the model in the tool's description.
 * `bun` is what Bun's scan lists, asserted so that a Bun that changes shows here; `ours` is ours.
 */
const DECIDED_GLOBS: { why: string; pattern: string; dot: boolean; bun: string[]; ours: string[] }[] = [
  {
    why: 'a trailing **/ lists the folders at every depth, as bash’s globstar does; Bun’s stops at the first level',
    pattern: 'src/**/',
    dot: false,
    bun: ['src/lib'],
    ours: ['src/lib', 'src/lib/deep', 'src/lib/void'],
  },
  {
    why: 'the same at the top: Bun’s **/ lists the top-level folders only',
    pattern: '**/',
    dot: false,
    bun: ['big', 'bin', 'config', 'docs', 'empty', 'node_modules', 'src'],
    ours: [
      'big',
      'bin',
      'config',
      'config/nested',
      'docs',
      'docs/guide',
      'empty',
      'node_modules',
      'node_modules/pkg',
      'src',
      'src/lib',
      'src/lib/deep',
      'src/lib/void',
    ],
  },
  {
    why: 'a trailing / lists folders only; Bun’s **/*/ lists files too',
    pattern: 'docs/**/*/',
    dot: false,
    bun: [
      'docs/a b.md',
      'docs/café.md',
      'docs/guide',
      'docs/guide/intro.md',
      'docs/readme.md',
      'docs/weird [1].txt',
    ],
    ours: ['docs/guide'],
  },
  {
    why: 'a pattern that names a symlinked folder lists what is in it by real path, as grep names a linked path',
    pattern: 'linkdir/*',
    dot: false,
    bun: ['linkdir/c.ts', 'linkdir/d.js', 'linkdir/deep', 'linkdir/void'],
    ours: ['src/lib/c.ts', 'src/lib/d.js', 'src/lib/deep', 'src/lib/void'],
  },
]

const sorted = (paths: string[]) => [...paths].sort()
const byPlace = (a: Match, b: Match) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line)
const place = (match: Match) => `${match.file}:${match.line}:${match.text}`

describe.skipIf(!BUN_RUNS_HERE)(
  'glob and grep beside Bun.Glob, the seed’s reference (linux x64 only: Bun comes from @oven/bun-linux-x64)',
  () => {
    const tempDir = useTempDirs()
    const harness = useToolHarness()

    function setup(tree: Record<string, string | Buffer> = TREE) {
      const { project, atelier, run } = harness()
      writeTree(project, tree)
      if (tree === TREE) {
        for (const folder of EMPTY_FOLDERS) mkdirSync(join(project, folder), { recursive: true })
        symlinkSync('a.ts', join(project, 'link.ts'))
        symlinkSync('src/lib', join(project, 'linkdir'))
      }
      const settings = (tool: string, parameters: Record<string, unknown>) =>
        atelier.tools.settings.update(LOCAL_USER, tool, { parameters })
      /** The reference's answers for many calls, from one Bun process. */
      function reference(calls: { globs?: GlobCall[]; globMatches?: GlobCall[]; greps?: GrepCall[] }) {
        const script = join(tempDir(), 'reference.mjs')
        writeFileSync(script, REFERENCE)
        const request = { root: project, globs: [], globMatches: [], greps: [], ...calls }
        const output = execFileSync(BUN, [script], { input: JSON.stringify(request), maxBuffer: 256 << 20 })
        return JSON.parse(output.toString()) as Reference
      }
      /** Ours, with the call's dot and nothing left out for .gitignore (the seeds have no such rule). */
      async function glob({ pattern, cwd, dot }: GlobCall, maxResults = 5000) {
        settings('glob', { includeDotfiles: dot, respectGitignore: false, maxResults })
        return await run('glob', cwd ? { pattern, cwd } : { pattern })
      }
      async function globs(calls: GlobCall[]) {
        const found: string[][] = []
        for (const call of calls) found.push(parsed<{ matches: string[] }>(await glob(call)).matches)
        return found
      }
      async function grep(call: GrepCall) {
        const { dot, maxResults, maxMatchesPerFile, maxFileSizeBytes, literal: _, ...args } = call
        settings('grep', {
          includeDotfiles: dot,
          respectGitignore: false,
          maxResults,
          maxMatchesPerFile,
          maxFileSizeBytes,
        })
        return await run('grep', args)
      }
      return { project, reference, glob, globs, grep }
    }

    function parsed<T>(result: { isError: boolean; content: string }): T {
      if (result.isError) throw new Error(result.content)
      return JSON.parse(result.content) as T
    }

    it('runs a real Bun', () => {
      expect(existsSync(BUN), `${BUN} is missing: npm install puts @oven/bun-linux-x64 there`).toBe(true)
      expect(execFileSync(BUN, ['--version']).toString().trim()).toBe('1.4.5')
    })

    describe('glob', () => {
      it('lists the same paths as Bun.Glob’s scan, for every pattern, with dot on and off', async () => {
        const { reference, globs } = setup()
        const calls: GlobCall[] = [
          ...GLOB_PATTERNS.flatMap((pattern) => [false, true].map((dot) => ({ pattern, dot }))),
          ...GLOB_CWDS.flatMap(([cwd, pattern]) => [false, true].map((dot) => ({ pattern, cwd, dot }))),
        ]
        const bun = reference({ globs: calls }).globs
        const ours = await globs(calls)
        const differences = calls.flatMap((call, i) => {
          const expected = sorted(bun[i] as string[])
          return JSON.stringify(ours[i]) === JSON.stringify(expected)
            ? []
            : [{ ...call, bun: expected, ours: ours[i] }]
        })
        expect(differences).toEqual([])
        expect(calls.length).toBeGreaterThan(100)
      })

      it('lists what is inside dir for dir/**, never dir itself, as Bun does', async () => {
        const { reference, globs } = setup()
        const dirs: [string, string[]][] = [
          ['src/**', ['src']],
          ['.hidden/**', ['.hidden']],
          ['**/lib/**', ['src/lib']],
          ['{src,docs}/**', ['src', 'docs']],
          ['empty/**', ['empty']],
        ]
        const calls = dirs.map(([pattern]) => ({ pattern, dot: false }))
        const bun = reference({ globs: calls }).globs
        const ours = await globs(calls)
        dirs.forEach(([pattern, themselves], i) => {
          expect(ours[i], pattern).toEqual(sorted(bun[i] as string[]))
          for (const dir of themselves) expect(ours[i], pattern).not.toContain(dir)
        })
        expect(ours[0]).toContain('src/lib')
      })

      it('lists for a leading ! every path the rest does not match: Bun.Glob’s matcher, not its scan', async () => {
        const { reference, globs } = setup()
        const calls = NEGATED_PATTERNS.flatMap((pattern) => [false, true].map((dot) => ({ pattern, dot })))
        const bun = reference({ globs: calls, globMatches: calls })
        const ours = await globs(calls)
        // Bun's scan lists nothing for !**/*.ts, and for other negations a set that is not the complement.
        expect(bun.globs[0]).toEqual([])
        calls.forEach((call, i) => {
          const matched = sorted(bun.globMatches[i] as string[])
          expect(matched.length, JSON.stringify(call)).toBeGreaterThan(0)
          expect(sorted(bun.globs[i] as string[]), JSON.stringify(call)).not.toEqual(matched)
          expect(ours[i], JSON.stringify(call)).toEqual(matched)
        })
        expect(ours[0]).not.toContain('a.ts')
        expect(ours[0]).toContain('README.md')
      })

      it.each(DECIDED_GLOBS)('parts from Bun for $pattern on purpose: $why', async (decided) => {
        const { reference, globs } = setup()
        const call = { pattern: decided.pattern, dot: decided.dot }
        expect(sorted(reference({ globs: [call] }).globs[0] as string[])).toEqual(decided.bun)
        expect((await globs([call]))[0]).toEqual(decided.ours)
      })

      it('says so in the pattern’s description', () => {
        const pattern = (
          globTool.definition.parameters as { properties: { pattern: { description: string } } }
        ).properties.pattern.description
        expect(pattern).toContain('dir/** matches what is inside dir, not dir itself')
        expect(pattern).toContain('a leading ! lists every path the rest does not match')
        expect(pattern).toContain('a trailing / matches folders only')
        expect(globTool.definition.description).toContain('unless a pattern names one')
      })

      it('at maxResults returns that many of Bun’s paths and says truncated', async () => {
        const { reference, glob } = setup()
        const call = { pattern: '**', dot: true }
        const all = reference({ globs: [call] }).globs[0] as string[]
        const found = parsed<{ matches: string[]; truncated: boolean }>(await glob(call, 7))
        expect(found.truncated).toBe(true)
        expect(found.matches).toHaveLength(7)
        for (const path of found.matches) expect(all).toContain(path)
        const exact = parsed<{ matches: string[]; truncated: boolean }>(await glob(call, all.length))
        expect(exact).toMatchObject({ matches: sorted(all), truncated: false })
      })

      it('lists whole paths under the result cap, as valid JSON with truncated, when they would pass it', async () => {
        const name = (i: number) =>
          `files/${'long-folder-name-'.repeat(3)}${i}/${'a-long-file-name-'.repeat(3)}${i}.txt`
        const tree = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [name(i), '']))
        const { reference, glob } = setup(tree)
        const call = { pattern: '**/*.txt', dot: false }
        const all = reference({ globs: [call] }).globs[0] as string[]
        expect(JSON.stringify(all).length).toBeGreaterThan(DEFAULT_MAX_RESULT_CHARS)
        const result = await glob(call)
        expect(result.content.length).toBeLessThanOrEqual(DEFAULT_MAX_RESULT_CHARS)
        expect(result.content).not.toContain('[Output truncated')
        const found = parsed<{ matches: string[]; truncated: boolean }>(result)
        expect(found.truncated).toBe(true)
        expect(result.truncated).toBe(true)
        // Whole paths, as many as fit: the next would not have.
        expect(found.matches).toEqual(sorted(all).slice(0, found.matches.length))
        const next = sorted(all)[found.matches.length] as string
        expect(result.content.length + JSON.stringify(next).length + 6).toBeGreaterThan(
          DEFAULT_MAX_RESULT_CHARS,
        )
      })
    })

    describe('grep', () => {
      const limits = { maxResults: 5000, maxMatchesPerFile: 1000, maxFileSizeBytes: MAX_FILE_SIZE }

      it('finds the same lines as the seed’s grep in Bun, for every pattern, path and glob filter', async () => {
        const { reference, grep } = setup()
        const calls: GrepCall[] = [
          ...GREP_PATTERNS.flatMap(([pattern, caseInsensitive]) =>
            GREP_PATHS.flatMap((path) =>
              [false, true].map((dot) => ({ pattern, path, caseInsensitive, dot, ...limits })),
            ),
          ),
          ...GREP_FILTERS.flatMap((glob) =>
            ['.', 'src'].flatMap((path) =>
              [false, true].map((dot) => ({ pattern: 'needle', path, glob, dot, ...limits })),
            ),
          ),
        ]
        const bun = reference({ greps: calls }).greps
        const differences: unknown[] = []
        for (const [i, call] of calls.entries()) {
          const result = await grep(call)
          const expected = bun[i] as Reference['greps'][number]
          // A file named on its own that cannot be searched is an error in ours, never "no match".
          if (result.isError) {
            if (expected.matches.length > 0)
              differences.push({ ...call, bun: expected, ours: result.content })
            continue
          }
          const { matches, truncated } = parsed<{ matches: Match[]; truncated: boolean }>(result)
          const same =
            JSON.stringify({ matches, truncated }) ===
            JSON.stringify({ matches: expected.matches.sort(byPlace), truncated: expected.truncated })
          if (!same) differences.push({ ...call, bun: expected, ours: { matches, truncated } })
        }
        expect(differences).toEqual([])
        expect(calls.length).toBeGreaterThan(400)
      })

      it('reads a glob filter without a slash at any depth, as ripgrep does, where Bun’s scan stays at the top', async () => {
        const { reference, grep } = setup()
        const call = { pattern: 'needle', path: '.', glob: '*.json', dot: false, ...limits }
        const [literal, anyDepth] = reference({ greps: [{ ...call, literal: true }, call] }).greps
        expect(literal?.matches.map((match) => match.file)).toEqual(['package.json'])
        const ours = parsed<{ matches: Match[] }>(await grep(call)).matches
        expect(ours.map((match) => match.file)).toEqual([
          'config/nested/deeper.json',
          'config/settings.json',
          'package.json',
          'src/lib/deep/f.json',
        ])
        expect(ours).toEqual(anyDepth?.matches.sort(byPlace))
        // With a slash the glob is the path below the folder, as in Bun.
        const top = { ...call, glob: 'src/*.ts' }
        const [bunTop] = reference({ greps: [{ ...top, literal: true }] }).greps
        expect(parsed<{ matches: Match[] }>(await grep(top)).matches).toEqual(bunTop?.matches.sort(byPlace))
      })

      it('says so in the glob filter’s description', () => {
        const glob = (grepTool.definition.parameters as { properties: { glob: { description: string } } })
          .properties.glob.description
        expect(glob).toContain('Without a / it matches file names at any depth')
        expect(glob).toContain('with a / it matches the path below the folder')
      })

      it('parts from Bun for a symlinked folder it is pointed at: matches are named by real path', async () => {
        const { reference, grep } = setup()
        const call = { pattern: 'return "Needle"', path: 'linkdir', dot: false, ...limits }
        const [bun] = reference({ greps: [call] }).greps
        expect(bun?.matches.map(place)).toEqual(['linkdir/d.js:1:function d() { return "Needle" }'])
        expect(parsed<{ matches: Match[] }>(await grep(call)).matches.map(place)).toEqual([
          'src/lib/d.js:1:function d() { return "Needle" }',
        ])
      })

      it('at maxResults and maxMatchesPerFile returns that many of Bun’s lines and says truncated', async () => {
        const { reference, grep } = setup()
        const call = { pattern: 'e', path: '.', dot: true, ...limits }
        const all = (reference({ greps: [call] }).greps[0] as Reference['greps'][number]).matches.map(place)
        const capped = parsed<{ matches: Match[]; truncated: boolean }>(
          await grep({ ...call, maxResults: 10, maxMatchesPerFile: 2 }),
        )
        expect(capped.truncated).toBe(true)
        expect(capped.matches).toHaveLength(10)
        for (const match of capped.matches) expect(all).toContain(place(match))
        for (const { file } of capped.matches) {
          expect(capped.matches.filter((match) => match.file === file).length).toBeLessThanOrEqual(2)
        }
      })

      it('returns whole matches under the result cap, as valid JSON with truncated, when they would pass it', async () => {
        const line = (i: number) => `needle ${i} ${'x'.repeat(400)}`
        const tree = Object.fromEntries(
          Array.from({ length: 100 }, (_, f) => [
            `many/file-${String(f).padStart(3, '0')}.txt`,
            Array.from({ length: 20 }, (_, i) => line(i)).join('\n'),
          ]),
        )
        const { reference, grep } = setup(tree)
        const call = { pattern: 'needle', path: '.', dot: false, ...limits, maxFileSizeBytes: 1 << 20 }
        const all = (reference({ greps: [call] }).greps[0] as Reference['greps'][number]).matches
        expect(all).toHaveLength(2000)
        const result = await grep(call)
        expect(result.content.length).toBeLessThanOrEqual(DEFAULT_MAX_RESULT_CHARS)
        expect(result.content).not.toContain('[Output truncated')
        const found = parsed<{ path: string; matches: Match[]; truncated: boolean }>(result)
        expect(found.truncated).toBe(true)
        expect(result.truncated).toBe(true)
        // Whole matches, the first ones, as many as fit: one more would not have.
        expect(found.matches).toEqual(all.sort(byPlace).slice(0, found.matches.length))
        expect(found.matches.length).toBeGreaterThan(150)
        const next = all[found.matches.length] as Match
        // A match in the list: its object indented by 4 on each of its 5 lines, then ",\n".
        expect(result.content.length + JSON.stringify(next, null, 2).length + 22).toBeGreaterThan(
          DEFAULT_MAX_RESULT_CHARS,
        )
      })
    })
  },
)
