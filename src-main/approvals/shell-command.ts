import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { basename, isAbsolute, resolve } from 'node:path'
import { Language, type Node, Parser } from 'web-tree-sitter'
import { errorMessage } from '../../src-shared/errors'

/** One simple command found anywhere in a shell command line. */
export interface ShellSubCommand {
  /** The command as written in the source (wrappers, assignments and redirects included), for showing. */
  text: string
  /** Quote-aware words (quotes removed, escapes resolved) with leading VAR=x assignments and wrappers stripped: what rules match. Words with expansions keep their raw source text (e.g. "$HOME/x", "$(date)"). */
  argv: string[]
  /** The wrappers stripped from the front, by name, in order: e.g. ['sudo', 'timeout']. */
  wrappers: string[]
  /** Output redirects to files, as written: ['> out.txt', '>> log']. Not fd duplications (2>&1, >&2) and not /dev/null. */
  redirects: string[]
  /** A word of it holds a command substitution, backticks or a process substitution. */
  substitution: boolean
  /** The directory it runs in, tracked through `cd` in the chain; null when unknown (cd $X, cd -, cd with no argument goes to home: use os.homedir()). */
  cwd: string | null
  /**
   * Environment variables set for it: by `X=1 cmd`, `env X=1 cmd`, or earlier in the same shell
   * (`X=1; cmd`, `export X=1`). They can change what a command runs (PATH, LD_PRELOAD, GIT_…).
   */
  assignments: string[]
  /** Path arguments resolved against `cwd` (absolute, normalized, `~` expanded; not realpath'd); null for a path argument that cannot be resolved (it holds an expansion, or cwd is unknown). Input redirect targets (< file) and output redirect targets count as paths. */
  paths: (string | null)[]
}

export interface ParsedShellCommand {
  commands: ShellSubCommand[]
  /** Set when the source does not parse (tree-sitter ERROR/MISSING nodes), or a `bash -c` string cannot be read statically; the policy then asks. */
  error?: string
}

/**
 * Parses `source` as bash, starting in `cwd`. Never throws for bad input.
 *
 * Commands come in source order; a command is listed before the commands of its own substitutions, and
 * the commands of a `bash -c`/`eval` string take the place of the `bash -c`/`eval` itself (inheriting
 * its wrappers and redirects).
 */
export async function parseShellCommand(source: string, cwd: string): Promise<ParsedShellCommand> {
  const walk: Walk = { parser: await bashParser(), source, depth: 0, commands: [], errors: [] }
  try {
    parseInto(source, { cwd: resolve(cwd), assigned: [] }, walk)
  } catch (error) {
    walk.errors.push(`The command could not be analysed: ${errorMessage(error)}`)
  }
  const { commands, errors } = walk
  return errors.length > 0 ? { commands, error: errors.join('; ') } : { commands }
}

// The main process is bundled with its dependencies external, so resolving from this module finds the
// packages' own files in dev, in tests and in the built app alike; web-tree-sitter's default lookup
// (relative to its own URL) would break if it were ever inlined into a bundle.
// Not named `require`: electron-vite's bundle declares its own `require` shim in the same chunk scope.
const packageFiles = createRequire(import.meta.url)
let parserPromise: Promise<Parser> | undefined

/** One parser for the process: loading the two WebAssembly modules costs far more than a parse. */
function bashParser(): Promise<Parser> {
  parserPromise ??= (async () => {
    await Parser.init({ locateFile: (file: string) => packageFiles.resolve(`web-tree-sitter/${file}`) })
    const parser = new Parser()
    parser.setLanguage(await Language.load(packageFiles.resolve('tree-sitter-bash/tree-sitter-bash.wasm')))
    return parser
  })().catch((error: unknown) => {
    parserPromise = undefined
    throw error
  })
  return parserPromise
}

