/**
 * Options with which a program that reads — git log, git grep, sed, find, rg — writes files, runs
 * commands or loads code: `git log --output=.git/config`, `git grep -O sh`, `sed -i`, `find -delete`.
 * A rule for the program does not vouch for them, so a call that uses one asks whatever the rule
 * says, and a file one writes is checked as a redirect's is. A word bash fills in only when it runs
 * (`$X`, `$(…)`, a glob, `{}`) could be any of them, so in these programs it asks too. No such table is
 * ever complete, so "Always allow" saves only exact rules for the programs in it.
 */
import { basename } from 'node:path'
import { commandName, display, knownOnlyWhenRun, resolvePath, type Word, type WordText } from './shell-words'

/** What a call's options do that a rule for its program does not cover. */
export interface RiskyUse {
  /** The options, script text or words as written: `--output=.git/config`, `-O`, `'1e touch x'`, `$X`. */
  options: string[]
  /** The files those options write, resolved against the command's folder; null for one that cannot be. */
  written: (string | null)[]
}

/**
 * How a program's options are read. Long options (`--output`) match their abbreviations too, as git
 * and GNU programs take them; a single-dash name longer than one letter (`-delete`) is a whole word.
 */
interface OptionSpec {
  /** Options that take a value (in their word or the next), so that value is not read as an option. */
  values: string[]
  /** Options whose value is a file the program writes. */
  writes: string[]
  /** Options that run a command, load code, or write files they do not name. */
  runs: string[]
  /** Long options of their own that a listed one starts with: `git diff --text` is not `--textconv`. */
  own: string[]
}

type RiskCheck = (args: Word[], cwd: string | null) => RiskyUse

/** An OptionSpec from space-separated names; a `runs` name ending in `=` takes a value (`-x= ` is `-x CMD`). */
function spec(names: { values?: string; writes?: string; runs?: string; own?: string }): OptionSpec {
  const list = (text = '') => text.split(' ').filter(Boolean)
  const runs = list(names.runs)
  const runsWithValue = runs.filter((name) => name.endsWith('=')).map((name) => name.slice(0, -1))
  return {
    values: [...list(names.values), ...runsWithValue],
    writes: list(names.writes),
    runs: runs.map((name) => name.replace(/=$/, '')),
    own: list(names.own),
  }
}

function joined(...specs: (OptionSpec | undefined)[]): OptionSpec {
  const all = specs.filter((one) => one !== undefined)
  return {
    values: all.flatMap((one) => one.values),
    writes: all.flatMap((one) => one.writes),
    runs: all.flatMap((one) => one.runs),
    own: all.flatMap((one) => one.own),
  }
}

/** git's own options before the subcommand: config and paths that decide what code git runs. */
const GIT_GLOBAL = spec({
  values: '-C -c --git-dir --work-tree --namespace --super-prefix --config-env --attr-source --list-cmds',
  runs: '-c --config-env --exec-path --git-dir --work-tree',
})
/** Options that write or run in whichever subcommand takes them. */
const GIT_ANY = spec({
  writes: '--output --output-directory',
  runs: '--open-files-in-pager --exec= --upload-pack= --receive-pack= --ext-diff --textconv --extcmd=',
  own: '--text',
})
/**
 * Short options whose letter means something else elsewhere (`git grep -o` only prints the match,
 * `git switch -c` makes a branch), and the values of the commands that take messages.
 */
const GIT_SUBCOMMANDS: Record<string, OptionSpec> = {
  grep: spec({ runs: '-O' }),
  'format-patch': spec({ writes: '-o' }),
  archive: spec({ writes: '-o' }),
  rebase: spec({ runs: '-x=' }),
  clone: spec({ runs: '-u= -c= --config= --template=' }),
  init: spec({ runs: '--template=' }),
  difftool: spec({ runs: '-x=' }),
  commit: spec({ values: '-m -F -C -c --message --file --reuse-message --reedit-message --author --date' }),
  tag: spec({ values: '-m -F --message --file' }),
  merge: spec({ values: '-m -F --message --file' }),
  stash: spec({ values: '-m --message' }),
}

function gitRisks(args: Word[], cwd: string | null): RiskyUse {
  let at = 0
  while (at < args.length) {
    const word = args[at] as Word
    const text = display(word)
    if (!text.startsWith('-') || knownOnlyWhenRun(word)) break
    at += GIT_GLOBAL.values.includes(text) ? 2 : 1
  }
  const global = risksIn(args.slice(0, at), GIT_GLOBAL, cwd)
  const subcommand = args[at]
  if (!subcommand) return global
  if (knownOnlyWhenRun(subcommand)) return merged(global, { options: [unknown(subcommand)], written: [] })
  const options = joined(GIT_ANY, GIT_SUBCOMMANDS[display(subcommand)])
  return merged(global, risksIn(args.slice(at + 1), options, cwd))
}

