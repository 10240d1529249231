/**
 * A generated project tree for the search bench: 200,000 small text files in 20,000 folders (2,000
 * in 200 in quick mode; files at depth 2 to 4, a few at depth 1), code-like lines, a few of which
 * hold the texts the bench greps for, and a few binary files. Seeded: the same tree on every run.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { sized } from './measure'

/**
 * The tree's size, and of each line the chance it is one of RARE_LINES: about one file in a hundred
 * gets one, so each grep finds a few hundred lines, all within grep's 100,000-character result. In
 * quick mode a hundredth of the files, their rare lines a hundred times as common: each grep finds
 * about as many lines, enough for the bench's edits of matching files.
 */
export const TREE = sized(
  { folders: 20_000, files: 200_000, rareLineChance: 0.00025 },
  { folders: 200, files: 2_000, rareLineChance: 0.025 },
)
const TOP_FOLDERS = 20
const FILES_PER_FOLDER = TREE.files / TREE.folders
const MAX_DEPTH = 4
const MIN_FILE_BYTES = 200
const MAX_FILE_BYTES = 2048
const BINARY_FILES = 20

const WORDS = [
  'alpha',
  'buffer',
  'cache',
  'delta',
  'event',
  'field',
  'graph',
  'handle',
  'index',
  'join',
  'kernel',
  'layout',
  'model',
  'node',
  'option',
  'parser',
  'query',
  'render',
  'state',
  'token',
  'update',
  'value',
  'widget',
  'xform',
  'yield',
  'zone',
  'queue',
  'route',
  'store',
  'theme',
]
/**
 * Extensions by weight (of 200); .ts is rare, so `**\/*.ts` finds about a thousand paths: all fit
 * in glob's 100,000-character result, so the whole set is compared with ripgrep's.
 */
const EXTENSIONS = Object.entries({
  js: 60,
  py: 30,
  go: 20,
  json: 20,
  txt: 20,
  md: 16,
  css: 16,
  yaml: 17,
  ts: 1,
}).flatMap(([extension, weight]) => Array<string>(weight).fill(extension))
const COMMON_LINES: ((word: string, other: string) => string)[] = [
  (w, o) => `import { ${w} } from './${o}'`,
  (w) => `export function ${w}(value, options) {`,
  (w, o) => `  const ${w} = options.${o} ?? 0`,
  (w) => `  if (${w} > limit) return ${w}`,
  (w, o) => `  return ${w}.map((item) => item.${o})`,
  () => '}',
  (w, o) => `// ${w} is computed once per ${o}`,
  (w) => `  for (const ${w} of items) total += ${w}.length`,
  (w, o) => `  ${w}.${o} = await load(${o}, { retries: 3 })`,
  () => '',
]
/** The lines the bench's greps find: literal, regex, case-insensitive, alternation. */
const RARE_LINES = [
  'const node = React.createElement(Component, props)',
  'function loadConfigSync(path) {',
  "const text = fs.readFileSync(file, 'utf8')",
  'const TEXT = FS.READFILESYNC(FILE)',
  '// TODO: handle the empty case',
  '// FIXME: this leaks a handle',
]

/** mulberry32: a small, fast, seeded pseudo-random generator, uniform in [0, 1). */
function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Writes the tree into `root` (an empty folder); how long it took, in ms. */
export function generateTree(root: string): number {
  const started = performance.now()
  const random = seeded(0x5eed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
  const folders: { path: string; depth: number }[] = []
  const parents: { path: string; depth: number }[] = []
  for (let i = 0; i < TREE.folders; i++) {
    const parent = i < TOP_FOLDERS ? { path: root, depth: 0 } : pick(parents)
    const folder = { path: join(parent.path, `${pick(WORDS)}${i}`), depth: parent.depth + 1 }
    mkdirSync(folder.path)
    folders.push(folder)
    if (folder.depth < MAX_DEPTH) parents.push(folder)
  }
  const textFile = () => {
    const size = MIN_FILE_BYTES + Math.floor(random() * (MAX_FILE_BYTES - MIN_FILE_BYTES))
    let text = ''
    while (text.length < size) {
      text += `${random() < TREE.rareLineChance ? pick(RARE_LINES) : pick(COMMON_LINES)(pick(WORDS), pick(WORDS))}\n`
    }
    return text
  }
  let written = 0
  for (const folder of folders) {
    for (let i = 0; i < FILES_PER_FOLDER; i++, written++) {
      const name = `${pick(WORDS)}-${written}`
      if (written % (TREE.files / BINARY_FILES) === 0) {
        // A NUL early, then text a grep would find: binary files are skipped, by rg and by us.
        writeFileSync(join(folder.path, `${name}.bin`), `\0\x01\x02${RARE_LINES.join('\n')}\n`)
      } else {
        writeFileSync(join(folder.path, `${name}.${pick(EXTENSIONS)}`), textFile())
      }
    }
  }
  return performance.now() - started
}