/** What one parse shares while it walks; `source` and `depth` change inside `bash -c`/`eval` strings. */
interface Walk {
  parser: Parser
  source: string
  depth: number
  commands: ShellSubCommand[]
  errors: string[]
  /** The redirects of a statement, waiting for the node they belong to (see visitRedirected). */
  redirected?: { target: Node; text: string; nodes: Node[] }
}
/** The shell state a command sees; copied wherever bash forks, so a `cd` there does not leak out. */
interface Scope {
  cwd: string | null
  /** Variables this shell has set so far; replaced, never mutated, so a forked copy keeps its own. */
  assigned: readonly string[]
}
/** A word of the command line: `value` is what bash would pass, or null when it depends on an expansion. */
interface Word {
  node: Node
  raw: string
  value: string | null
}
/** A redirect: `written` is set for an output file, `paths` holds its file (input or output) if any. */
interface Redirect {
  written?: string
  paths: (string | null)[]
  /** Tree-sitter puts words that follow a redirect target (`echo > out hi`) inside the redirect. */
  extra: Word[]
}

/** `bash -c`/`eval` strings may hold more of themselves; past this depth the policy asks. */
const MAX_DEPTH = 5
const SUBSTITUTIONS = ['command_substitution', 'process_substitution']
const EXPANSIONS = new Set([...SUBSTITUTIONS, 'simple_expansion', 'expansion', 'arithmetic_expansion'])
/** Writing to these is not writing a file, so they are neither redirects nor paths. */
const DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty'])
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh'])
const FIND_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir'])

/**
 * Commands that run another command given as their arguments. `short`/`long` are the options that
 * take a value in the next word; `operands` counts the words after the options that are not the
 * command (timeout's duration); `lookup` marks options under which no command runs (`command -v`).
 */
interface WrapperSpec {
  short?: string
  long?: string[]
  assignments?: boolean
  operands?: number
  lookup?: RegExp
}
const WRAPPERS: Record<string, WrapperSpec> = {
  sudo: {
    short: 'ugChprtUD',
    long: '--user --group --close-from --host --prompt --role --type --other-user --chdir'.split(' '),
    assignments: true,
  },
  env: { short: 'uC', long: ['--unset', '--chdir'], assignments: true },
  timeout: { short: 'sk', long: ['--signal', '--kill-after'], operands: 1 },
  nice: { short: 'n', long: ['--adjustment'] },
  nohup: {},
  xargs: {
    short: 'IdnPLsEa',
    long: ['--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-lines', '--max-chars', '--eof'],
  },
  time: {},
  command: { lookup: /^-[a-zA-Z]*[vV]/ },
  exec: { short: 'a' },
  stdbuf: { short: 'ioe', long: ['--input', '--output', '--error'] },
  ionice: { short: 'cn', long: ['--class', '--classdata'] },
}

/**
 * Commands whose operands are files, so every non-option word counts as a path. `operands` leading
 * words are not files (chmod's mode); a `pattern` command's first operand is its pattern or script
 * unless `-e`/`-f` gave that; `values` are options whose next word is a value that is not a file.
 */
const FILE_COMMANDS: Record<string, { operands?: number; pattern?: boolean; values?: string[] }> = {
  ...Object.fromEntries(
    'rm rmdir mv cp ln cat less more tee unlink ls stat file wc diff cmp cd pushd source . zip unzip tar'
      .split(' ')
      .map((name) => [name, {}]),
  ),
  chmod: { operands: 1 },
  chown: { operands: 1 },
  chgrp: { operands: 1 },
  touch: { values: ['-d', '-t'] },
  mkdir: { values: ['-m'] },
  install: { values: ['-m', '-o', '-g'] },
  head: { values: ['-n', '-c'] },
  tail: { values: ['-n', '-c'] },
  sort: { values: ['-k', '-t'] },
  truncate: { values: ['-s'] },
  shred: { values: ['-n', '-s'] },
  grep: { pattern: true, values: ['-e', '-m', '-A', '-B', '-C'] },
  rg: { pattern: true, values: ['-e', '-m', '-A', '-B', '-C', '-g', '-t', '-T'] },
  sed: { pattern: true, values: ['-e', '-l'] },
  awk: { pattern: true, values: ['-v', '-F'] },
  rsync: { values: ['-e'] },
  scp: { values: ['-P', '-o', '-c', '-J'] },
}
const PATTERN_OPTION = /^-[ef]|^--(regexp|file|expression)/

