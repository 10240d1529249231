import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { resolve } from 'node:path'
import { Language, type Node, Parser } from 'web-tree-sitter'
import { errorMessage } from '../../src-shared/errors'
import { riskyOptions } from './risky-options'
import {
  commandName,
  display,
  resolvePath,
  resolveText,
  SUBSTITUTIONS,
  toWord,
  type Word,
} from './shell-words'
import { stripWrappers } from './shell-wrappers'

/** One simple command found anywhere in a shell command line. */
export interface ShellSubCommand {
  /** The command as written in the source (wrappers, assignments and redirects included), for showing. */
  text: string
  /** Quote-aware words (quotes removed, escapes resolved) with leading VAR=x assignments and wrappers stripped: what rules match. Words with expansions keep their raw source text (e.g. "$HOME/x", "$(date)"). */
  argv: string[]
  /** The wrappers stripped from the front, by name, in order: e.g. ['sudo', 'timeout']. */
  wrappers: string[]
  /**
   * Output redirects to files, as written: ['> out.txt', '>> log'], and the options with which a
   * wrapper writes a file, its own redirect: ['time -o log']. Not fd duplications (2>&1, >&2) and not /dev/null.
   */
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
  /** Path arguments resolved against `cwd` (absolute, normalized, `~` expanded; not realpath'd); null for a path argument that cannot be resolved (it holds an expansion, or cwd is unknown). Input redirect targets (< file), output redirect targets and the files options write count as paths. */
  paths: (string | null)[]
  /** The files it writes, resolved as `paths` are: redirect targets, and the files of options that write (`time -o`, `git log --output`, `sed -i`). */
  written: (string | null)[]
  /**
   * Its program's options (or script text) that write files, run commands or load code — `--output=x`,
   * `git grep -O`, `sed -i`, awk's `system(` — and, in such a program, words known only when it runs:
   * what a rule for the program does not vouch for (see risky-options.ts).
   */
  riskyOptions: string[]
}

