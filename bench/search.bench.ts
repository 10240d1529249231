/**
 * grep and glob through the executor against ripgrep doing the same search in a process of its
 * own, on the project's own node_modules and on a generated tree of 200,000 files (search-tree.ts):
 * cold (no cache: `cacheMiB` 0) and warm (the same call again once the search workers' caches have
 * settled; ripgrep has no cache, its page cache is as warm as ours). Before anything is timed, both
 * must find the same set (files and line numbers); a difference stops the benchmark with the first
 * few paths that differ. Then: a warm grep right after 10 files changed must still be ripgrep's
 * set, and a catastrophic pattern must end at its timeout while the main thread keeps answering.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import '../src-main/tools/builtin/get-current-datetime'
import '../src-main/tools/builtin/glob'
import '../src-main/tools/builtin/grep'
import { LOCAL_USER } from '../src-main/app/create-atelier'
import { FreshnessRepository } from '../src-main/db/freshness-repository'
import { type ToolCallScope, ToolExecutor } from '../src-main/tools/executor'
import { dropSearchCache } from '../src-main/tools/search/search-call'
import { searchPool } from '../src-main/tools/search/worker-pool'
import { WALK_SETTING_DEFAULTS } from '../src-main/tools/walk'
import { type Benchmark, type BenchmarkResult, median, paired, sized, withBenchAtelier } from './measure'
import { generateTree, TREE } from './search-tree'
import { requireSystemTool } from './system-tool'

const ROUNDS = 5
/** get_current_datetime calls timed on an idle main thread, before the catastrophic grep. */
const IDLE_CALLS = sized(100, 10)
const RIPGREP = requireSystemTool('ripgrep')
const REPO = fileURLToPath(new URL('..', import.meta.url))
const MAX_FILE_SIZE = 1_048_576
const MAX_MATCHES_PER_FILE = 1000
/** The warm cache budgets tried, the default first, then doubled until one holds the whole tree. */
const DEFAULT_CACHE_MIB = WALK_SETTING_DEFAULTS.cacheMiB
const CACHE_BUDGETS_MIB = [1, 2, 4, 8].map((times) => DEFAULT_CACHE_MIB * times)
const MIB = 1024 * 1024

const searches: { name: string; pattern: string; caseInsensitive?: boolean }[] = [
  { name: 'literal', pattern: 'createElement' },
  { name: 'regex', pattern: 'function\\s+\\w+Sync\\(' },
  { name: 'case-insensitive', pattern: 'readfilesync', caseInsensitive: true },
  { name: 'alternation', pattern: 'TODO|FIXME' },
]

/** A folder searched: the chat's folder (real), and the path given to the tools and to rg. */
interface SearchedTree {
  name: string
  workingDirectory: string
  folder: string
  /** glob's pattern, and the same as ripgrep's -g reads it. */
  glob: string
  rgGlob: string
}

/** ripgrep with our defaults: no ignore files, hidden files skipped, no symlinks followed. */
function ripgrep(tree: SearchedTree, args: string[]): string[] {
  const run = spawnSync(RIPGREP, ['--no-config', '--no-ignore', '--color', 'never', ...args, tree.folder], {
    cwd: tree.workingDirectory,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  })
  // Exit 1 is "nothing found" (a small tree may hold none of a search's lines); 2 and up, an error.
  if (run.status !== 0 && run.status !== 1) {
    throw new Error(`rg ${args.join(' ')} failed (${run.signal ?? `exit ${run.status}`}): ${run.stderr}`)
  }
  // Searching "." prints ./path; the tools print the path relative to the chat's folder.
  return run.stdout
    .split('\n')
    .filter(Boolean)
    .map((row) => (row.startsWith('./') ? row.slice(2) : row))
}