function parseInto(source: string, scope: Scope, walk: Walk): void {
  const tree = walk.parser.parse(source)
  if (!tree) {
    walk.errors.push('The shell parser returned no tree.')
    return
  }
  // Trees live in WebAssembly memory, which the garbage collector does not reclaim.
  try {
    const bad = firstError(tree.rootNode)
    if (bad) {
      const where = `line ${bad.startPosition.row + 1}, column ${bad.startPosition.column + 1}`
      const what = bad.isMissing
        ? `missing ${bad.type}`
        : `unexpected ${JSON.stringify(bad.text.slice(0, 30))}`
      walk.errors.push(
        `Not valid shell syntax: ${what} at ${where}${walk.depth > 0 ? ' of a nested string' : ''}.`,
      )
    }
    visit(tree.rootNode, scope, { ...walk, source, redirected: undefined })
  } finally {
    tree.delete()
  }
}

function firstError(node: Node): Node | null {
  if (node.isError || node.isMissing) return node
  if (!node.hasError) return null
  for (const child of node.children) {
    const bad = firstError(child)
    if (bad) return bad
  }
  return null
}

/** Finds every command under `node`; everything that is not a command is searched for substitutions. */
function visit(node: Node, scope: Scope, walk: Walk): void {
  if (walk.redirected?.target.equals(node)) {
    visitRedirectTarget(node, scope, walk)
    return
  }
  switch (node.type) {
    case 'command':
      visitCommand(node, undefined, scope, walk)
      break
    case 'redirected_statement':
      visitRedirected(node, scope, walk)
      break
    case 'declaration_command':
    case 'unset_command': {
      // `export A=1`, `local x`, `unset X`: builtins that take names, not files.
      const words = [node.child(0), ...node.namedChildren].filter((n) => n !== null).map(toWord)
      walk.commands.push(subCommand(node.text, words, hasSubstitution(node), scope, []))
      if (node.type === 'declaration_command') scope.assigned = [...scope.assigned, ...assignedNames(node)]
      visitChildren(node, { ...scope }, walk)
      break
    }
    case 'variable_assignment':
      // `X=1` alone sets X for the rest of this shell (and its children, when X is exported, like PATH).
      scope.assigned = [...scope.assigned, ...assignedNames({ namedChildren: [node] } as Node)]
      visitChildren(node, scope, walk)
      break
    case 'pipeline':
      for (const child of node.namedChildren) {
        // tree-sitter-bash reads `a && b 2>&1 | c` as `(a && b 2>&1) | c`; bash runs a in this shell.
        const misread = child.equals(node.firstNamedChild as Node) && startsWithList(child)
        visit(child, misread ? scope : { ...scope }, walk)
      }
      break
    case 'subshell':
    case 'command_substitution':
    case 'process_substitution':
    case 'function_definition':
      visitChildren(node, { ...scope }, walk)
      break
    default:
      visitChildren(node, scope, walk)
  }
}

function startsWithList(node: Node): boolean {
  return (
    node.type === 'list' || (node.type === 'redirected_statement' && node.firstNamedChild?.type === 'list')
  )
}

function visitChildren(node: Node, scope: Scope, walk: Walk): void {
  for (const child of node.namedChildren) {
    // `a & b`: a runs in the background, in a forked shell.
    visit(child, child.nextSibling?.type === '&' ? { ...scope } : scope, walk)
  }
}

function visitRedirected(node: Node, scope: Scope, walk: Walk): void {
  const body = node.childForFieldName('body')
  const nodes = node.namedChildren.filter((child) => !body?.equals(child))
  // tree-sitter-bash hangs the redirect of `a && b > out` and `a | b > out` on the whole list, where
  // bash gives it to b alone; a group, subshell or loop (`{ a; b; } > out`) sends all its output there.
  let target = body
  while (target?.type === 'list' || target?.type === 'pipeline') target = target.lastNamedChild
  if (body && target) {
    const text = walk.source.slice(target.startIndex, node.endIndex)
    visit(body, scope, { ...walk, redirected: { target, text, nodes } })
  } else {
    pushBare(
      node.text,
      nodes.some(hasSubstitution),
      nodes.map((child) => readRedirect(child, scope.cwd)),
      scope,
      walk,
    )
  }
  // Heredoc bodies and redirect targets may hold substitutions; a heredoc's line may go on (`<<EOF | grep x`).
  for (const child of nodes) visit(child, scope, walk)
}

