/**
 * Commands that run another command given as their arguments — `sudo`, `env`, `timeout`, `xargs`… —
 * stripped so rules meet the command they run. Their own options are read one by one, because some
 * of them run or write something themselves: `env -S` splits a string into a command line, `time -o`
 * writes a file, `env -C` moves the command to another folder. An option not in the table could do
 * anything, so it makes the command ask.
 */
import { commandName, display, resolvePath, type Word, type WordText } from './shell-words'

/**
 * What a wrapper's option does: `flag` takes no value; `value` takes one (in its word or the next)
 * that changes nothing checked here; `attached` takes one only in its own word (`xargs -i{}`);
 * `writes`, `reads` and `chdir` take a file written, a file read and the folder the command runs in;
 * `split` (env -S) takes a string split into more words of the command line; `lookup` means the
 * wrapper runs no command (`command -v git`); `unsets` takes a variable it removes and `clears`
 * empties the environment (env -u, env -i): as setting a variable, they can change what the command
 * runs — `env -u GIT_CONFIG_COUNT git status` drops the git settings every agent command carries.
 */
type WrapperRole =
  | 'flag'
  | 'value'
  | 'attached'
  | 'writes'
  | 'reads'
  | 'chdir'
  | 'split'
  | 'lookup'
  | 'unsets'
  | 'clears'

interface WrapperSpec {
  /** Every option the wrapper takes, by what it does. */
  options: Record<string, WrapperRole>
  /** `VAR=x` words may come before the command (sudo, env). */
  assignments?: boolean
  /** Words after the options that are not the command: timeout's duration. */
  operands?: number
  /** Words that are options whatever their letters: nice's `-10`. */
  pattern?: RegExp
}

/** Options listed by role, as space-separated names. */
function roles(byRole: Partial<Record<WrapperRole, string>>): Record<string, WrapperRole> {
  return Object.fromEntries(
    Object.entries(byRole).flatMap(([role, names]) =>
      names.split(' ').map((name) => [name, role as WrapperRole]),
    ),
  )
}

const WRAPPERS: Record<string, WrapperSpec> = {
  sudo: {
    options: roles({
      flag:
        '-A -b -B -E -H -i -k -K -n -P -S -s -v --askpass --background --bell --preserve-env --set-home ' +
        '--login --reset-timestamp --remove-timestamp --non-interactive --preserve-groups --stdin --shell',
      value:
        '-u -g -C -h -p -r -t -T -U --user --group --close-from --host --prompt --role --type ' +
        '--command-timeout --other-user',
      chdir: '-D --chdir',
      // -e edits its operands in an editor, -l lists what may run: neither runs the words after it.
      lookup: '-e -l -V --edit --list --version --help',
    }),
    assignments: true,
  },
  env: {
    options: roles({
      flag: '-0 -v --null --debug --block-signal --default-signal --ignore-signal --list-signal-handling',
      unsets: '-u --unset',
      clears: '- -i --ignore-environment',
      chdir: '-C --chdir',
      split: '-S --split-string',
    }),
    assignments: true,
  },
  timeout: {
    options: roles({
      flag: '-v --verbose --preserve-status --foreground',
      value: '-s -k --signal --kill-after',
    }),
    operands: 1,
  },
  nice: { options: roles({ value: '-n --adjustment' }), pattern: /^--?\d+$/ },
  nohup: { options: {} },
  xargs: {
    options: roles({
      flag:
        '-0 -o -p -r -t -x --null --open-tty --interactive --no-run-if-empty --verbose --exit --show-limits ' +
        '--eof --replace --max-lines',
      value: '-d -E -I -L -n -P -s --delimiter --max-args --max-procs --max-chars --process-slot-var',
      attached: '-e -i -l',
      reads: '-a --arg-file',
    }),
  },
  // GNU time's options; bash's own `time` takes only -p.
  time: {
    options: roles({
      flag: '-p -a -v -q --portability --append --verbose --quiet',
      value: '-f --format',
      writes: '-o --output',
    }),
  },
  command: { options: roles({ flag: '-p', lookup: '-v -V' }) },
  builtin: { options: {} },
  exec: { options: roles({ flag: '-c -l', value: '-a' }) },
  stdbuf: { options: roles({ value: '-i -o -e --input --output --error' }) },
  ionice: {
    options: roles({
      flag: '-t --ignore',
      value: '-c -n --class --classdata',
      lookup: '-p -P -u --pid --pgid --uid',
    }),
  },
}