const SED = spec({
  values: '-e -f -l --expression --file --line-length',
  runs: '-i -f --in-place --file',
})

/** sed -i writes its files; a script's `w`, `e`, `r` commands write, run or read files of their own. */
function sedRisks(args: Word[], cwd: string | null): RiskyUse {
  const read = readOptions(args, SED)
  const use = risked(read, SED, cwd)
  const scripts = optionValues(read, ['-e', '--expression'])
  const operands = [...read.operands]
  if (scripts.length === 0 && !read.options.some((option) => matches(option.name, ['-f', '--file']))) {
    scripts.push(operands.shift())
  }
  for (const script of scripts) {
    // A script known only when it runs is listed as such already.
    if (!script || read.unknown.includes(script as Word)) continue
    if (script.value === null) use.options.push(unknown(script))
    else if (sedScriptTouchesFiles(script.value)) use.options.push(script.raw)
  }
  if (read.options.some((option) => matches(option.name, ['-i', '--in-place']))) {
    use.written.push(...operands.map((operand) => resolvePath(operand, cwd)))
  }
  return use
}

const AWK = spec({
  values: '-f -v -F -e -E -i -l -W --file --assign --field-separator --source --exec --include --load',
  runs: '-f -E -i -l -p -d -o -W --file --exec --include --load --profile --dump-variables --pretty-print',
})
/** What in an awk program runs a command or writes a file: system(), pipes, output redirects, extensions. */
const AWK_PROGRAM_RISK = /\bsystem\b|[|>]|@/

function awkRisks(args: Word[], cwd: string | null): RiskyUse {
  const read = readOptions(args, AWK)
  const use = risked(read, AWK, cwd)
  const programs = optionValues(read, ['-e', '--source'])
  if (programs.length === 0 && !read.options.some((option) => matches(option.name, AWK.runs))) {
    programs.push(read.operands[0])
  }
  for (const program of programs) {
    if (!program || read.unknown.includes(program as Word)) continue
    if (program.value === null) use.options.push(unknown(program))
    else if (AWK_PROGRAM_RISK.test(program.value)) use.options.push(program.raw)
  }
  return use
}

const TAR = spec({
  values:
    '-f -C -b -g -H -K -L -N -T -V -X --file --directory --blocking-factor --listed-incremental ' +
    '--format --starting-file --tape-length --newer --files-from --label --exclude-from',
  runs:
    '-I= -F= --to-command= --use-compress-program= --info-script= --new-volume-script= ' +
    '--checkpoint-action= --rsh-command= --rmt-command=',
  own: '--checkpoint',
})

/** tar's first word may be letters without a dash (`tar xzf a.tar`): read as the options they are. */
function tarRisks(args: Word[], cwd: string | null): RiskyUse {
  const [first, ...rest] = args
  if (!first?.value || first.value.startsWith('-')) return risksIn(args, TAR, cwd)
  return risksIn([{ ...first, value: `-${first.value}` }, ...rest], TAR, cwd)
}

const checkWith =
  (options: OptionSpec): RiskCheck =>
  (args, cwd) =>
    risksIn(args, options, cwd)

const RISKY_OPTIONS: Record<string, RiskCheck> = {
  git: gitRisks,
  sed: sedRisks,
  awk: awkRisks,
  gawk: awkRisks,
  mawk: awkRisks,
  nawk: awkRisks,
  find: checkWith(
    spec({ writes: '-fprint -fprint0 -fprintf -fls', runs: '-exec -execdir -ok -okdir -delete' }),
  ),
  rg: checkWith(
    spec({
      values:
        '-e -f -g -t -T -m -A -B -C -E -j -M -r --regexp --file --glob --iglob --type --type-not ' +
        '--max-count --after-context --before-context --context --encoding --threads --max-columns --replace',
      runs: '--pre= --hostname-bin=',
    }),
  ),
  tar: tarRisks,
  sort: checkWith(
    spec({
      values: '-k -t -S -T --key --field-separator --buffer-size --temporary-directory --parallel',
      writes: '-o --output',
      runs: '--compress-program=',
    }),
  ),
  npm: checkWith(
    spec({
      runs:
        '-c= --call= --script-shell= --node-options= --userconfig= --globalconfig= --git= --shell= ' +
        '--editor= --browser= --viewer= --init-module= --node-gyp=',
      own: '--global',
    }),
  ),
  curl: checkWith(
    spec({
      writes:
        '-o -D -c --output --dump-header --cookie-jar --trace --trace-ascii --stderr --libcurl ' +
        '--etag-save --hsts --alt-svc',
      runs: '-O -J -K= --remote-name --remote-name-all --remote-header-name --output-dir= --config=',
    }),
  ),
  rsync: checkWith(spec({ runs: '-e= --rsh=' })),
  scp: checkWith(spec({ runs: '-S= -o= -F=' })),
  zip: checkWith(spec({ runs: '-TT= --unzip-command=' })),
}