function visitRedirectTarget(node: Node, scope: Scope, walk: Walk): void {
  const { text, nodes } = walk.redirected as NonNullable<Walk['redirected']>
  const inner = { ...walk, redirected: undefined }
  // Resolved here, not at the statement's start: in `cd x && ls > out` the file is x/out.
  const redirects = nodes.map((child) => readRedirect(child, scope.cwd))
  const substitution = [node, ...nodes].some(hasSubstitution)
  if (node.type === 'command') {
    visitCommand(node, { text, substitution, redirects }, scope, inner)
  } else {
    const start = walk.commands.length
    visit(node, scope, inner)
    if (walk.commands.length > start) attach(walk.commands.slice(start), [], redirects, [])
    else pushBare(text, substitution, redirects, scope, walk)
  }
}

/** A command's statement as a whole, when redirects written after it belong to it. */
interface Statement {
  text: string
  substitution: boolean
  redirects: Redirect[]
}

function visitCommand(node: Node, statement: Statement | undefined, scope: Scope, walk: Walk): void {
  const words: Word[] = []
  const redirects: Redirect[] = []
  for (const child of node.namedChildren) {
    // What tree-sitter made up to mend an error (the command of `ls &&`) spans no text.
    if (child.type === 'variable_assignment' || child.startIndex === child.endIndex) continue
    if (child.type.endsWith('_redirect')) redirects.push(readRedirect(child, scope.cwd))
    else words.push(toWord(child.type === 'command_name' ? (child.firstNamedChild ?? child) : child))
  }
  redirects.push(...(statement?.redirects ?? []))
  words.push(...redirects.flatMap((redirect) => redirect.extra))
  const text = statement?.text ?? node.text
  const substitution = statement?.substitution ?? hasSubstitution(node)
  const before = { ...scope }
  if (words.length > 0) emit(words, text, redirects, substitution, scope, walk, assignedNames(node))
  else pushBare(text, substitution, redirects, scope, walk)
  visitChildren(node, before, walk)
}

/** `> out.txt` alone (or after assignments) runs nothing but still writes the file: listed with an empty argv. */
function pushBare(
  text: string,
  substitution: boolean,
  redirects: Redirect[],
  scope: Scope,
  walk: Walk,
): void {
  if (!redirects.some((redirect) => redirect.paths.length > 0)) return
  walk.commands.push(subCommand(text, [], substitution, scope, []))
  attach(walk.commands.slice(-1), [], redirects, [])
}

/** Lists one simple command: unwraps it, reads `bash -c`/`eval` strings and `find -exec`, follows `cd`. */
function emit(
  words: Word[],
  text: string,
  redirects: Redirect[],
  subst: boolean,
  scope: Scope,
  walk: Walk,
  prefixed: string[] = [],
): void {
  const stripped = stripWrappers(words)
  const { argv, wrappers } = stripped
  const assignments = [...prefixed, ...stripped.assignments]
  const script = scriptOf(argv)
  if (script?.source != null && walk.depth < MAX_DEPTH) {
    const start = walk.commands.length
    // eval runs in the current shell, so its `cd` carries on; `bash -c` is a new process.
    parseInto(script.source, script.inCurrentShell ? scope : { ...scope }, { ...walk, depth: walk.depth + 1 })
    attach(walk.commands.slice(start), wrappers, redirects, assignments)
    return
  }
  if (script) {
    walk.errors.push(
      script.source === null
        ? `${argv[0]?.raw} runs a string that is built at run time, so it cannot be checked beforehand.`
        : `Commands nest more than ${MAX_DEPTH} levels deep in bash -c or eval strings.`,
    )
  }
  walk.commands.push(subCommand(text, argv, subst, scope, pathArguments(argv, scope.cwd)))
  attach(walk.commands.slice(-1), wrappers, redirects, assignments)
  for (const action of findActions(argv)) {
    const first = action.words[0] as Word
    const last = action.words[action.words.length - 1] as Word
    const actionText = walk.source.slice(first.node.startIndex, last.node.endIndex)
    const actionSubstitution = action.words.some((word) => hasSubstitution(word.node))
    // -execdir runs in the directory of each match, which is not known here.
    const actionScope = { ...scope, cwd: action.inDir ? null : scope.cwd }
    emit(action.words, actionText, [], actionSubstitution, actionScope, walk, assignments)
  }
  const name = commandName(argv[0])
  if (name === 'cd' || name === 'pushd') scope.cwd = cdTarget(name, argv.slice(1), scope.cwd)
  else if (name === 'popd') scope.cwd = null
}

