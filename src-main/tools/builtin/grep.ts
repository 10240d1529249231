import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { type Static, Type } from '@sinclair/typebox'
import { defineTool } from '../define-tool'
import { ToolArgumentError, ToolError, type ToolErrorType } from '../errors'
import { BINARY_PROBE_BYTES, looksBinary, openedAt } from '../files'
import {
  baseDirectory,
  describePath,
  loadPathPolicy,
  type PathPolicyData,
  pathToolSettings,
  policyData,
  policyFromData,
} from '../paths'
import { withDisplay } from '../pipeline/shape'
import { registerTool } from '../registry'
import { DEFAULT_MAX_RESULT_CHARS } from '../result-limits'
import {
  cachePlan,
  type JobContext,
  type PartResult,
  type SearchPart,
  searchInParts,
  walkPart,
} from '../search/search-call'
import type { CachePlan, FileSummary } from '../search/tree-cache'
import { mayMatch, type TrigramQuery, trigramQuery } from '../search/trigrams'
import { SEARCH_TIMEOUT_DESCRIPTOR, searchPool } from '../search/worker-pool'
import { clampIntegerSetting, integerParameter, TIMEOUT_SECONDS } from '../settings-policy'
import type { EffectiveToolSettings, RegisteredTool, ToolContext } from '../types'
import {
  fitMatches,
  globMatcher,
  namesDotEntry,
  resolveSearchPath,
  WALK_SETTING_DEFAULTS,
  WALK_SETTING_DESCRIPTORS,
  type WalkOptions,
  walkSettings,
} from '../walk'

const Parameters = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      description:
        'JavaScript regular expression matched against each line, e.g. function\\s+\\w+Sync or TODO|FIXME. ' +
        'Escape . ( ) [ ] { } * + ? | ^ $ \\ to match them literally.',
    }),
    path: Type.String({
      minLength: 1,
      description:
        'File or folder to search: absolute, ~-prefixed, or relative to the working folder ("." for the working folder).',
    }),
    glob: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'For a folder: only search the files this glob matches. Without a / it matches file names at any depth ' +
          '(*.ts: every .ts file below the folder, as ripgrep -g reads it); with a / it matches the path below ' +
          'the folder (src/*.ts: only those directly in src; src/**/*.ts: all below src). A leading ! excludes.',
      }),
    ),
    caseInsensitive: Type.Optional(
      Type.Boolean({ description: 'Match letters regardless of case. Default: false.' }),
    ),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

const LIMITS = {
  maxResults: { min: 1, max: 5000, fallback: 100 },
  maxMatchesPerFile: { min: 1, max: 1000, fallback: 20 },
  maxFileSizeBytes: { min: 1024, max: 104_857_600, fallback: 1_048_576 },
}
/** The cap on what reaches the model (longer results are cut); grep returns only the matches that fit under it. */
const MAX_RESULT_CHARS = DEFAULT_MAX_RESULT_CHARS
/** Longer lines are cut: one minified line could otherwise fill the model's context. */
const MAX_LINE_CHARS = 500
/**
 * Text is decoded and scanned in pieces of about this size, each ending after a newline. V8 puts
 * strings over 128 KiB in its large-object space, and allocating those made decoding a 1 MB file
 * several times slower than searching it.
 */
const CHUNK_BYTES = 16 * 1024
/** No symlink is followed, and opening a FIFO that raced in must not block. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/** The pattern is not a JavaScript regular expression; the message says how to fix it. */
export class GrepPatternError extends ToolArgumentError {
  override readonly name = 'GrepPatternError'

  constructor(pattern: string, reason: string) {
    super(
      `pattern ${JSON.stringify(pattern)} is not a valid JavaScript regular expression (${reason}). ` +
        'Escape ( ) [ ] { } . * + ? | ^ $ \\ to match them literally, and use caseInsensitive rather than inline flags such as (?i)',
      'pattern',
    )
  }
}

export interface GrepMatch {
  /** Relative to the working folder in agent mode, else absolute: ready for read_file. */
  file: string
  /** 1-based. */
  line: number
  /** The line, cut to MAX_LINE_CHARS characters with a trailing "…". */
  text: string
}

