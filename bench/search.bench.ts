/**
 * grep and glob on the project's own node_modules, through the executor, against ripgrep doing the
 * same search in a process of its own. Before anything is timed, both must find the same set (files
 * and line numbers); a difference stops the benchmark with the first few paths that differ.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import '../src-main/tools/builtin/glob'
import '../src-main/tools/builtin/grep'
import { LOCAL_USER } from '../src-main/app/create-atelier'
import { FreshnessRepository } from '../src-main/db/freshness-repository'
import { type ToolCallScope, ToolExecutor } from '../src-main/tools/executor'
import { type Benchmark, type BenchmarkResult, withBenchAtelier } from './measure'
import { requireSystemTool } from './system-tool'

const ROUNDS = 9
const RIPGREP = requireSystemTool('rg', 'ripgrep')
const REPO = fileURLToPath(new URL('..', import.meta.url))
const FOLDER = 'node_modules'
const MAX_FILE_SIZE = 1_048_576
const MAX_MATCHES_PER_FILE = 1000

const searches: { name: string; pattern: string; caseInsensitive?: boolean }[] = [
  { name: 'literal', pattern: 'createElement' },
  { name: 'regex', pattern: 'function\\s+\\w+Sync\\(' },
  { name: 'case-insensitive', pattern: 'readfilesync', caseInsensitive: true },
  { name: 'alternation', pattern: 'TODO|FIXME' },
]

/** ripgrep with our defaults: no ignore files, hidden files skipped, no symlinks followed. */
function ripgrep(args: string[]): string {
  return execFileSync(RIPGREP, ['--no-config', '--no-ignore', '--color', 'never', ...args, FOLDER], {
    cwd: REPO,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  })
}

function ripgrepLines(pattern: string, caseInsensitive = false): string[] {
  const output = ripgrep([
    '--line-number',
    '--with-filename',
    '--null',
    `--max-filesize=${MAX_FILE_SIZE}`,
    `--max-count=${MAX_MATCHES_PER_FILE}`,
    ...(caseInsensitive ? ['--ignore-case'] : []),
    '--regexp',
    pattern,
  ])
  return output
    .split('\n')
    .filter(Boolean)
    .map((row) => {
      const [file, rest = ''] = row.split('\0')
      return `${file}:${rest.slice(0, rest.indexOf(':'))}`
    })
}

/**
 * Median ms per run of each side, the two run in turns (after one warm-up each) so that a busy
 * moment on a shared machine slows both alike rather than only whichever side it falls on.
 */
async function sideBySide(ours: () => unknown, reference: () => unknown): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []]
  for (let round = -1; round < ROUNDS; round++) {
    for (const [side, run] of [ours, reference].entries()) {
      const start = performance.now()
      await run()
      if (round >= 0) times[side as 0 | 1].push(performance.now() - start)
    }
  }
  return [median(times[0]), median(times[1])]
}

function median(values: number[]): number {
  return values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
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

const benchmark: Benchmark = async () => {
  return withBenchAtelier(async (atelier) => {
    const scope: ToolCallScope = { user: LOCAL_USER, workingDirectory: REPO, mode: 'agent', restrict: true }
    const walkSettings = { includeDotfiles: false, respectGitignore: false, maxResults: 5000 }
    atelier.tools.settings.update(LOCAL_USER, 'grep', {
      parameters: {
        ...walkSettings,
        maxMatchesPerFile: MAX_MATCHES_PER_FILE,
        maxFileSizeBytes: MAX_FILE_SIZE,
      },
    })
    atelier.tools.settings.update(LOCAL_USER, 'glob', { parameters: walkSettings })

    // The whole result set is compared with ripgrep's, so the model's 100,000-character cap is lifted.
    const uncapped = new ToolExecutor(
      atelier.tools.registry,
      atelier.tools.settings,
      { protectedPaths: [atelier.dataDir], ledgers: new FreshnessRepository(atelier.db) },
      Number.POSITIVE_INFINITY,
    )
    async function run(name: string, args: Record<string, unknown>) {
      const result = await uncapped.execute({ name, arguments: args }, scope)
      if (result.isError) throw new Error(`${name} failed: ${result.content}`)
      return JSON.parse(result.content)
    }

    const results: BenchmarkResult[] = []
    for (const { name, pattern, caseInsensitive } of searches) {
      const args = { pattern, path: FOLDER, ...(caseInsensitive && { caseInsensitive }) }
      const ours = await run('grep', args)
      const lines = ours.matches.map((match: { file: string; line: number }) => `${match.file}:${match.line}`)
      assertSameSet(`grep ${pattern}`, lines, ripgrepLines(pattern, caseInsensitive), ours.truncated)
      const [ourMs, rgMs] = await sideBySide(
        () => run('grep', args),
        () => ripgrepLines(pattern, caseInsensitive),
      )
      results.push({
        name: `grep ${name} (${lines.length} lines${ours.truncated ? ', cut at the result budget' : ''})`,
        ours: { label: 'grep tool', msPerOp: ourMs },
        reference: { label: 'rg', msPerOp: rgMs },
        target: 'target ≤ 2×',
      })
    }

    // Declaration files: thousands of paths, yet under glob's largest maxResults (5000).
    const globArgs = { pattern: '**/*.d.ts', cwd: FOLDER }
    const globbed = await run('glob', globArgs)
    const files = globbed.matches as string[]
    const rgFiles = () => ripgrep(['--files', '--glob', '*.d.ts']).split('\n').filter(Boolean)
    assertSameSet('glob **/*.d.ts', files, rgFiles(), globbed.truncated)
    const [ourMs, rgMs] = await sideBySide(() => run('glob', globArgs), rgFiles)
    results.push({
      name: `glob **/*.d.ts (${files.length} paths${globbed.truncated ? ', cut at the result budget' : ''})`,
      ours: { label: 'glob tool', msPerOp: ourMs },
      reference: { label: 'rg --files', msPerOp: rgMs },
      target: 'target ≤ 1×',
    })
    return results
  })
}

export default benchmark