/** A listed command; `attach` then adds its wrappers and redirects. */
function subCommand(
  text: string,
  argv: Word[],
  substitution: boolean,
  { cwd, assigned }: Scope,
  paths: (string | null)[],
): ShellSubCommand {
  const argvText = argv.map(display)
  return {
    text,
    argv: argvText,
    wrappers: [],
    redirects: [],
    substitution,
    cwd,
    assignments: [...assigned],
    paths,
  }
}

/** Gives commands found inside a wrapper, a `bash -c` string or a redirected group what applies to all of them. */
function attach(
  commands: ShellSubCommand[],
  wrappers: string[],
  redirects: Redirect[],
  assignments: string[],
): void {
  for (const command of commands) {
    command.wrappers.unshift(...wrappers)
    command.assignments.push(...assignments.filter((name) => !command.assignments.includes(name)))
    for (const redirect of redirects) {
      if (redirect.written !== undefined) command.redirects.push(redirect.written)
      command.paths.push(...redirect.paths)
    }
  }
}

function readRedirect(node: Node, cwd: string | null): Redirect {
  // Heredocs and here-strings feed the command line's own text: no file.
  if (node.type !== 'file_redirect') return { paths: [], extra: [] }
  const operator = node.children.find((child) => !child.isNamed)?.text ?? ''
  const [target, ...rest] = node.namedChildren.filter((child) => child.type !== 'file_descriptor')
  const extra = rest.map(toWord)
  // `2>&1`, `>&2`, `>&-` duplicate or close a descriptor; `>& file` is a file.
  if (!target || (operator.endsWith('&') && /^(\d+|-)$/.test(target.text))) return { paths: [], extra }
  const word = toWord(target)
  if (word.value !== null && DEVICES.has(word.value)) return { paths: [], extra }
  const written = operator.includes('>') ? node.text.slice(0, target.endIndex - node.startIndex) : undefined
  return { written, paths: [resolvePath(word, cwd)], extra }
}

function stripWrappers(words: Word[]): { argv: Word[]; wrappers: string[]; assignments: string[] } {
  const wrappers: string[] = []
  const assignments: string[] = []
  let argv = words
  for (;;) {
    const name = commandName(argv[0])
    const spec = WRAPPERS[name]
    const next = spec && skipWrapper(argv, spec)
    // A wrapper with nothing after it (`sudo`, `xargs`) is itself the command.
    if (next === undefined || next >= argv.length) return { argv, wrappers, assignments }
    wrappers.push(name)
    if (spec.assignments) {
      for (const word of argv.slice(1, next)) {
        const assigned = /^([A-Za-z_]\w*)=/.exec(display(word))?.[1]
        if (assigned) assignments.push(assigned)
      }
    }
    argv = argv.slice(next)
  }
}

/** The names a node's own `X=…` children assign. */
function assignedNames(node: Node): string[] {
  return node.namedChildren.flatMap((child) =>
    child?.type === 'variable_assignment' ? [child.childForFieldName('name')?.text ?? ''] : [],
  )
}

/** The index of the wrapped command's first word, or undefined when no command is wrapped. */
function skipWrapper(words: Word[], spec: WrapperSpec): number | undefined {
  let at = 1
  while (at < words.length) {
    const word = display(words[at])
    if (word === '--') return at + 1 + (spec.operands ?? 0)
    if (spec.lookup?.test(word)) return undefined
    if (word.startsWith('--')) {
      at += !word.includes('=') && spec.long?.includes(word) ? 2 : 1
    } else if (word.startsWith('-') && word.length > 1) {
      // In a cluster like `-Eu root` a value option takes the next word only when it comes last.
      const valueAt = [...word.slice(1)].findIndex((letter) => spec.short?.includes(letter))
      at += valueAt !== -1 && valueAt === word.length - 2 ? 2 : 1
    } else if (spec.assignments && /^[A-Za-z_]\w*=/.test(word)) {
      at++
    } else break
  }
  return at + (spec.operands ?? 0)
}