export interface GrepResult {
  /** The path argument as given. */
  path: string
  /** Sorted by file, then line. */
  matches: GrepMatch[]
  /** maxResults cut the search short, or not every match fit in MAX_RESULT_CHARS. */
  truncated: boolean
}

interface LineMatcher {
  /** Global and multiline: finds candidates in a whole piece of text at once. */
  scan: RegExp
  /** Confirms a candidate's line on its own, so a match that spans lines is not reported. */
  line: RegExp
  /**
   * Text every match contains, per alternative of the pattern (any alternative, all of its texts):
   * files and stretches without it are skipped before any decoding. Absent when unknown.
   */
  required?: Buffer[][]
  /**
   * The case-insensitive form of `required`: finds, in a piece of text decoded as latin1, a place
   * where some alternative's longest text occurs. Such text is ASCII, which latin1 decodes exactly
   * as UTF-8 does, only several times faster; pieces without it are never decoded as UTF-8.
   */
  candidates?: RegExp
  /** The three-byte sequences a match needs (from the same texts), for files with a summary. */
  query?: TrigramQuery
}

function compilePattern(pattern: string, caseInsensitive: boolean): LineMatcher {
  const flags = caseInsensitive ? 'mi' : 'm'
  let scan: RegExp
  try {
    scan = new RegExp(pattern, `g${flags}`)
  } catch (error) {
    // V8 says "Invalid regular expression: /source/flags: reason"; the reason is what helps.
    const message = (error as Error).message
    throw new GrepPatternError(pattern, message.slice(message.lastIndexOf(': ') + 2))
  }
  const line = new RegExp(pattern, flags)
  const required = requiredTexts(pattern)
  if (!required) return { scan, line }
  const query = trigramQuery(required)
  if (!caseInsensitive) return { scan, line, required, ...(query && { query }) }
  const longest = required.map(([text]) => String(text).replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'))
  return { scan, line, candidates: new RegExp(longest.join('|'), 'i'), ...(query && { query }) }
}

/**
 * The ASCII texts every match of `pattern` must contain, per top-level alternative, read the way
 * ripgrep finds literals to search for before running the regex. Conservative: any syntax this
 * reading does not follow (groups, back references, escapes other than \d \w \s \b and
 * punctuation) gives undefined, and so does an alternative with no text, which could match anywhere.
 */
export function requiredTexts(pattern: string): Buffer[][] | undefined {
  const alternatives: Buffer[][] = []
  let texts: Buffer[] = []
  let text = ''
  let lastAtomInText = false
  const endText = () => {
    if (text) texts.push(Buffer.from(text))
    text = ''
  }
  const close = () => {
    endText()
    // Longest first: the text whose next occurrence the search jumps to, as likely the rarest.
    alternatives.push(texts.sort((a, b) => b.length - a.length))
    texts = []
  }
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string
    let literal: string | undefined
    if (char === '\\') {
      const escaped = pattern[++i] ?? ''
      if (/^[dDwWsSbB]$/.test(escaped)) literal = undefined
      // Escaped ASCII punctuation stands for itself.
      else if (/^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]$/.test(escaped)) literal = escaped
      else return undefined
    } else if (char === '[') {
      // A class: skip to its closing bracket; `]` right after `[` or `[^` closes it in JavaScript.
      let j = pattern[i + 1] === '^' ? i + 2 : i + 1
      while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1
      i = j
    } else if (char === '(') {
      return undefined
    } else if (char === '|') {
      close()
      lastAtomInText = false
      continue
    } else if (
      char === '*' ||
      char === '?' ||
      char === '+' ||
      (char === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(i)))
    ) {
      const min = char === '+' ? 1 : char === '{' ? Number(/^\{(\d+)/.exec(pattern.slice(i))?.[1]) : 0
      // The repeated atom may be absent: it cannot count as required text.
      if (min === 0 && lastAtomInText) text = text.slice(0, -1)
      endText()
      if (char === '{') i = pattern.indexOf('}', i)
      if (pattern[i + 1] === '?') i++
      lastAtomInText = false
      continue
    } else if (char !== '.' && char !== '^' && char !== '$' && char.charCodeAt(0) < 0x80) {
      literal = char
    }
    if (literal === undefined) endText()
    else text += literal
    lastAtomInText = literal !== undefined
  }
  close()
  return alternatives.every((texts) => texts.length > 0) ? alternatives : undefined
}

