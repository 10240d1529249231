/**
 * The search workers' warm tree cache (tools/search/tree-cache.ts) against the disk: a tree is
 * searched once, the caches are let settle (every cached folder watched, every file a grep walked
 * past summarized), the tree is changed, and the very next call — no sleep in between — must give
 * what a cold search of the changed tree gives. Each test first checks that the cache really holds
 * the tree, so an invalidation test cannot pass with no cache at all.
 *
 * The pool is the process's one and shared by the tests; every test drops its project folder's
 * caches when it ends, so the figures a test reads are its own.
 */
import {
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import { dropSearchCache } from '../../../../src-main/tools/search/search-call'
import type { CacheStats } from '../../../../src-main/tools/search/tree-cache'
import { searchPool } from '../../../../src-main/tools/search/worker-pool'
import { useToolHarness, writeTree } from '../../../support/tool-harness'

interface GrepMatch {
  file: string
  line: number
  text: string
}

/** The caches' figures summed over the workers. */
async function totals(): Promise<CacheStats> {
  const sum: CacheStats = { folders: 0, watched: 0, summaries: 0, bytes: 0, filesRead: 0 }
  for (const stats of (await searchPool().cacheStats()).values()) {
    for (const key of Object.keys(sum) as (keyof CacheStats)[]) sum[key] += stats[key]
  }
  return sum
}

/** Once every worker finished its background work: the caches' figures. */
async function settledTotals(): Promise<CacheStats> {
  await searchPool().settled()
  return totals()
}

/** Pushes a file's mtime `seconds` forward. */
function touchForward(path: string, seconds = 5): void {
  const { atimeMs, mtimeMs } = statSync(path)
  utimesSync(path, atimeMs / 1000, mtimeMs / 1000 + seconds)
}

/**
 * A small tree with folders down to depth 3 (those are walked by parts of their own, so by more
 * than one worker), a nested .gitignore, and files that match "needle" and files that do not.
 */
const TREE: Record<string, string> = {
  '.gitignore': 'ignored/\n*.log\n',
  'a.txt': 'needle a\n',
  'b.txt': 'nopeee b\n',
  'debug.log': 'needle log\n',
  'ignored/i.txt': 'needle ignored\n',
  'lib/k.ts': 'needle k\n',
  'src/c.ts': 'needle c\n',
  'src/d.ts': 'nopeee d\n',
  'src/deep/e.ts': 'needle e\n',
  'src/deep/one/f.ts': 'needle f\n',
  'src/deep/two/.gitignore': '*.tmp\n',
  'src/deep/two/g.ts': 'nopeee g\n',
  'src/deep/two/h.tmp': 'needle h\n',
}
/** The folders a walk of TREE enters (ignored/ is pruned). */
const TREE_FOLDERS = ['.', 'lib', 'src', 'src/deep', 'src/deep/one', 'src/deep/two']
/** The files in those folders, which a grep's folders get summaries of (ignored ones too). */
const TREE_FILES_WALKED = 12

const GREP_BEFORE = [
  'a.txt:1:needle a',
  'lib/k.ts:1:needle k',
  'src/c.ts:1:needle c',
  'src/deep/e.ts:1:needle e',
  'src/deep/one/f.ts:1:needle f',
]
const GLOB_BEFORE = [
  'a.txt',
  'b.txt',
  'lib',
  'lib/k.ts',
  'src',
  'src/c.ts',
  'src/d.ts',
  'src/deep',
  'src/deep/e.ts',
  'src/deep/one',
  'src/deep/one/f.ts',
  'src/deep/two',
  'src/deep/two/g.ts',
]

describe('the warm tree cache', () => {
  const harness = useToolHarness()
  const projects: string[] = []
  afterEach(() => {
    for (const project of projects.splice(0)) dropSearchCache(project)
  })

  function setup(files: Record<string, string | Buffer>, parameters: Record<string, unknown> = {}) {
    const tools = harness()
    projects.push(tools.project)
    writeTree(tools.project, files)
    const settings = (more: Record<string, unknown>) => {
      for (const tool of ['grep', 'glob'])
        tools.atelier.tools.settings.update(LOCAL_USER, tool, { parameters: { ...parameters, ...more } })
    }
    settings({})
    /** "file:line:text" of every match of `pattern` below the working folder. */
    const grep = async (pattern = 'needle', args: Record<string, unknown> = {}) => {
      const result = await tools.ok<{ matches: GrepMatch[]; truncated: boolean }>('grep', {
        pattern,
        path: '.',
        ...args,
      })
      expect(result.truncated).toBe(false)
      return result.matches.map((match) => `${match.file}:${match.line}:${match.text}`)
    }
    const glob = async (pattern = '**/*', args: Record<string, unknown> = {}) => {
      const result = await tools.ok<{ matches: string[]; truncated: boolean }>('glob', { pattern, ...args })
      expect(result.truncated).toBe(false)
      return result.matches
    }
    /** The same call with no cache at all: what the warm one must give. */
    const cold = async <T>(call: () => Promise<T>): Promise<T> => {
      settings({ cacheMiB: 0 })
      try {
        return await call()
      } finally {
        settings({})
      }
    }
    const path = (...parts: string[]) => join(tools.project, ...parts)
    return { ...tools, grep, glob, cold, settings, path }
  }

  /** TREE searched by grep and glob and settled: every folder walked is watched, its files summarized. */
  async function warmTree() {
    const tools = setup(TREE)
    expect(await totals()).toMatchObject({ folders: 0, summaries: 0, bytes: 0 })
    expect(await tools.grep()).toEqual(GREP_BEFORE)
    expect(await tools.glob()).toEqual(GLOB_BEFORE)
    const stats = await settledTotals()
    expect(stats.watched).toBeGreaterThanOrEqual(TREE_FOLDERS.length)
    expect(stats.watched).toBe(stats.folders)
    expect(stats.summaries).toBeGreaterThanOrEqual(TREE_FILES_WALKED)
    expect(stats.bytes).toBeGreaterThan(0)
    return tools
  }

  type Tools = Awaited<ReturnType<typeof warmTree>>

  /** A change to TREE, and what grep "needle" and glob "**\/*" give once it is made. */
  interface Change {
    name: string
    change: (tools: Tools) => void
    grep: string[]
    glob: string[]
  }

  const changes: Change[] = [
    {
      name: 'a file created in a cached folder (at the top and at depth 3)',
      change: ({ path }) => {
        writeFileSync(path('src/new.ts'), 'needle new\n')
        writeFileSync(path('src/deep/one/new.ts'), 'needle deep new\n')
        writeFileSync(path('src/deep/two/quiet.ts'), 'nothing\n')
      },
      grep: [
        'a.txt:1:needle a',
        'lib/k.ts:1:needle k',
        'src/c.ts:1:needle c',
        'src/deep/e.ts:1:needle e',
        'src/deep/one/f.ts:1:needle f',
        'src/deep/one/new.ts:1:needle deep new',
        'src/new.ts:1:needle new',
      ],
      glob: [
        'a.txt',
        'b.txt',
        'lib',
        'lib/k.ts',
        'src',
        'src/c.ts',
        'src/d.ts',
        'src/deep',
        'src/deep/e.ts',
        'src/deep/one',
        'src/deep/one/f.ts',
        'src/deep/one/new.ts',
        'src/deep/two',
        'src/deep/two/g.ts',
        'src/deep/two/quiet.ts',
        'src/new.ts',
      ],
    },
    {
      name: 'a file created in a folder made after the first call',
      change: ({ path }) => {
        mkdirSync(path('fresh/inner'), { recursive: true })
        writeFileSync(path('fresh/inner/n.ts'), 'needle fresh\n')
        mkdirSync(path('src/deep/one/sub'))
        writeFileSync(path('src/deep/one/sub/m.ts'), 'needle sub\n')
      },
      grep: [
        'a.txt:1:needle a',
        'fresh/inner/n.ts:1:needle fresh',
        'lib/k.ts:1:needle k',
        'src/c.ts:1:needle c',
        'src/deep/e.ts:1:needle e',
        'src/deep/one/f.ts:1:needle f',
        'src/deep/one/sub/m.ts:1:needle sub',
      ],
      glob: [
        'a.txt',
        'b.txt',
        'fresh',
        'fresh/inner',
        'fresh/inner/n.ts',
        'lib',
        'lib/k.ts',
        'src',
        'src/c.ts',
        'src/d.ts',
        'src/deep',
        'src/deep/e.ts',
        'src/deep/one',
        'src/deep/one/f.ts',
        'src/deep/one/sub',
        'src/deep/one/sub/m.ts',
        'src/deep/two',
        'src/deep/two/g.ts',
      ],
    },
    {
      name: 'a file modified in place, same size, later mtime',
      change: ({ path }) => {
        for (const [file, text] of [
          ['a.txt', 'nopeee a\n'],
          ['b.txt', 'needle b\n'],
          ['src/deep/two/g.ts', 'needle g\n'],
          ['src/deep/one/f.ts', 'nopeee f\n'],
        ] as const) {
          expect(readFileSync(path(file), 'utf8').length).toBe(text.length)
          writeFileSync(path(file), text)
          touchForward(path(file))
        }
      },
      grep: [
        'b.txt:1:needle b',
        'lib/k.ts:1:needle k',
        'src/c.ts:1:needle c',
        'src/deep/e.ts:1:needle e',
        'src/deep/two/g.ts:1:needle g',
      ],
      glob: GLOB_BEFORE,
    },
    {
      name: 'a file modified in place, same size, same mtime',
      change: ({ path }) => {
        for (const [file, text] of [
          ['a.txt', 'nopeee a\n'],
          ['src/deep/two/g.ts', 'needle g\n'],
        ] as const) {
          const { atimeMs, mtimeMs } = statSync(path(file))
          writeFileSync(path(file), text)
          utimesSync(path(file), atimeMs / 1000, mtimeMs / 1000)
        }
      },
      grep: [
        'lib/k.ts:1:needle k',
        'src/c.ts:1:needle c',
        'src/deep/e.ts:1:needle e',
        'src/deep/one/f.ts:1:needle f',
        'src/deep/two/g.ts:1:needle g',
      ],
      glob: GLOB_BEFORE,
    },
    {
      name: 'a file deleted',
      change: ({ path }) => {
        unlinkSync(path('a.txt'))
        unlinkSync(path('src/deep/one/f.ts'))
        unlinkSync(path('src/deep/two/g.ts'))
      },
      grep: ['lib/k.ts:1:needle k', 'src/c.ts:1:needle c', 'src/deep/e.ts:1:needle e'],
      glob: [
        'b.txt',
        'lib',
        'lib/k.ts',
        'src',
        'src/c.ts',
        'src/d.ts',
        'src/deep',
        'src/deep/e.ts',
        'src/deep/one',
        'src/deep/two',
      ],
    },
    {
      name: 'a file renamed (in its folder, and to another folder)',
      change: ({ path }) => {
        renameSync(path('a.txt'), path('z.txt'))
        renameSync(path('src/c.ts'), path('src/deep/two/c2.ts'))
        renameSync(path('src/deep/one/f.ts'), path('src/deep/one/f2.ts'))
        // Onto a name that was a file that did not match.
        renameSync(path('src/deep/e.ts'), path('src/d.ts'))
      },
      grep: [
        'lib/k.ts:1:needle k',
        'src/d.ts:1:needle e',
        'src/deep/one/f2.ts:1:needle f',
        'src/deep/two/c2.ts:1:needle c',
        'z.txt:1:needle a',
      ],
      glob: [
        'b.txt',
        'lib',
        'lib/k.ts',
        'src',
        'src/d.ts',
        'src/deep',
        'src/deep/one',
        'src/deep/one/f2.ts',
        'src/deep/two',
        'src/deep/two/c2.ts',
        'src/deep/two/g.ts',
        'z.txt',
      ],
    },
    {
      name: 'a folder renamed (with the folders inside it)',
      change: ({ path }) => {
        renameSync(path('src/deep'), path('src/moved'))
        renameSync(path('lib'), path('lib2'))
      },
      grep: [
        'a.txt:1:needle a',
        'lib2/k.ts:1:needle k',
        'src/c.ts:1:needle c',
        'src/moved/e.ts:1:needle e',
        'src/moved/one/f.ts:1:needle f',
      ],
      glob: [
        'a.txt',
        'b.txt',
        'lib2',
        'lib2/k.ts',
        'src',
        'src/c.ts',
        'src/d.ts',
        'src/moved',
        'src/moved/e.ts',
        'src/moved/one',
        'src/moved/one/f.ts',
        'src/moved/two',
        'src/moved/two/g.ts',
      ],
    },
    {
      name: 'a folder renamed at depth 3',
      change: ({ path }) => {
        renameSync(path('src/deep/one'), path('src/deep/uno'))
      },
      grep: [
        'a.txt:1:needle a',
        'lib/k.ts:1:needle k',
        'src/c.ts:1:needle c',
        'src/deep/e.ts:1:needle e',
        'src/deep/uno/f.ts:1:needle f',
      ],
      glob: [
        'a.txt',
        'b.txt',
        'lib',
        'lib/k.ts',
        'src',
        'src/c.ts',
        'src/d.ts',
        'src/deep',
        'src/deep/e.ts',
        'src/deep/two',
        'src/deep/two/g.ts',
        'src/deep/uno',
        'src/deep/uno/f.ts',
      ],
    },
    {
      name: 'a folder deleted',
      change: ({ path }) => {
        rmSync(path('src/deep'), { recursive: true })
        rmSync(path('lib'), { recursive: true })
      },
      grep: ['a.txt:1:needle a', 'src/c.ts:1:needle c'],
      glob: ['a.txt', 'b.txt', 'src', 'src/c.ts', 'src/d.ts'],
    },
    {
      name: 'a folder deleted and another made in its place',
      change: ({ path }) => {
        rmSync(path('src/deep'), { recursive: true })
        writeTree(path(), { 'src/deep/other.ts': 'needle other\n', 'src/deep/one/f.ts': 'nopeee f\n' })
      },
      grep: [
        'a.txt:1:needle a',
        'lib/k.ts:1:needle k',
        'src/c.ts:1:needle c',
        'src/deep/other.ts:1:needle other',
      ],
      glob: [
        'a.txt',
        'b.txt',
        'lib',
        'lib/k.ts',
        'src',
        'src/c.ts',
        'src/d.ts',
        'src/deep',
        'src/deep/one',
        'src/deep/one/f.ts',
        'src/deep/other.ts',
      ],
    },
    {
      name: 'a folder replaced by a symlink to a folder outside',
      change: ({ path, outside }) => {
        writeTree(outside, { 'e.ts': 'needle outside e\n', 'one/f.ts': 'needle outside f\n' })
        rmSync(path('src/deep'), { recursive: true })
        symlinkSync(outside, path('src/deep'))
      },
      grep: ['a.txt:1:needle a', 'lib/k.ts:1:needle k', 'src/c.ts:1:needle c'],
      glob: ['a.txt', 'b.txt', 'lib', 'lib/k.ts', 'src', 'src/c.ts', 'src/d.ts'],
    },
    {
      name: 'a folder at depth 3 replaced by a symlink to a folder outside',
      change: ({ path, outside }) => {
        writeTree(outside, { 'f.ts': 'needle outside f\n', 'two/g.ts': 'needle outside g\n' })
        rmSync(path('src/deep/one'), { recursive: true })
        symlinkSync(outside, path('src/deep/one'))
      },
      grep: ['a.txt:1:needle a', 'lib/k.ts:1:needle k', 'src/c.ts:1:needle c', 'src/deep/e.ts:1:needle e'],
      glob: [
        'a.txt',
        'b.txt',
        'lib',
        'lib/k.ts',
        'src',
        'src/c.ts',
        'src/d.ts',
        'src/deep',
        'src/deep/e.ts',
        'src/deep/two',
        'src/deep/two/g.ts',
      ],
    },
    {
      name: 'a .gitignore rule added at the top',
      change: ({ path }) => {
        writeFileSync(path('.gitignore'), 'ignored/\n*.log\nlib/\none/\n')
      },
      grep: ['a.txt:1:needle a', 'src/c.ts:1:needle c', 'src/deep/e.ts:1:needle e'],
      glob: [
        'a.txt',
        'b.txt',
        'src',
        'src/c.ts',
        'src/d.ts',
        'src/deep',
        'src/deep/e.ts',
        'src/deep/two',
        'src/deep/two/g.ts',
      ],
    },
    {
      name: 'a .gitignore rule removed at the top',
      change: ({ path }) => {
        writeFileSync(path('.gitignore'), 'ignored/\n')
      },
      grep: [
        'a.txt:1:needle a',
        'debug.log:1:needle log',
        'lib/k.ts:1:needle k',
        'src/c.ts:1:needle c',
        'src/deep/e.ts:1:needle e',
        'src/deep/one/f.ts:1:needle f',
      ],
      glob: [
        'a.txt',
        'b.txt',
        'debug.log',
        'lib',
        'lib/k.ts',
        'src',
        'src/c.ts',
        'src/d.ts',
        'src/deep',
        'src/deep/e.ts',
        'src/deep/one',
        'src/deep/one/f.ts',
        'src/deep/two',
        'src/deep/two/g.ts',
      ],
    },
    {
      name: 'the top .gitignore deleted (an ignored folder is walked for the first time)',
      change: ({ path }) => {
        unlinkSync(path('.gitignore'))
      },
      grep: [
        'a.txt:1:needle a',
        'debug.log:1:needle log',
        'ignored/i.txt:1:needle ignored',
        'lib/k.ts:1:needle k',
        'src/c.ts:1:needle c',
        'src/deep/e.ts:1:needle e',
        'src/deep/one/f.ts:1:needle f',
      ],
      glob: [
        'a.txt',
        'b.txt',
        'debug.log',
        'ignored',
        'ignored/i.txt',
        'lib',
        'lib/k.ts',
        'src',
        'src/c.ts',
        'src/d.ts',
        'src/deep',
        'src/deep/e.ts',
        'src/deep/one',
        'src/deep/one/f.ts',
        'src/deep/two',
        'src/deep/two/g.ts',
      ],
    },
    {
      name: 'a nested .gitignore edited (a rule removed, one added)',
      change: ({ path }) => {
        writeFileSync(path('src/deep/two/.gitignore'), 'g.ts\n')
      },
      grep: [
        'a.txt:1:needle a',
        'lib/k.ts:1:needle k',
        'src/c.ts:1:needle c',
        'src/deep/e.ts:1:needle e',
        'src/deep/one/f.ts:1:needle f',
        'src/deep/two/h.tmp:1:needle h',
      ],
      glob: [
        'a.txt',
        'b.txt',
        'lib',
        'lib/k.ts',
        'src',
        'src/c.ts',
        'src/d.ts',
        'src/deep',
        'src/deep/e.ts',
        'src/deep/one',
        'src/deep/one/f.ts',
        'src/deep/two',
        'src/deep/two/h.tmp',
      ],
    },
    {
      name: 'a nested .gitignore created, one deleted',
      change: ({ path }) => {
        writeFileSync(path('src/deep/one/.gitignore'), '*.ts\n')
        writeFileSync(path('src/.gitignore'), 'd.ts\n')
        unlinkSync(path('src/deep/two/.gitignore'))
      },
      grep: [
        'a.txt:1:needle a',
        'lib/k.ts:1:needle k',
        'src/c.ts:1:needle c',
        'src/deep/e.ts:1:needle e',
        'src/deep/two/h.tmp:1:needle h',
      ],
      glob: [
        'a.txt',
        'b.txt',
        'lib',
        'lib/k.ts',
        'src',
        'src/c.ts',
        'src/deep',
        'src/deep/e.ts',
        'src/deep/one',
        'src/deep/two',
        'src/deep/two/g.ts',
        'src/deep/two/h.tmp',
      ],
    },
  ]

  describe.each([
    ['grep', 'glob'],
    ['glob', 'grep'],
  ] as const)(
    'the call right after a change gives what a cold one gives (%s first, then %s)',
    (first, second) => {
      it.each(changes)('$name', async ({ change, grep, glob }) => {
        const tools = await warmTree()
        change(tools)
        const calls = { grep: () => tools.grep(), glob: () => tools.glob() }
        const expected = { grep, glob }
        expect(await calls[first]()).toEqual(expected[first])
        expect(await calls[second]()).toEqual(expected[second])
        // And the cache a cold call would bypass agrees with it.
        expect(await tools.cold(calls[first])).toEqual(expected[first])
      })
    },
  )

  /** `count` files in folders of 50: `text(n)` is file n's content. */
  function manyFiles(count: number, text: (n: number) => string): Record<string, string> {
    const files: Record<string, string> = {}
    for (let n = 0; n < count; n++) files[`f${Math.floor(n / 50)}/${n}.txt`] = text(n)
    return files
  }

  /** What a call adds to filesRead, over every worker. */
  async function filesReadBy<T>(call: () => Promise<T>): Promise<{ result: T; read: number }> {
    const before = (await totals()).filesRead
    const result = await call()
    return { result, read: (await totals()).filesRead - before }
  }

  it('a warm grep opens only the files that may match; a file changed to match is read and found', async () => {
    const count = 300
    const matching = [7, 120, 121, 250, 299]
    const { grep, path } = setup(
      manyFiles(count, (n) =>
        matching.includes(n)
          ? `file ${n}\n${'lorem ipsum dolor sit amet\n'.repeat(20)}the needle ${n}\n`
          : `file ${n}\n${'lorem ipsum dolor sit amet\n'.repeat(20)}`,
      ),
    )
    const expected = [
      'f0/7.txt:22:the needle 7',
      'f2/120.txt:22:the needle 120',
      'f2/121.txt:22:the needle 121',
      'f5/250.txt:22:the needle 250',
      'f5/299.txt:22:the needle 299',
    ]
    const first = await filesReadBy(() => grep('needle'))
    expect(first.result).toEqual(expected)
    expect(first.read).toBe(count)
    const stats = await settledTotals()
    expect(stats.watched).toBeGreaterThanOrEqual(1 + count / 50)
    expect(stats.summaries).toBeGreaterThanOrEqual(count)

    const second = await filesReadBy(() => grep('needle'))
    expect(second.result).toEqual(expected)
    expect(second.read).toBeGreaterThanOrEqual(matching.length)
    expect(second.read).toBeLessThan(count / 10)

    // One file grows a match, another gets one at the same size (and a later mtime).
    writeFileSync(path('f1/60.txt'), `file 60\n${'lorem ipsum dolor sit amet\n'.repeat(20)}a needle too\n`)
    const sameSize = path('f3/170.txt')
    const before = readFileSync(sameSize, 'utf8')
    const after = before.replace('ipsum ', 'needle')
    expect(after.length).toBe(before.length)
    writeFileSync(sameSize, after)
    touchForward(sameSize)
    const third = await filesReadBy(() => grep('needle'))
    expect(third.result).toEqual([
      'f0/7.txt:22:the needle 7',
      'f1/60.txt:22:a needle too',
      'f2/120.txt:22:the needle 120',
      'f2/121.txt:22:the needle 121',
      'f3/170.txt:2:lorem needledolor sit amet',
      'f5/250.txt:22:the needle 250',
      'f5/299.txt:22:the needle 299',
    ])
    expect(third.read).toBeGreaterThanOrEqual(matching.length + 2)
    expect(third.read).toBeLessThan(count / 10)
  })

  it('past its budget a folder is not cached, and searches stay right', async () => {
    // 200 files of 99 KiB: a summary of 8 KiB each, 1.6 MB in all, when 1 MiB is shared by the workers.
    const count = 200
    const text = (n: number) =>
      `file ${n}\n${`line of file ${n}, some words to vary the text\n`.repeat(2200)}`
    const files = manyFiles(count, text)
    files['f1/60.txt'] = `${text(60)}needle 60\n`
    const { grep, path, settings } = setup(files, { cacheMiB: 1 })
    expect(await grep('needle')).toEqual(['f1/60.txt:2202:needle 60'])
    expect(await settledTotals()).toMatchObject({ folders: 0, watched: 0, summaries: 0, bytes: 0 })

    writeFileSync(path('f3/170.txt'), `${text(170)}needle 170\n`)
    unlinkSync(path('f1/60.txt'))
    const again = await filesReadBy(() => grep('needle'))
    expect(again.result).toEqual(['f3/170.txt:2202:needle 170'])
    // Nothing summarized: every file is read again.
    expect(again.read).toBe(count - 1)
    expect(await settledTotals()).toMatchObject({ folders: 0, summaries: 0, bytes: 0 })

    // A bigger budget counts once the folder's caches are dropped.
    settings({ cacheMiB: 64 })
    expect(await grep('needle')).toEqual(['f3/170.txt:2202:needle 170'])
    expect(await settledTotals()).toMatchObject({ folders: 0, bytes: 0 })
    dropSearchCache(path())
    expect(await grep('needle')).toEqual(['f3/170.txt:2202:needle 170'])
    const stats = await settledTotals()
    expect(stats.watched).toBeGreaterThanOrEqual(1 + count / 50)
    expect(stats.summaries).toBeGreaterThanOrEqual(count - 1)
    expect(stats.bytes).toBeGreaterThan((count - 1) * 8 * 1024)
  })

  it('dropSearchCache empties the caches, and the next grep is right and caches again', async () => {
    const tools = await warmTree()
    dropSearchCache(tools.project)
    expect(await settledTotals()).toMatchObject({ folders: 0, watched: 0, summaries: 0, bytes: 0 })
    writeFileSync(tools.path('src/deep/one/new.ts'), 'needle new\n')
    unlinkSync(tools.path('a.txt'))
    const expected = [
      'lib/k.ts:1:needle k',
      'src/c.ts:1:needle c',
      'src/deep/e.ts:1:needle e',
      'src/deep/one/f.ts:1:needle f',
      'src/deep/one/new.ts:1:needle new',
    ]
    expect(await tools.grep()).toEqual(expected)
    const stats = await settledTotals()
    expect(stats.watched).toBeGreaterThanOrEqual(TREE_FOLDERS.length)
    expect(stats.summaries).toBeGreaterThanOrEqual(TREE_FILES_WALKED)
    expect(await tools.grep()).toEqual(expected)
  })

  it('with cacheMiB 0 nothing is cached, and every grep reads every file', async () => {
    const { grep, glob, path } = setup(TREE, { cacheMiB: 0 })
    const first = await filesReadBy(() => grep())
    expect(first.result).toEqual(GREP_BEFORE)
    expect(await glob()).toEqual(GLOB_BEFORE)
    expect(await settledTotals()).toMatchObject({ folders: 0, watched: 0, summaries: 0, bytes: 0 })
    const second = await filesReadBy(() => grep())
    expect(second.result).toEqual(GREP_BEFORE)
    expect(second.read).toBe(first.read)
    // a b c d e f g k: the files not ignored.
    expect(first.read).toBe(8)
    unlinkSync(path('a.txt'))
    expect(await grep()).toEqual(GREP_BEFORE.slice(1))
    expect(await settledTotals()).toMatchObject({ folders: 0, watched: 0, summaries: 0, bytes: 0 })
  })

  /**
   * Bugs found while writing these tests. Each `it.fails` passes while its bug is there: once the
   * bug is fixed it fails, and should become a plain `it`.
   */
  describe('a folder first searched on its own, or by a part below its parent', () => {
    // Every cached folder's parent is cached too: a folder cached by a call of a subfolder (grep of
    // path "src", glob of "src/**") is its parent's child, so renaming it forgets it and all below.
    it('a folder first searched on its own, renamed and made again: later changes in it are heard', async () => {
      const { glob, path, project } = setup({ 'src/a.ts': 'needle a\n', 'top.ts': 'needle top\n' })
      expect(await glob('src/**')).toEqual(['src/a.ts'])
      expect(await glob()).toEqual(['src', 'src/a.ts', 'top.ts'])
      expect((await settledTotals()).watched).toBeGreaterThanOrEqual(2)
      renameSync(path('src'), path('old'))
      writeTree(project, { 'src/b.ts': 'needle b\n' })
      expect(await glob()).toEqual(['old', 'old/a.ts', 'src', 'src/b.ts', 'top.ts'])
      await searchPool().settled()
      writeFileSync(path('src/c.ts'), 'needle c\n')
      expect(await glob()).toEqual(['old', 'old/a.ts', 'src', 'src/b.ts', 'src/c.ts', 'top.ts'])
    })

    // The folders inside the renamed one are forgotten with it: the folder made in its place is
    // listed as it is.
    it('a folder first searched on its own, renamed and made again: the next glob lists what is there', async () => {
      const { glob, grep, path, project } = setup({ 'src/deep/e.ts': 'needle e\n', 'top.ts': 'needle top\n' })
      expect(await grep('needle', { path: 'src' })).toEqual(['src/deep/e.ts:1:needle e'])
      expect(await grep()).toEqual(['src/deep/e.ts:1:needle e', 'top.ts:1:needle top'])
      expect((await settledTotals()).watched).toBeGreaterThanOrEqual(3)
      renameSync(path('src'), path('old'))
      writeTree(project, { 'src/deep/new.ts': 'needle new\n' })
      expect(await glob()).toEqual([
        'old',
        'old/deep',
        'old/deep/e.ts',
        'src',
        'src/deep',
        'src/deep/new.ts',
        'top.ts',
      ])
    })

    // Across workers: with respectGitignore off a part lists nothing above the folder it starts at,
    // yet the worker that runs it caches that folder's parents first.
    it.runIf(searchPool().size > 1)(
      'respectGitignore off: folders at depth 3 renamed and made again, the next glob lists what is there',
      async () => {
        const files: Record<string, string> = {}
        for (let i = 0; i < 8; i++) files[`a/b/c${i}/d/old${i}.ts`] = `needle ${i}\n`
        const { glob, path } = setup(files, { respectGitignore: false })
        expect(await glob()).toHaveLength(2 + 8 * 3)
        expect((await settledTotals()).watched).toBeGreaterThanOrEqual(2 + 8 * 2)
        const expected = ['a', 'a/b']
        for (let i = 0; i < 8; i++) {
          renameSync(path(`a/b/c${i}`), path(`a/b/x${i}`))
          writeTree(path(), { [`a/b/c${i}/d/new${i}.ts`]: 'needle\n' })
          expected.push(`a/b/c${i}`, `a/b/c${i}/d`, `a/b/c${i}/d/new${i}.ts`)
          expected.push(`a/b/x${i}`, `a/b/x${i}/d`, `a/b/x${i}/d/old${i}.ts`)
        }
        expect(await glob()).toEqual(expected.sort())
      },
    )
  })
})