/** The string a `bash -c`/`sh -lc`/`eval` runs: null when it holds an expansion; undefined for other commands. */
function scriptOf(argv: Word[]): { source: string | null; inCurrentShell: boolean } | undefined {
  const name = commandName(argv[0])
  if (name === 'eval' && argv.length > 1) {
    // eval joins its arguments with spaces, then runs the result.
    const parts = argv.slice(1).map((word) => word.value)
    return { source: parts.includes(null) ? null : parts.join(' '), inCurrentShell: true }
  }
  if (!SHELLS.has(name)) return undefined
  let command = false
  for (let at = 1; at < argv.length; at++) {
    const word = display(argv[at])
    if (/^[-+][^-]/.test(word)) {
      command ||= word.includes('c')
      if (/[oO]$/.test(word)) at++
    } else if (!word.startsWith('--')) {
      return command ? { source: argv[at]?.value ?? null, inCurrentShell: false } : undefined
    }
  }
  return undefined
}

/** `find … -exec CMD … ;` (and -execdir, -ok, -okdir) runs CMD for each match. */
function findActions(argv: Word[]): { words: Word[]; inDir: boolean }[] {
  if (commandName(argv[0]) !== 'find') return []
  const actions: { words: Word[]; inDir: boolean }[] = []
  for (let at = 1; at < argv.length; at++) {
    const action = display(argv[at])
    if (!FIND_ACTIONS.has(action)) continue
    const end = argv.findIndex((word, index) => index > at && (word.value === ';' || word.value === '+'))
    const words = argv.slice(at + 1, end === -1 ? argv.length : end)
    if (words.length > 0) actions.push({ words, inDir: action.endsWith('dir') })
    at = end === -1 ? argv.length : end
  }
  return actions
}

function cdTarget(name: string, args: Word[], cwd: string | null): string | null {
  const target = args.find((word) => !/^[-+]./.test(display(word)) || display(word) === '--')
  const operand = target && display(target) === '--' ? args[args.indexOf(target) + 1] : target
  // pushd with no directory swaps the top two of a stack we do not know.
  if (!operand) return name === 'cd' ? homedir() : null
  if (operand.value === '-') return null
  return resolvePath(operand, cwd)
}

/** The words of a command that name files, resolved; see FILE_COMMANDS for the commands taking only files. */
function pathArguments(argv: Word[], cwd: string | null): (string | null)[] {
  return namedPaths(argv, cwd).filter((path) => path === null || !DEVICES.has(path))
}

function namedPaths(argv: Word[], cwd: string | null): (string | null)[] {
  const name = commandName(argv[0])
  const args = argv.slice(1)
  if (name === 'find') {
    // Only the starting points: the expression that follows holds names and patterns, not paths.
    const end = args.findIndex((word) => /^[-(!)]/.test(display(word)))
    return args.slice(0, end === -1 ? args.length : end).map((word) => resolvePath(word, cwd))
  }
  if (name === 'dd') {
    return args
      .filter((word) => /^(if|of)=/.test(display(word)))
      .map((word) => resolveText(word.value?.slice(3) ?? null, false, cwd))
  }
  const spec = FILE_COMMANDS[name]
  const patternGiven = args.some((word) => PATTERN_OPTION.test(display(word)))
  let operands = spec?.pattern ? (patternGiven ? 0 : 1) : (spec?.operands ?? 0)
  let options = true
  const paths: (string | null)[] = []
  for (let at = 0; at < args.length; at++) {
    const word = args[at] as Word
    const text = display(word)
    if (options && text === '--') {
      options = false
    } else if (options && text === '-') {
      // stdin, or `cd -`: not a file.
    } else if (options && text.startsWith('-')) {
      const value = text.slice(text.indexOf('=') + 1)
      if (text.startsWith('--') && text.includes('=') && value.includes('/')) {
        paths.push(resolveText(word.value === null ? null : value, false, cwd))
      }
      if (spec?.values?.includes(text)) at++
    } else if (operands > 0) {
      operands--
    } else if ((name === 'scp' || name === 'rsync') && /^[^/]+:/.test(text)) {
      // host:path is on another machine.
    } else if (word.node.type === 'process_substitution') {
      // <(…) is a pipe bash makes, not a file of the user's.
    } else if (spec || isPathLike(text)) {
      paths.push(resolvePath(word, cwd))
    }
  }
  return paths
}