/**
 * Matches a file's path below the folder searched. Like ripgrep's -g, a glob without a slash matches
 * names at any depth: *.ts reads as **\/*.ts (Bun.Glob would read it as the folder's own files only).
 * Wildcards match dot names only with includeDotfiles, as in glob, so .hidden/** does not reach
 * into .hidden/.cache unless dotfiles are included.
 */
function compileFileFilter(glob: string, includeDotfiles: boolean): (relative: string) => boolean {
  // A leading ! (not the extglob !(…)) negates what follows it.
  const negations = /^(?:!(?!\())*/.exec(glob)?.[0] ?? ''
  const body = glob.slice(negations.length)
  const pattern = negations + (body.includes('/') ? body : `**/${body}`)
  try {
    return globMatcher(pattern, { dot: includeDotfiles, posix: true })
  } catch (error) {
    throw new ToolArgumentError(`"${glob}" is not a valid glob: ${(error as Error).message}`, 'glob')
  }
}

type Skipped = 'binary' | 'too_large' | 'unreadable' | 'moved'
type Line = { line: number; text: string }

/**
 * Searches files one at a time, through one buffer that grows to the largest file read. The calls
 * are synchronous: with a thread-pool round trip for each open, stat, read and close, a search of
 * node_modules took 3 to 5 times longer. It runs in a search worker, which a stop terminates.
 */
class FileSearcher {
  private buffer = Buffer.allocUnsafe(64 * 1024)
  filesRead = 0

  constructor(
    private readonly matcher: LineMatcher,
    private readonly maxBytes: number,
  ) {}

  /**
   * The file's matching lines, at most `limit`; or why it was not searched. With a summary of the
   * file as it is now, a file it rules out is not opened.
   */
  search(path: string, limit: number, summary?: FileSummary): Line[] | Skipped {
    if (summary) {
      if (summary.size > this.maxBytes) return 'too_large'
      if (summary.binary) return 'binary'
      const { query } = this.matcher
      if (query && summary.table && !mayMatch(summary.table, query)) return []
    }
    let fd: number
    try {
      fd = openSync(path, OPEN_FLAGS)
    } catch {
      return 'unreadable'
    }
    this.filesRead++
    try {
      const bytes = this.read(fd)
      if (typeof bytes === 'string') return bytes
      const lines = matchLines(bytes, this.matcher, limit)
      // A folder on the way may have been swapped for a link to outside since it was listed. What
      // was read through it reaches no one unless it matched, so only then is the file checked.
      if (lines.length > 0 && !openedAt(fd, path)) return 'moved'
      return lines
    } finally {
      closeSync(fd)
    }
  }

  private read(fd: number): Buffer | Skipped {
    try {
      const stats = fstatSync(fd)
      if (!stats.isFile()) return 'unreadable'
      if (stats.size > this.maxBytes) return 'too_large'
      if (this.buffer.length < stats.size) this.buffer = Buffer.allocUnsafe(stats.size)
      // A file that grows meanwhile is searched up to the size it had; the cap is never passed.
      let length = 0
      while (length < stats.size) {
        const read = readSync(fd, this.buffer, length, stats.size - length, length)
        if (read === 0) break
        length += read
      }
      const bytes = this.buffer.subarray(0, length)
      return looksBinary(bytes) ? 'binary' : bytes
    } catch {
      return 'unreadable'
    }
  }
}

/** The matching lines of a file's bytes, at most `limit`, in order. */
function matchLines(bytes: Buffer, matcher: LineMatcher, limit: number): Line[] {
  const found: Line[] = []
  const { required } = matcher
  if (required && !required.some((texts) => texts.every((text) => bytes.includes(text)))) return found
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
  // Line numbers are counted only up to where a match is, and only once: `lineAtCounted` is the
  // line at byte `counted`.
  let counted = bom ? 3 : 0
  let lineAtCounted = 1
  for (let start = counted; start < bytes.length && found.length < limit; ) {
    if (required) {
      // Jump to the line of the next place the required text occurs: no line before it can match.
      const next = nextOccurrence(bytes, required, start)
      if (next === -1) break
      start = Math.max(start, bytes.lastIndexOf(10, next) + 1)
    }
    const newline = bytes.indexOf(10, start + CHUNK_BYTES)
    const end = newline === -1 ? bytes.length : newline + 1
    if (matcher.candidates && !matcher.candidates.test(bytes.toString('latin1', start, end))) {
      start = end
      continue
    }
    const text = bytes.toString('utf8', start, end)
    const { scan } = matcher
    scan.lastIndex = 0
    // The line number at `previousStart` in this piece; 0 until the piece's first candidate.
    let line = 0
    let previousStart = 0
    for (let match = scan.exec(text); match; match = scan.exec(text)) {
      // The empty position after a piece's final newline is not a line of the file.
      if (match.index === text.length && text.endsWith('\n')) break
      if (line === 0) {
        lineAtCounted += countNewlineBytes(bytes, counted, start)
        counted = start
        line = lineAtCounted
      }
      const lineStart = match.index === 0 ? 0 : text.lastIndexOf('\n', match.index - 1) + 1
      const newlineAt = text.indexOf('\n', match.index)
      const lineEnd = newlineAt === -1 ? text.length : newlineAt
      line += countNewlines(text, previousStart, lineStart)
      previousStart = lineStart
      const content = text.slice(lineStart, text.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd)
      if (matcher.line.test(content)) {
        found.push({ line, text: cut(content) })
        if (found.length === limit) break
      }
      if (newlineAt === -1) break
      scan.lastIndex = lineEnd + 1
    }
    start = end
  }
  return found
}

/** Where the longest text of any alternative next occurs, or -1. */
function nextOccurrence(bytes: Buffer, required: Buffer[][], from: number): number {
  let next = -1
  for (const [text] of required) {
    const at = bytes.indexOf(text, from)
    if (at !== -1 && (next === -1 || at < next)) next = at
  }
  return next
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) count++
  return count
}