/** Roles whose option takes a value, in its own word or the next. */
const TAKES_VALUE = new Set<WrapperRole>(['value', 'writes', 'reads', 'chdir', 'split', 'unsets'])

/** Words env -S splits as bash would: no escapes, expansions, comments or shell syntax, which env reads otherwise. */
const PLAIN_SPLIT_STRING = /^[^\\$#;&|<>()`\n\r{}*?[~]*$/

/** A command with its wrappers taken off, and what their options do to it. */
export interface Unwrapped {
  /** The wrapped command's words. */
  argv: Word[]
  /** The wrappers stripped, by name, in order. */
  wrappers: string[]
  /** Variables set by `env X=1`, `sudo X=1`. */
  assignments: string[]
  /** The folder the command runs in, after `env -C`, `sudo -D`: null when unknown. */
  cwd: string | null
  /** Files the wrappers write (`time -o log`): the option as written, with its wrapper, and the file. */
  writes: { text: string; path: string | null }[]
  /** Files the wrappers read (`xargs -a list`). */
  reads: (string | null)[]
  /** xargs adds words it reads from its input to the command. */
  appendsInput: boolean
  /**
   * `env -S`: the whole command line again, with the string split where it stood, to be parsed as
   * a command of its own. When set, nothing is stripped: the new line holds the wrappers again.
   */
  respliced?: string
  /** Why what the wrappers run cannot be told: an option not known, a string built at run time. */
  problems: string[]
}

/** Strips the wrappers off the front of `words`, a command that starts in `cwd`. */
export function stripWrappers(words: Word[], cwd: string | null): Unwrapped {
  const nothingStripped = (): Unwrapped => ({
    argv: words,
    wrappers: [],
    assignments: [],
    cwd,
    writes: [],
    reads: [],
    appendsInput: false,
    problems: [],
  })
  const unwrapped = nothingStripped()
  let at = 0
  for (;;) {
    const name = commandName(words[at])
    const spec = WRAPPERS[name]
    if (!spec) return unwrapped
    const reading = readWrapper(words, at, name, spec, unwrapped.cwd)
    if (reading.respliced !== undefined) return { ...nothingStripped(), respliced: reading.respliced }
    // A wrapper with nothing after it (`sudo`, `xargs`) is itself the command.
    if (reading.start === undefined || reading.start >= words.length) return unwrapped
    unwrapped.problems.push(...reading.problems)
    unwrapped.wrappers.push(name)
    unwrapped.assignments.push(...reading.assignments)
    unwrapped.cwd = reading.cwd
    unwrapped.writes.push(...reading.writes)
    unwrapped.reads.push(...reading.reads)
    unwrapped.appendsInput ||= name === 'xargs'
    unwrapped.argv = words.slice(reading.start)
    at = reading.start
  }
}

interface WrapperReading {
  /** Where the wrapped command starts; undefined when the wrapper runs none. */
  start: number | undefined
  assignments: string[]
  cwd: string | null
  writes: Unwrapped['writes']
  reads: (string | null)[]
  respliced?: string
  problems: string[]
}

/** One option of a wrapper in a word: `-u` of `-Eu`, `--chdir` of `--chdir=x`, with a value in the same word. */
interface OptionInWord {
  name: string
  inline?: string
  /** For a letter in a cluster, the letters before it (`-i` of `-iS…`), which stay options if the word is split. */
  before?: string
}

/** Reads the options of the wrapper at `words[from]`, up to the command it runs. */
function readWrapper(
  words: Word[],
  from: number,
  name: string,
  spec: WrapperSpec,
  cwd: string | null,
): WrapperReading {
  const reading: WrapperReading = {
    start: undefined,
    assignments: [],
    cwd,
    writes: [],
    reads: [],
    problems: [],
  }
  let at = from + 1
  for (; at < words.length; at++) {
    const word = words[at] as Word
    const text = display(word)
    if (text === '--') {
      at++
      break
    }
    if (spec.assignments && /^[A-Za-z_]\w*=/.test(text)) {
      reading.assignments.push(text.slice(0, text.indexOf('=')))
      continue
    }
    if (spec.pattern?.test(text)) continue
    if (word.value === null && !/^-[\w-]/.test(word.raw)) {
      // `env "$OPTS" cmd`: options, or the command, known only when it runs.
      reading.problems.push(`${name} is given ${word.raw}, which is known only when it runs.`)
      break
    }
    if (!text.startsWith('-') || (text === '-' && spec.options['-'] === undefined)) break
    for (const option of optionsIn(text, spec)) {
      const role = spec.options[option.name]
      if (role === undefined) {
        reading.problems.push(`${name} has the option ${option.name}, which this check does not know.`)
        continue
      }
      if (role === 'lookup') return reading
      if (role === 'clears') reading.assignments.push('every variable (env -i)')
      if (!TAKES_VALUE.has(role)) continue
      const separate = option.inline === undefined
      // In `--chdir="$D"` the option is known, its value is not.
      const inline = { raw: '', value: word.value === null ? null : (option.inline ?? '') }
      const value: WordText | undefined = separate ? words[at + 1] : inline
      if (!value) return reading
      if (separate) at++
      if (role === 'split') {
        const split = splitString(words, at, option, value)
        if (split !== undefined) return { ...reading, respliced: split }
        reading.problems.push(`${name} -S splits a string that this check cannot read as plain words.`)
      } else if (role === 'chdir') {
        reading.cwd = resolvePath(value, reading.cwd)
      } else if (role === 'writes') {
        const written = separate ? `${option.name} ${words[at]?.raw}` : text
        reading.writes.push({ text: `${name} ${written}`, path: resolvePath(value, reading.cwd) })
      } else if (role === 'reads') {
        reading.reads.push(resolvePath(value, reading.cwd))
      } else if (role === 'unsets') {
        reading.assignments.push(value.value ?? value.raw)
      }
    }
  }
  reading.start = at + (spec.operands ?? 0)
  return reading
}

/** The options in one word: a long one (`--name=value`), or a cluster of letters, the last of which may take the rest. */
function optionsIn(text: string, spec: WrapperSpec): OptionInWord[] {
  if (text.startsWith('--')) {
    const equals = text.indexOf('=')
    return [equals === -1 ? { name: text } : { name: text.slice(0, equals), inline: text.slice(equals + 1) }]
  }
  if (text === '-') return [{ name: text }]
  const options: OptionInWord[] = []
  for (let at = 1; at < text.length; at++) {
    const name = `-${text[at]}`
    const role = spec.options[name]
    const rest = text.slice(at + 1)
    if (role === 'attached' || (role !== undefined && TAKES_VALUE.has(role))) {
      // `-u root` or `-uroot`; an attached value (`-i{}`) is only ever in the same word.
      const inline = rest !== '' || role === 'attached' ? rest : undefined
      options.push({ name, ...(inline !== undefined && { inline }), before: text.slice(0, at) })
      return options
    }
    options.push({ name })
  }
  return options
}

/**
 * The command line with env -S's string split in place of the option, or undefined when the string
 * is not plain words: env's own escapes and `${VAR}`, or shell syntax bash would read differently.
 */
function splitString(
  words: Word[],
  valueAt: number,
  option: OptionInWord,
  value: WordText,
): string | undefined {
  if (value.value === null || !PLAIN_SPLIT_STRING.test(value.value)) return undefined
  const optionAt = option.inline === undefined ? valueAt - 1 : valueAt
  const before = option.before && option.before !== '-' ? [option.before] : []
  return [
    ...words.slice(0, optionAt).map((word) => word.raw),
    ...before,
    value.value,
    ...words.slice(valueAt + 1).map((word) => word.raw),
  ].join(' ')
}