function isPathLike(text: string): boolean {
  if (/^[a-z][\w+.-]*:\/\//i.test(text)) return false
  return text.includes('/') || text === '.' || text === '..' || text.startsWith('~')
}

function resolvePath(word: Word, cwd: string | null): string | null {
  // Tilde expansion happens only for an unquoted `~` at the start.
  return resolveText(word.value, word.raw.startsWith('~'), cwd)
}

function resolveText(value: string | null, tilde: boolean, cwd: string | null): string | null {
  // `{}` is the file find -exec or xargs -I puts in: unknown here.
  if (value === null || value.includes('{}')) return null
  if (tilde) {
    if (value === '~' || value.startsWith('~/')) return resolve(homedir(), value.slice(2))
    return null
  }
  if (isAbsolute(value)) return resolve(value)
  return cwd === null ? null : resolve(cwd, value)
}

function toWord(node: Node): Word {
  return { node, raw: node.text, value: literal(node) }
}

function display(word: Word | undefined): string {
  return word === undefined ? '' : (word.value ?? word.raw)
}

/** The program's name, for matching wrappers and file commands: `/usr/bin/sudo` is sudo. */
function commandName(word: Word | undefined): string {
  return word?.value ? basename(word.value) : ''
}

function hasSubstitution(node: Node): boolean {
  // Most commands hold none: a look at the text spares a walk of the tree inside the parser.
  return /[$`<>]\(|`/.test(node.text) && node.descendantsOfType(SUBSTITUTIONS).length > 0
}

/** What bash makes of a word after quote removal, or null when it depends on an expansion. */
function literal(node: Node): string | null {
  switch (node.type) {
    case 'word':
      // Unquoted, a backslash keeps the next character; before a newline it joins lines.
      return node.text.replace(/\\([\s\S])/g, (_, next: string) => (next === '\n' ? '' : next))
    case 'raw_string':
      return node.text.slice(1, -1)
    case 'ansi_c_string':
      return decodeAnsiC(node.text.slice(2, -1))
    case 'string':
      if (node.namedChildren.some((child) => child.type !== 'string_content')) return null
      // Inside double quotes a backslash escapes only $ ` " \ and newline.
      return node.text
        .slice(1, -1)
        .replace(/\\([$`"\\\n])/g, (_, next: string) => (next === '\n' ? '' : next))
    case 'concatenation': {
      const parts = node.children.map((child) => (child.isNamed ? literal(child) : child.text))
      return parts.includes(null) ? null : parts.join('')
    }
    default:
      if (EXPANSIONS.has(node.type) || node.descendantsOfType([...EXPANSIONS]).length > 0) return null
      return node.text
  }
}

/** `$'…'` strings: C escapes, including \xHH, \uHHHH, \UHHHHHHHH and octal \NNN; unknown ones stay as written. */
function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[\da-fA-F]{1,2}|u[\da-fA-F]{1,4}|U[\da-fA-F]{1,8}|[0-7]{1,3}|[\s\S])/g,
    (all, code: string) => {
      if (/^[xuU]./.test(code)) return String.fromCodePoint(Number.parseInt(code.slice(1), 16))
      if (/^[0-7]/.test(code)) return String.fromCharCode(Number.parseInt(code, 8))
      const named = 'ntrabeEfv'.indexOf(code)
      if (named !== -1) return '\n\t\r\x07\b\x1b\x1b\f\v'.charAt(named)
      return `\\'"?`.includes(code) ? code : all
    },
  )
}