function countNewlineBytes(bytes: Buffer, from: number, to: number): number {
  let count = 0
  for (let at = bytes.indexOf(10, from); at !== -1 && at < to; at = bytes.indexOf(10, at + 1)) count++
  return count
}

function cut(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line
  const high = line.charCodeAt(MAX_LINE_CHARS - 1)
  // Never split a surrogate pair.
  const end = high >= 0xd800 && high <= 0xdbff ? MAX_LINE_CHARS - 1 : MAX_LINE_CHARS
  return `${line.slice(0, end)}…`
}

/** A grep call as a worker runs it: plain data, planned on the main thread. */
export interface GrepPlan {
  pattern: string
  caseInsensitive: boolean
  /** Real, and accepted by the policy. */
  root: string
  isDirectory: boolean
  glob?: string
  includeDotfiles: boolean
  respectGitignore: boolean
  maxResults: number
  maxMatchesPerFile: number
  maxFileSizeBytes: number
  policy: PathPolicyData
  cache: CachePlan | undefined
}

type Found = { real: string; line: number; text: string }

/** The lines found, in walk order, by real path; or why a file named on its own was not searched. */
export type GrepJobResult = PartResult<Found> | { skipped: Skipped }

/** How often a worker reports how far it got. */
const PROGRESS_MS = 10