/** Whether `program` (a name or a path) has options that write, run or load code: then only exact rules are offered for it. */
export function hasRiskyOptions(program: string): boolean {
  return Object.hasOwn(RISKY_OPTIONS, basename(program))
}

/** What in `argv` (a command with its wrappers stripped) writes, runs or loads beyond what its program's rule covers. */
export function riskyOptions(argv: Word[], cwd: string | null, appendsInput: boolean): RiskyUse {
  const program = commandName(argv[0])
  const check = Object.hasOwn(RISKY_OPTIONS, program) ? RISKY_OPTIONS[program] : undefined
  if (!check) return { options: [], written: [] }
  const use = check(argv.slice(1), cwd)
  // `… | xargs git log`: the words it adds could be any option.
  if (appendsInput) use.options.push('the words xargs adds from its input')
  return { options: [...new Set(use.options)], written: use.written }
}

/** One option as the program reads it: its name, what was written, and its value when it takes one. */
interface ReadOption {
  name: string
  text: string
  value?: WordText
}

interface ReadArgs {
  options: ReadOption[]
  /** The words that are not options, and those that may be: the words known only when it runs. */
  operands: Word[]
  /** Words before `--` that bash fills in only when it runs: options, or operands. */
  unknown: Word[]
}

/** Whether `name` is one of `names`, or an abbreviation of one of their long options. */
function matches(name: string, names: readonly string[]): boolean {
  return names.some(
    (one) => one === name || (name.startsWith('--') && name.length > 2 && one.startsWith(name)),
  )
}

/** Reads a program's arguments as getopt does: options until `--`, values where they are taken, operands. */
function readOptions(args: Word[], options: OptionSpec): ReadArgs {
  const read: ReadArgs = { options: [], operands: [], unknown: [] }
  const takesValue = (name: string) => options.values.includes(name) || matches(name, options.writes)
  const valueAfter = (at: number): WordText | undefined => args[at + 1]
  let ended = false
  for (let at = 0; at < args.length; at++) {
    const word = args[at] as Word
    const text = display(word)
    // A long option's name is fixed even when its value is not: `--format="$F"` is still --format.
    const longName = /^--[\w-]+(?==)/.exec(word.raw)?.[0]
    if (ended) read.operands.push(word)
    else if (text === '--') ended = true
    else if (knownOnlyWhenRun(word) && longName === undefined) {
      read.unknown.push(word)
      read.operands.push(word)
    } else if (text.startsWith('--')) {
      const equals = text.indexOf('=')
      const name = equals === -1 ? text : text.slice(0, equals)
      const inline =
        equals === -1 ? undefined : { raw: '', value: word.value === null ? null : text.slice(equals + 1) }
      const value = inline ?? (takesValue(name) ? valueAfter(at) : undefined)
      if (!inline && value) at++
      read.options.push({
        name,
        text: inline || !value ? text : `${text} ${value.raw}`,
        ...(value && { value }),
      })
    } else if (text.startsWith('-') && text.length > 1) {
      at = readShortOptions(args, at, options, read, takesValue)
    } else read.operands.push(word)
  }
  return read
}

/** `-abc` (each letter an option, the first that takes a value taking the rest), or a whole word like `-delete`. */
function readShortOptions(
  args: Word[],
  at: number,
  options: OptionSpec,
  read: ReadArgs,
  takesValue: (name: string) => boolean,
): number {
  const text = display(args[at])
  const listed = [...options.values, ...options.writes, ...options.runs]
  const letters =
    listed.includes(text) && text.length > 2 ? [text] : [...text.slice(1)].map((letter) => `-${letter}`)
  for (const [index, name] of letters.entries()) {
    if (!takesValue(name)) {
      read.options.push({ name, text })
      continue
    }
    const rest = letters.length === 1 ? '' : text.slice(index + 2)
    const next = args[at + 1]
    if (rest !== '') read.options.push({ name, text, value: { raw: '', value: rest } })
    else if (next) {
      read.options.push({ name, text: `${text} ${next.raw}`, value: next })
      return at + 1
    } else read.options.push({ name, text })
    return at
  }
  return at
}