function ripgrepLines(tree: SearchedTree, pattern: string, caseInsensitive = false): string[] {
  const rows = ripgrep(tree, [
    '--line-number',
    '--with-filename',
    '--null',
    `--max-filesize=${MAX_FILE_SIZE}`,
    `--max-count=${MAX_MATCHES_PER_FILE}`,
    ...(caseInsensitive ? ['--ignore-case'] : []),
    '--regexp',
    pattern,
  ])
  return rows.map((row) => {
    const [file, rest = ''] = row.split('\0')
    return `${file}:${rest.slice(0, rest.indexOf(':'))}`
  })
}

function ripgrepFiles(tree: SearchedTree): string[] {
  return ripgrep(tree, ['--files', '--glob', tree.rgGlob])
}

/**
 * Our results must be ripgrep's, all of them; when ours were cut at the tool's own 100,000-character
 * result budget (`truncated`), each one we kept must still be one of ripgrep's.
 */
function assertSameSet(what: string, ours: string[], reference: string[], truncated = false) {
  const mine = new Set(ours)
  const theirs = new Set(reference)
  const missing = truncated ? [] : reference.filter((item) => !mine.has(item))
  const extra = ours.filter((item) => !theirs.has(item))
  if (missing.length || extra.length || mine.size !== ours.length) {
    throw new Error(
      `${what}: results differ from ripgrep (ours ${ours.length}, ripgrep ${reference.length}). ` +
        `Only ripgrep: ${missing.slice(0, 5).join(', ') || 'none'}. Only ours: ${extra.slice(0, 5).join(', ') || 'none'}.`,
    )
  }
}

/** The search workers' caches summed: folders, file summaries, bytes, files grep opened. */
async function cacheTotals() {
  const totals = { folders: 0, watched: 0, summaries: 0, bytes: 0, filesRead: 0 }
  for (const stats of (await searchPool().cacheStats()).values()) {
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += stats[key]
  }
  return totals
}

const settled = () => searchPool().settled()