async function grep(args: Parameters, context: ToolContext): Promise<GrepResult> {
  const { parameters } = context.settings
  const maxResults = clampIntegerSetting(parameters.maxResults, LIMITS.maxResults)
  const maxMatchesPerFile = clampIntegerSetting(parameters.maxMatchesPerFile, LIMITS.maxMatchesPerFile)
  const maxFileSizeBytes = clampIntegerSetting(parameters.maxFileSizeBytes, LIMITS.maxFileSizeBytes)
  const caseInsensitive = args.caseInsensitive === true
  // Compiled here too, so a bad pattern or glob is refused before any worker walks.
  compilePattern(args.pattern, caseInsensitive)
  const policy = await loadPathPolicy(context)
  const target = await resolveSearchPath(args.path, context, policy)
  const { includeDotfiles, respectGitignore, cacheMiB } = walkSettings(parameters)
  if (target.isDirectory && args.glob) compileFileFilter(args.glob, includeDotfiles)
  const plan: GrepPlan = {
    pattern: args.pattern,
    caseInsensitive,
    root: target.real,
    isDirectory: target.isDirectory,
    ...(args.glob !== undefined && { glob: args.glob }),
    includeDotfiles,
    respectGitignore,
    maxResults,
    maxMatchesPerFile,
    maxFileSizeBytes,
    policy: policyData(policy),
    cache: target.isDirectory ? cachePlan(target.real, baseDirectory(context), cacheMiB) : undefined,
  }
  const onProgress = (done: number, found: number) =>
    context.onUpdate({ kind: 'progress', done, message: `${found} matches` })
  const found = target.isDirectory
    ? await searchInParts<Found>('grep', plan, { signal: context.signal, limit: maxResults + 1, onProgress })
    : await grepOneFile(plan, context.signal, policy.display(target.real))
  const truncated = found.length > maxResults
  const matches = found
    .slice(0, maxResults)
    .map(({ real, line, text }) => ({ file: policy.display(real), line, text }))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line))
  return fitMatches({ path: args.path, matches, truncated }, MAX_RESULT_CHARS)
}

/** A file named on its own: one part, in a worker. */
async function grepOneFile(plan: GrepPlan, signal: AbortSignal, shown: string): Promise<Found[]> {
  const result = await searchPool().run<GrepJobResult>('grep', plan, { subtrees: [] }, { signal })
  if ('skipped' in result) throw notSearched(shown, result.skipped, plan.maxFileSizeBytes)
  return result.pieces.flatMap((piece) => ('found' in piece ? piece.found : []))
}

/** A part of a grep call, in a search worker: the lines found, in walk order. */
export async function grepJob(
  plan: GrepPlan,
  part: SearchPart,
  { progress, cache, signal }: JobContext,
): Promise<GrepJobResult> {
  const { maxMatchesPerFile } = plan
  // One match past maxResults is looked for, so truncated is only set when there were more.
  const limit = plan.maxResults + 1
  const searcher = new FileSearcher(compilePattern(plan.pattern, plan.caseInsensitive), plan.maxFileSizeBytes)
  if (!plan.isDirectory) {
    const lines = searcher.search(plan.root, Math.min(maxMatchesPerFile, limit))
    if (typeof lines === 'string') return { skipped: lines }
    return { pieces: [{ found: lines.map((line) => ({ real: plan.root, ...line })) }] }
  }
  const filter = plan.glob ? compileFileFilter(plan.glob, plan.includeDotfiles) : undefined
  const options: WalkOptions = {
    includeDotfiles: plan.includeDotfiles || (plan.glob !== undefined && namesDotEntry(plan.glob)),
    respectGitignore: plan.respectGitignore,
    onlyFiles: true,
    policy: policyFromData(plan.policy),
    signal,
    folders: cache.source(plan.cache, true),
  }
  let count = 0
  let filesSearched = 0
  let reportAt = performance.now() + PROGRESS_MS
  const result = await walkPart<Found>(plan.root, options, part, (file, found) => {
    if (filter && !filter(file.relative)) return true
    const summary = cache.summary(file.parent, file.path)
    const lines = searcher.search(file.path, Math.min(maxMatchesPerFile, limit - count), summary)
    filesSearched++
    if (typeof lines !== 'string') {
      for (const line of lines) found.push({ real: file.path, ...line })
      count += lines.length
    }
    if (performance.now() >= reportAt) {
      progress(filesSearched, count)
      reportAt = performance.now() + PROGRESS_MS
    }
    return count < limit
  })
  cache.filesRead += searcher.filesRead
  return result
}