export interface ParsedShellCommand {
  commands: ShellSubCommand[]
  /**
   * Set when what runs cannot be told from the source: it does not parse (tree-sitter ERROR/MISSING
   * nodes), a `bash -c` or `env -S` string cannot be read statically, a wrapper has an option this
   * check does not know, or bash evaluates text later (arithmetic on a variable, `${!x}`, `${x@P}`,
   * `$_`, backticks in a heredoc). The policy then asks.
   */
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
  const { commands } = walk
  const errors = [...new Set(walk.errors)]
  return errors.length > 0 ? { commands, error: errors.join(' ') } : { commands }
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
/** A redirect: `written` is set for an output file, `paths` holds its file (input or output) if any. */
interface Redirect {
  written?: string
  paths: (string | null)[]
  /** Tree-sitter puts words that follow a redirect target (`echo > out hi`) inside the redirect. */
  extra: Word[]
}

/** `bash -c`/`eval`/`env -S` strings may hold more of themselves; past this depth the policy asks. */
const MAX_DEPTH = 5
/** Writing to these is not writing a file, so they are neither redirects nor paths. */
const DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty'])
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh'])
const FIND_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir'])

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
  const unseen = evaluatedLater(node)
  if (unseen) walk.errors.push(unseen)
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
    case 'for_statement': {
      // `for PATH in .; do git status; done` sets PATH as `PATH=.` would, and keeps it after the loop.
      const variable = node.childForFieldName('variable')?.text
      if (variable) scope.assigned = [...scope.assigned, variable]
      visitChildren(node, scope, walk)
      break
    }
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

/** Arithmetic that is only numbers: digits, operators, and the shell's own counts (`$?`, `$#`, `$$`, `$!`). */
const LITERAL_ARITHMETIC = /^(?:[\d\s+\-*/%<>=!&|^~?:,()]|\$\{?[?#$!]\}?)*$/
/** The operators of `[[ … ]]` that evaluate both sides as arithmetic. */
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'])
const LAST_WORD = '$_ is the last word of the command before, which bash fills in only when it runs.'
/** Builtins whose -i makes later assignments arithmetic and whose -n makes a name refer to another. */
const DECLARES = new Set(['declare', 'typeset', 'local'])

/**
 * What bash evaluates at `node` beyond what this parser reads, said for the person; undefined when
 * nothing. Arithmetic evaluates each name's value as an expression in turn, and `a[$(cmd)]` there
 * runs cmd (`x='a[$(cmd)]'; echo $((x))`); `${!x}` takes a variable's name from a value; `${x@P}`
 * expands a value as a prompt, substitutions included; `$_` is the last word of the command
 * before; an unquoted heredoc runs backticks the grammar does not see.
 */
function evaluatedLater(node: Node): string | undefined {
  const shown = node.text.length > 40 ? `${node.text.slice(0, 40)}…` : node.text
  const arithmetic = arithmeticOf(node)
  if (arithmetic !== undefined && !LITERAL_ARITHMETIC.test(arithmetic)) {
    return `${shown} evaluates a variable's value as arithmetic, which can run commands not written here.`
  }
  const tokens = node.children.filter((child) => !child.isNamed).map((child) => child.type)
  switch (node.type) {
    case 'expansion':
      if (node.child(1)?.type === '!') return `${shown} takes a variable's name from a value.`
      if (tokens.includes('@')) return `${shown} transforms a value, as a prompt expands it, at run time.`
      return usesLastWord(node) ? LAST_WORD : undefined
    case 'simple_expansion':
      return usesLastWord(node) ? LAST_WORD : undefined
    case 'heredoc_redirect': {
      const start = node.children.find((child) => child.type === 'heredoc_start')
      const body = node.children.find((child) => child.type === 'heredoc_body')
      // A quoted delimiter (<<'EOF', <<"EOF", <<\EOF) keeps the body as written.
      if (!start || /['"\\]/.test(start.text) || !body) return undefined
      const unescaped = body.text.replace(/\\[\s\S]/g, '')
      return /`|\$\(/.test(unescaped)
        ? 'A heredoc body holds backticks or $(…), which bash runs as it reads the body.'
        : undefined
    }
    case 'declaration_command': {
      const options = node.namedChildren.filter(
        (child) => child.type === 'word' && /^[-+]\w*[in]/.test(child.text),
      )
      return DECLARES.has(node.child(0)?.text ?? '') && options.length > 0
        ? `${shown} makes later assignments arithmetic, or names refer to other variables.`
        : undefined
    }
    default:
      return undefined
  }
}

function usesLastWord(node: Node): boolean {
  return node.namedChildren.some((child) => child.type === 'special_variable_name' && child.text === '_')
}

/** The text bash evaluates as arithmetic at `node`, if it is one of the places that do. */
function arithmeticOf(node: Node): string | undefined {
  const texts = (children: Node[]) => children.map((child) => child.text).join(' ')
  switch (node.type) {
    case 'arithmetic_expansion':
    case 'c_style_for_statement':
      return texts(node.namedChildren.filter((child) => child.type !== 'do_group'))
    case 'compound_statement':
      return node.child(0)?.type === '((' ? texts(node.namedChildren) : undefined
    case 'subscript': {
      // The index of `${a[i]}` and `a[i]=…`; `${a[@]}` lists them all.
      const index = texts(node.namedChildren.slice(1))
      return index === '@' || index === '*' ? undefined : index
    }
    case 'expansion': {
      // `${s:offset:length}`, not `${s:-default}`.
      const colon = node.children.findIndex((child) => child.type === ':')
      return colon === -1 ? undefined : texts(node.children.slice(colon).filter((child) => child.isNamed))
    }
    case 'binary_expression': {
      const operator = node.children.find((child) => child.type === 'test_operator')
      if (!operator || !ARITHMETIC_TESTS.has(operator.text)) return undefined
      return texts(node.namedChildren.filter((child) => !child.equals(operator)))
    }
    case 'unary_expression': {
      // `[[ -v a[i] ]]` evaluates the index.
      const [operator, operand] = node.namedChildren
      return operator?.text === '-v' ? /\[(.*)\]$/.exec(operand?.text ?? '')?.[1] : undefined
    }
    case 'command':
      return node.childForFieldName('name')?.text === 'let' ? texts(node.namedChildren.slice(1)) : undefined
    default:
      return undefined
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

/**
 * Lists one simple command: unwraps it, reads `bash -c`/`eval`/`env -S` strings and `find -exec`,
 * weighs its program's options, follows `cd`.
 */
function emit(
  words: Word[],
  text: string,
  redirects: Redirect[],
  subst: boolean,
  scope: Scope,
  walk: Walk,
  prefixed: string[] = [],
): void {
  const unwrapped = stripWrappers(words, scope.cwd)
  const { argv, wrappers } = unwrapped
  walk.errors.push(...unwrapped.problems)
  const assignments = [...prefixed, ...unwrapped.assignments]
  // `read PATH`, `printf -v PATH`: set for the rest of this shell, as `PATH=…` would be.
  scope.assigned = [...scope.assigned, ...namesSetBy(argv)]
  // What a wrapper writes is its own redirect (`time -o log`); what it reads, its own `< file`.
  const wrapperRedirects: Redirect[] = [
    ...unwrapped.writes.map(({ text, path }) => ({ written: text, paths: [path], extra: [] })),
    ...unwrapped.reads.map((path) => ({ paths: [path], extra: [] })),
  ]
  const allRedirects = [...wrapperRedirects, ...redirects]
  // env -C, sudo -D: the command runs elsewhere, but this shell stays where it is.
  const here = { ...scope, cwd: unwrapped.cwd }
  const script =
    unwrapped.respliced !== undefined
      ? { source: unwrapped.respliced, inCurrentShell: false }
      : scriptOf(argv)
  if (script?.source != null && walk.depth < MAX_DEPTH) {
    const start = walk.commands.length
    // eval runs in the current shell, so its `cd` carries on; `bash -c` is a new process.
    parseInto(script.source, script.inCurrentShell ? scope : here, { ...walk, depth: walk.depth + 1 })
    attach(walk.commands.slice(start), wrappers, allRedirects, assignments)
    return
  }
  if (script) {
    walk.errors.push(
      script.source === null
        ? `${argv[0]?.raw} runs a string that is built at run time, so it cannot be checked beforehand.`
        : `Commands nest more than ${MAX_DEPTH} levels deep in bash -c, eval or env -S strings.`,
    )
  }
  const command = subCommand(text, argv, subst, here, pathArguments(argv, here.cwd))
  const risky = riskyOptions(argv, here.cwd, unwrapped.appendsInput)
  command.riskyOptions = risky.options
  command.written = risky.written
  command.paths.push(...risky.written.filter((path) => path === null || !command.paths.includes(path)))
  walk.commands.push(command)
  attach([command], wrappers, allRedirects, assignments)
  for (const action of findActions(argv)) {
    const first = action.words[0] as Word
    const last = action.words[action.words.length - 1] as Word
    const actionText = walk.source.slice(first.node.startIndex, last.node.endIndex)
    const actionSubstitution = action.words.some((word) => hasSubstitution(word.node))
    // -execdir runs in the directory of each match, which is not known here.
    const actionScope = { ...here, cwd: action.inDir ? null : here.cwd }
    emit(action.words, actionText, [], actionSubstitution, actionScope, walk, assignments)
  }
  // `sudo cd x` or `env cd x` changes the folder of a process that ends at once; `command cd` is the builtin.
  if (!wrappers.every((wrapper) => wrapper === 'command' || wrapper === 'builtin')) return
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
    written: [],
    riskyOptions: [],
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
      if (redirect.written !== undefined) {
        command.redirects.push(redirect.written)
        command.written.push(...redirect.paths)
      }
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

/** Builtins that set the variables they are given by name. */
const VARIABLE_SETTERS = new Set(['read', 'mapfile', 'readarray', 'getopts', 'printf'])

/**
 * The variables a builtin sets by name: every word of `read`, `mapfile`, `getopts` (or `printf -v`)
 * that could name one — a wider net than each one's syntax, which only makes more commands ask —
 * and MAPFILE for a `mapfile` that names none.
 */
function namesSetBy(argv: readonly Word[]): string[] {
  const program = commandName(argv[0])
  if (!VARIABLE_SETTERS.has(program)) return []
  const words = argv.slice(1).map(display)
  if (program === 'printf' && !words.some((word) => word.startsWith('-v'))) return []
  const names = words.flatMap((word) => /^(-v)?([A-Za-z_]\w*)$/.exec(word)?.[2] ?? [])
  return names.length > 0 || (program !== 'mapfile' && program !== 'readarray') ? names : ['MAPFILE']
}

/** The names a node's own `X=…` children assign. */
function assignedNames(node: Node): string[] {
  return node.namedChildren.flatMap((child) =>
    child?.type === 'variable_assignment' ? [child.childForFieldName('name')?.text ?? ''] : [],
  )
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

function hasSubstitution(node: Node): boolean {
  // Most commands hold none: a look at the text spares a walk of the tree inside the parser.
  return /[$`<>]\(|`/.test(node.text) && node.descendantsOfType(SUBSTITUTIONS).length > 0
}