function optionValues(read: ReadArgs, names: string[]): (WordText | undefined)[] {
  return read.options.filter((option) => matches(option.name, names)).map((option) => option.value)
}

function risksIn(args: Word[], options: OptionSpec, cwd: string | null): RiskyUse {
  return risked(readOptions(args, options), options, cwd)
}

/** The options read that write or run, the files they write, and the words known only when it runs. */
function risked(read: ReadArgs, options: OptionSpec, cwd: string | null): RiskyUse {
  const writes = (option: ReadOption) => matches(option.name, options.writes)
  // `-o -` writes to standard output, not to a file.
  const risky = read.options.filter(
    (option) =>
      !options.own.includes(option.name) &&
      (matches(option.name, options.runs) || (writes(option) && option.value?.value !== '-')),
  )
  return {
    options: [...risky.map((option) => option.text), ...read.unknown.map(unknown)],
    written: risky.filter(writes).map((option) => (option.value ? resolvePath(option.value, cwd) : null)),
  }
}

function unknown(word: WordText): string {
  return `${word.raw} (known only when it runs)`
}

function merged(first: RiskyUse, second: RiskyUse): RiskyUse {
  return { options: [...first.options, ...second.options], written: [...first.written, ...second.written] }
}

/**
 * Whether a sed script can write, read or run beyond its input: the commands `w`, `W`, `r`, `R`, `e`
 * and the `w` and `e` flags of `s`. Read as GNU sed reads it; whatever this does not understand counts.
 */
function sedScriptTouchesFiles(script: string): boolean {
  let at = 0
  const peek = () => script.charAt(at)
  const skipWhile = (pattern: RegExp) => {
    while (at < script.length && pattern.test(peek())) at++
  }
  /** Past a part ended by `delimiter` (an address's regex, a pattern, a replacement); false when it does not end. */
  const skipDelimited = (delimiter: string): boolean => {
    for (; at < script.length; at++) {
      if (peek() === '\\') at++
      else if (peek() === '\n') return false
      else if (peek() === delimiter) {
        at++
        return true
      }
    }
    return false
  }
  /** Past one address, if any (`12`, `$`, `first~step`, `+3`, `/re/I`, `\%re%`); false when it does not end. */
  const skipAddress = (): boolean => {
    if (peek() === '/' || peek() === '\\') {
      at += peek() === '/' ? 1 : 2
      if (!skipDelimited(script.charAt(at - 1))) return false
    } else {
      at += /^(?:[+~]?\d+(?:~\d+)?|\$)?/.exec(script.slice(at))?.[0].length ?? 0
    }
    skipWhile(/[IM]/)
    return true
  }
  while (at < script.length) {
    skipWhile(/[\s;}]/)
    if (at >= script.length) break
    if (peek() === '#') {
      skipWhile(/[^\n]/)
      continue
    }
    if (!skipAddress()) return true
    if (peek() === ',') {
      at++
      if (!skipAddress()) return true
    }
    skipWhile(/[\s!]/)
    const command = script.charAt(at++)
    if (/^[{=dDgGhHnNpPxzF]$/.test(command)) continue
    if (/^[qQlL]$/.test(command)) skipWhile(/[\s\d]/)
    else if (/^[:btTv]$/.test(command)) skipWhile(/[^;\n]/)
    else if (/^[aic]$/.test(command)) {
      // Text to the end of the line, and on past each line that ends with a backslash.
      do skipWhile(/[^\n]/)
      while (script.charAt(at - 1) === '\\' && at++ < script.length)
    } else if (command === 's' || command === 'y') {
      const delimiter = script.charAt(at++)
      if (!/^[^\\\n]$/.test(delimiter) || !skipDelimited(delimiter) || !skipDelimited(delimiter)) return true
      // The flags of s, but for `w file` and `e`; anything else after them is not sed this check reads.
      if (command === 's') skipWhile(/[gpiImM\d]/)
      if (!/^\s*(?:[;\n}]|$)/.test(script.slice(at))) return true
    } else return true
  }
  return false
}