/**
 * A file named on its own is reported when it cannot be searched: an empty result would read as "no
 * match". The types follow read_file's for the same refusals.
 */
function notSearched(file: string, why: Skipped, maxFileSizeBytes: number): ToolError {
  const reasons: Record<Skipped, [ToolErrorType, string]> = {
    binary: [
      'validation_failed',
      `it looks binary (a NUL byte in its first ${BINARY_PROBE_BYTES / 1024} KiB); read_file with view "hex" or "base64" shows its bytes`,
    ],
    too_large: [
      'validation_failed',
      `it is larger than grep's maxFileSizeBytes setting (${maxFileSizeBytes} bytes)`,
    ],
    unreadable: ['execution_failed', 'it could not be read'],
    moved: ['path_denied', 'it was moved or replaced by a link while being searched'],
  }
  const [type, reason] = reasons[why]
  return new ToolError(type, `"${file}" was not searched: ${reason}.`)
}

function descriptionFor(settings: EffectiveToolSettings): string {
  const { parameters } = settings
  const { includeDotfiles, respectGitignore } = walkSettings(parameters)
  const maxResults = clampIntegerSetting(parameters.maxResults, LIMITS.maxResults)
  const perFile = clampIntegerSetting(parameters.maxMatchesPerFile, LIMITS.maxMatchesPerFile)
  const skipped = [
    respectGitignore && 'files excluded by .gitignore (e.g. node_modules)',
    !includeDotfiles && 'dotfiles and dot-folders',
    'binary files',
    `files over ${clampIntegerSetting(parameters.maxFileSizeBytes, LIMITS.maxFileSizeBytes)} bytes`,
  ].filter(Boolean)
  return (
    'Searches file contents line by line for a JavaScript regular expression, in one file or in every file below a folder. ' +
    `Returns { path, matches: [{ file, line, text }], truncated }: at most ${maxResults} matching lines ` +
    `(${perFile} per file) and no more than fit in ${MAX_RESULT_CHARS} characters (truncated: true when some were left out), ` +
    'sorted by file then line, each file named so it can be passed to read_file as is; ' +
    `lines over ${MAX_LINE_CHARS} characters are cut with "…". In folders it skips ${skipped.join(', ')}; symlinks are not followed. ` +
    'Use glob to find files by name.'
  )
}

const settings = pathToolSettings(
  'Search file contents (grep)',
  'Lets the model search the text of files for a regular expression.',
  {
    defaults: {
      maxResults: LIMITS.maxResults.fallback,
      maxMatchesPerFile: LIMITS.maxMatchesPerFile.fallback,
      maxFileSizeBytes: LIMITS.maxFileSizeBytes.fallback,
      ...WALK_SETTING_DEFAULTS,
      timeoutSeconds: TIMEOUT_SECONDS.fallback,
    },
    descriptors: [
      integerParameter(
        'maxResults',
        'Max results',
        'The most matching lines one call returns.',
        LIMITS.maxResults,
      ),
      integerParameter(
        'maxMatchesPerFile',
        'Max matches per file',
        'The most matching lines returned from any one file.',
        LIMITS.maxMatchesPerFile,
      ),
      integerParameter(
        'maxFileSizeBytes',
        'Max file size',
        'Larger files are skipped.',
        LIMITS.maxFileSizeBytes,
        'bytes',
      ),
      ...WALK_SETTING_DESCRIPTORS,
      SEARCH_TIMEOUT_DESCRIPTOR,
    ],
  },
)

export const grepTool: RegisteredTool = defineTool({
  name: 'grep',
  description: descriptionFor({ enabled: true, parameters: settings.defaultParameters }),
  parameters: Parameters,
  buildDefinition: (effective) => ({ ...grepTool.definition, description: descriptionFor(effective) }),
  settings,
  kind: 'read',
  maxResultChars: MAX_RESULT_CHARS,
  describe: (args, context) => describePath(args.path, context, `${args.pattern} in ${args.path}`),
  execute: async (args, context) => {
    const result = await grep(args, context)
    return withDisplay(result, { kind: 'matches', ...result })
  },
})

registerTool(grepTool)