const benchmark: Benchmark = async () => {
  return withBenchAtelier(async (atelier) => {
    /** grep's and glob's settings for the rows that follow. */
    const configure = (cacheMiB: number, timeoutSeconds = 30) => {
      const walk = {
        includeDotfiles: false,
        respectGitignore: false,
        maxResults: 5000,
        cacheMiB,
        timeoutSeconds,
      }
      atelier.tools.settings.update(LOCAL_USER, 'grep', {
        parameters: { ...walk, maxMatchesPerFile: MAX_MATCHES_PER_FILE, maxFileSizeBytes: MAX_FILE_SIZE },
      })
      atelier.tools.settings.update(LOCAL_USER, 'glob', { parameters: walk })
    }

    // The whole result set is compared with ripgrep's, so the model's 100,000-character cap is lifted.
    const uncapped = new ToolExecutor(
      atelier.tools.registry,
      atelier.tools.settings,
      { protectedPaths: [atelier.dataDir], ledgers: new FreshnessRepository(atelier.db) },
      Number.POSITIVE_INFINITY,
    )
    const scopeOf = (tree: SearchedTree): ToolCallScope => ({
      user: LOCAL_USER,
      workingDirectory: tree.workingDirectory,
      mode: 'agent',
      restrict: true,
    })
    async function run(tree: SearchedTree, name: string, args: Record<string, unknown>) {
      const result = await uncapped.execute({ name, arguments: args }, scopeOf(tree))
      if (result.isError) throw new Error(`${name} failed: ${result.content}`)
      return JSON.parse(result.content)
    }

    /** One grep, checked against ripgrep's set; its lines and whether ours were cut. */
    async function checkedGrep(tree: SearchedTree, search: (typeof searches)[number], what: string) {
      const ours = await run(tree, 'grep', grepArgs(tree, search))
      const lines = ours.matches.map((match: { file: string; line: number }) => `${match.file}:${match.line}`)
      const reference = ripgrepLines(tree, search.pattern, search.caseInsensitive)
      assertSameSet(`${what} grep ${search.pattern}`, lines, reference, ours.truncated)
      return { lines: lines as string[], truncated: ours.truncated as boolean }
    }
    async function checkedGlob(tree: SearchedTree, what: string) {
      const ours = await run(tree, 'glob', globArgs(tree))
      assertSameSet(`${what} glob ${tree.glob}`, ours.matches, ripgrepFiles(tree), ours.truncated)
      return { paths: ours.matches as string[], truncated: ours.truncated as boolean }
    }
    const grepArgs = (tree: SearchedTree, { pattern, caseInsensitive }: (typeof searches)[number]) => ({
      pattern,
      path: tree.folder,
      ...(caseInsensitive && { caseInsensitive }),
    })
    const globArgs = (tree: SearchedTree) => ({ pattern: tree.glob, cwd: tree.folder })

    /** Cold and warm rows of every search of a tree. */
    async function searchRows(tree: SearchedTree): Promise<BenchmarkResult[]> {
      const rows: BenchmarkResult[] = []
      const timed = async (
        what: 'cold' | 'warm',
        label: string,
        ours: () => Promise<unknown>,
        reference: () => unknown,
        note?: string,
      ) => {
        const [ourMs, rgMs] = await paired(1, ROUNDS, ours, async () => reference(), {
          warmUp: 'once',
          between: settled,
        })
        rows.push({
          name: `${tree.name}: ${label}, ${what}`,
          ours: { label: label.startsWith('glob') ? 'glob tool' : 'grep tool', msPerOp: ourMs },
          reference: { label: label.startsWith('glob') ? 'rg --files -g' : 'rg', msPerOp: rgMs },
          target: what === 'cold' ? 'target ≤ 1.5×' : 'target ≤ 0.5×',
          ...(note && { note }),
        })
      }
      const counted = (count: number, unit: string, truncated: boolean) =>
        `${count} ${unit}${truncated ? ', cut at the result budget' : ''}`

      // Cold: nothing cached, no background work to compete with ripgrep's rounds.
      configure(0)
      for (const search of searches) {
        const { lines, truncated } = await checkedGrep(tree, search, 'cold')
        await timed(
          'cold',
          `grep ${search.name} (${counted(lines.length, 'lines', truncated)})`,
          () => run(tree, 'grep', grepArgs(tree, search)),
          () => ripgrepLines(tree, search.pattern, search.caseInsensitive),
        )
      }
      const globbed = await checkedGlob(tree, 'cold')
      await timed(
        'cold',
        `glob ${tree.glob} (${counted(globbed.paths.length, 'paths', globbed.truncated)})`,
        () => run(tree, 'glob', globArgs(tree)),
        () => ripgrepFiles(tree),
      )

      // Warm: the smallest budget whose caches, once settled, hold a summary of every file, with
      // each worker's share (the budget is split evenly) able to hold all of them: a part may run
      // on any worker, so each may come to cache the whole tree, and a worker past its share
      // drops its whole cache of the tree.
      const files = ripgrep(tree, ['--files']).length
      let budget = 0
      let held = 0
      for (budget of CACHE_BUDGETS_MIB) {
        configure(budget)
        for (const search of searches) await run(tree, 'grep', grepArgs(tree, search))
        await run(tree, 'glob', globArgs(tree))
        await settled()
        const totals = await cacheTotals()
        held = totals.bytes
        const share = (budget * MIB) / searchPool().size
        if (totals.summaries >= files && totals.watched === totals.folders && share >= held) break
        dropSearchCache(tree.workingDirectory)
      }
      const cacheNote =
        `cacheMiB ${budget}${budget > DEFAULT_CACHE_MIB ? ` (the default ${DEFAULT_CACHE_MIB} is not enough)` : ' (the default here)'}, ` +
        `the tree's cache ${(held / MIB).toFixed(1)} MiB`
      for (const search of searches) {
        const before = (await cacheTotals()).filesRead
        const { lines, truncated } = await checkedGrep(tree, search, 'warm')
        const read = (await cacheTotals()).filesRead - before
        await settled()
        await timed(
          'warm',
          `grep ${search.name} (${counted(lines.length, 'lines', truncated)})`,
          () => run(tree, 'grep', grepArgs(tree, search)),
          () => ripgrepLines(tree, search.pattern, search.caseInsensitive),
          `${cacheNote}; read ${read} of ${files} files`,
        )
      }
      const warmGlob = await checkedGlob(tree, 'warm')
      await settled()
      await timed(
        'warm',
        `glob ${tree.glob} (${counted(warmGlob.paths.length, 'paths', warmGlob.truncated)})`,
        () => run(tree, 'glob', globArgs(tree)),
        () => ripgrepFiles(tree),
        cacheNote,
      )
      const workers = [...(await searchPool().cacheStats()).values()]
      console.log(
        `search bench: ${tree.name} after the warm rows, per worker: ` +
          workers
            .map((w) => `${w.folders} folders, ${w.summaries} summaries, ${(w.bytes / MIB).toFixed(1)} MiB`)
            .join('; '),
      )
      return rows
    }

    /**
     * A warm grep right after 10 files changed (3 gain a match, 3 lose theirs, 2 have their
     * matches move down a line, 1 is deleted, 1 is new) must find exactly ripgrep's set.
     */
    async function touchedRow(tree: SearchedTree): Promise<BenchmarkResult> {
      const search = searches[0] as (typeof searches)[number]
      const line = 'const node = createElement(Component, props)\n'
      await checkedGrep(tree, search, 'before touching')
      await settled()
      const matching = [
        ...new Set(ripgrepLines(tree, search.pattern).map((row) => row.slice(0, row.lastIndexOf(':')))),
      ].sort()
      const others = ripgrep(tree, ['--files', '--glob', '*.js']).filter((file) => !matching.includes(file))
      const at = (file: string) => join(tree.workingDirectory, file)
      const edit = (file: string, change: (text: string) => string) =>
        writeFileSync(at(file), change(readFileSync(at(file), 'utf8')))
      for (const file of matching.slice(0, 3)) {
        edit(file, (text) => text.replaceAll(search.pattern, 'createNode'))
      }
      for (const file of matching.slice(3, 5)) edit(file, (text) => `// moved down\n${text}`)
      unlinkSync(at(matching[5] as string))
      writeFileSync(join(dirname(at(matching[6] as string)), 'touched-new.js'), line)
      for (const file of others.filter((_, i) => i % 10_000 === 5).slice(0, 3)) {
        edit(file, (text) => text + line)
      }
      let started = performance.now()
      const ours = await run(tree, 'grep', grepArgs(tree, search))
      const ourMs = performance.now() - started
      started = performance.now()
      const reference = ripgrepLines(tree, search.pattern)
      const rgMs = performance.now() - started
      const lines = ours.matches.map((match: { file: string; line: number }) => `${match.file}:${match.line}`)
      if (ours.truncated)
        throw new Error('the grep after touching 10 files was cut: its set cannot be compared')
      assertSameSet('right after touching 10 files, grep', lines, reference)
      return {
        name: `${tree.name}: grep literal, warm, right after touching 10 files (${lines.length} lines)`,
        ours: { label: 'grep tool', msPerOp: ourMs },
        reference: { label: 'rg', msPerOp: rgMs },
        target: 'target: exactly rg’s set',
        note: 'exactly rg’s set: passed (one call each)',
      }
    }

    /**
     * `(a+)+$` case-insensitively (V8's linear engine does not take `i`) on 40 a's and a b
     * backtracks without end: the call must end at its timeout, and meanwhile the main thread
     * must keep answering get_current_datetime, polled every 10 ms through the same executor.
     */
    async function catastrophicRow(tree: SearchedTree): Promise<BenchmarkResult> {
      const timeoutSeconds = 5 // the setting's minimum
      configure(0, timeoutSeconds)
      writeFileSync(join(tree.workingDirectory, 'catastrophic.txt'), `${'a'.repeat(40)}b\n`)
      const datetimeLatencies = async (until: () => boolean) => {
        const latencies: number[] = []
        const at: number[] = []
        while (!until()) {
          // From when the call was due, so a blocked main thread (a late timer) counts too.
          const due = performance.now() + 10
          await new Promise((resolve) => setTimeout(resolve, 10))
          const result = await uncapped.execute(
            { name: 'get_current_datetime', arguments: {} },
            scopeOf(tree),
          )
          if (result.isError) throw new Error(`get_current_datetime failed: ${result.content}`)
          latencies.push(performance.now() - due)
          at.push(due)
        }
        return { latencies, worstAt: at[latencies.indexOf(Math.max(...latencies))] ?? 0 }
      }
      await settled()
      let calls = 0
      const { latencies: idle } = await datetimeLatencies(() => calls++ >= IDLE_CALLS)
      let ended = false
      const started = performance.now()
      const grep = uncapped
        .execute(
          { name: 'grep', arguments: { pattern: '(a+)+$', path: 'catastrophic.txt', caseInsensitive: true } },
          scopeOf(tree),
        )
        .then((result) => {
          ended = true
          return { result, seconds: (performance.now() - started) / 1000 }
        })
      const { latencies: during, worstAt } = await datetimeLatencies(() => ended)
      const { result, seconds } = await grep
      if (!result.isError || result.errorType !== 'timeout') {
        throw new Error(`the catastrophic grep should time out, it gave: ${result.content.slice(0, 200)}`)
      }
      return {
        name: 'get_current_datetime during a catastrophic grep (a+)+$ -i',
        ours: { label: 'worst, during the grep', msPerOp: Math.max(...during) },
        reference: { label: 'worst, idle', msPerOp: Math.max(...idle) },
        target: 'target worst < 50 ms',
        note:
          `grep ended with a timeout error after ${seconds.toFixed(2)} s (timeoutSeconds ${timeoutSeconds}, the minimum); ` +
          `${during.length} calls every 10 ms, the worst ${((worstAt - started) / 1000).toFixed(2)} s in, median ${median(during).toFixed(1)} ms (idle ${median(idle).toFixed(1)} ms)`,
      }
    }

    const nodeModules = realpathSync(join(REPO, 'node_modules'))
    // Quick mode searches one small package in it: the same kind of tree, a two-hundredth of the files.
    const nodeModulesFolder = sized('node_modules', 'node_modules/diff')
    const trees: SearchedTree[] = [
      {
        name: nodeModulesFolder,
        workingDirectory: dirname(nodeModules),
        folder: nodeModulesFolder,
        // Declaration files: thousands of paths, yet under glob's largest maxResults (5000).
        glob: '**/*.d.ts',
        rgGlob: '*.d.ts',
      },
    ]
    const generatedRoot = realpathSync(mkdtempSync(join(tmpdir(), 'atelier-bench-tree-')))
    try {
      const generateMs = generateTree(generatedRoot)
      const generated: SearchedTree = {
        name: `generated ${TREE.files / 1000}k files`,
        workingDirectory: generatedRoot,
        folder: '.',
        glob: '**/*.ts',
        rgGlob: '*.ts',
      }
      trees.push(generated)
      console.log(
        `search bench: generated ${TREE.files} files in ${TREE.folders} folders in ${(generateMs / 1000).toFixed(1)} s`,
      )
      const results: BenchmarkResult[] = []
      for (const tree of trees) {
        results.push(...(await searchRows(tree)))
        if (tree !== generated) dropSearchCache(tree.workingDirectory)
      }
      results.push(await touchedRow(generated))
      results.push(await catastrophicRow(generated))
      return results
    } finally {
      for (const tree of trees) dropSearchCache(tree.workingDirectory)
      rmSync(generatedRoot, { recursive: true, force: true })
    }
  })
}

export default benchmark
