import { type Static, Type } from '@sinclair/typebox'
import { defineTool } from '../define-tool'
import { ToolError, type ToolErrorType } from '../errors'
import { BINARY_PROBE_BYTES } from '../files'
import { baseDirectory, describePath, loadPathPolicy, pathToolSettings, policyData } from '../paths'
import { withDisplay } from '../pipeline/shape'
import { registerTool } from '../registry'
import { DEFAULT_MAX_RESULT_CHARS } from '../result-limits'
import { compileFileFilter, type FoundLine, type GrepJobResult, type GrepPlan } from '../search/grep-job'
import { compilePattern } from '../search/grep-pattern'
import { MAX_LINE_CHARS, type SkipReason } from '../search/grep-scan'
import { cachePlan, type PassedOver, searchInParts } from '../search/search-call'
import { SEARCH_TIMEOUT_DESCRIPTOR, searchPool } from '../search/worker-pool'
import { clampIntegerSetting, integerParameter, TIMEOUT_SECONDS } from '../settings-policy'
import type { EffectiveToolSettings, RegisteredTool, ToolContext } from '../types'
import {
  fitMatches,
  resolveSearchPath,
  WALK_SETTING_DEFAULTS,
  WALK_SETTING_DESCRIPTORS,
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
  /** Files of the folder that were not searched (binary ones aside); absent when there were none. */
  skipped?: SkippedFiles
}

/** Why a file of the folder was not searched, as the model reads it. */
export type SkippedReason = Exclude<SkipReason, 'binary'>

/** Files a folder search came to and did not search: all counted, the first few named. */
export interface SkippedFiles {
  count: number
  /** How many for each reason. */
  reasons: Partial<Record<SkippedReason, number>>
  /** The first few, in walk order, named like matches[].file. */
  files: { file: string; reason: SkippedReason }[]
}

function skippedFiles(passed: PassedOver, display: (real: string) => string): SkippedFiles {
  const reasons = passed.counts as Partial<Record<SkippedReason, number>>
  return {
    count: Object.values(reasons).reduce((sum, count) => sum + (count ?? 0), 0),
    reasons,
    files: passed.first.map(({ real, reason }) => ({ file: display(real), reason: reason as SkippedReason })),
  }
}

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
  const { found, passedOver } = target.isDirectory
    ? await searchInParts<FoundLine>('grep', plan, {
        signal: context.signal,
        limit: maxResults + 1,
        onProgress,
      })
    : { found: await grepOneFile(plan, context.signal, policy.display(target.real)), passedOver: undefined }
  const truncated = found.length > maxResults
  const matches = found
    .slice(0, maxResults)
    .map(({ real, line, text }) => ({ file: policy.display(real), line, text }))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line))
  const skipped = passedOver && skippedFiles(passedOver, (real) => policy.display(real))
  return fitMatches({ path: args.path, matches, truncated, ...(skipped && { skipped }) }, MAX_RESULT_CHARS)
}

/** A file named on its own: one part, in a worker. */
async function grepOneFile(plan: GrepPlan, signal: AbortSignal, shown: string): Promise<FoundLine[]> {
  const result = await searchPool().run<GrepJobResult>('grep', plan, { subtrees: [] }, { signal })
  if ('skipped' in result) throw notSearched(shown, result.skipped, plan.maxFileSizeBytes)
  return result.pieces.flatMap((piece) => ('found' in piece ? piece.found : []))
}

/**
 * A file named on its own is reported when it cannot be searched: an empty result would read as "no
 * match". The types follow read_file's for the same refusals.
 */
function notSearched(file: string, why: SkipReason, maxFileSizeBytes: number): ToolError {
  const reasons: Record<SkipReason, [ToolErrorType, string]> = {
    binary: [
      'validation_failed',
      `it looks binary (a NUL byte in its first ${BINARY_PROBE_BYTES / 1024} KiB); read_file with view "hex" or "base64" shows its bytes`,
    ],
    too_large: [
      'validation_failed',
      `it is larger than grep's maxFileSizeBytes setting (${maxFileSizeBytes} bytes); read_file reads it in windows (startLine, maxLines)`,
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
    `Returns { path, matches: [{ file, line, text }], truncated, skipped? }: at most ${maxResults} matching lines ` +
    `(${perFile} per file) and no more than fit in ${MAX_RESULT_CHARS} characters (truncated: true when some were left out), ` +
    'sorted by file then line, each file named so it can be passed to read_file as is; ' +
    `lines over ${MAX_LINE_CHARS} characters are cut with "…". In folders it skips ${skipped.join(', ')}; symlinks are not followed. ` +
    'skipped, when present, counts the files of the folder it did not search and why (too_large: over the size limit, ' +
    'which read_file can read in windows; unreadable; moved) and names the first few: they may hold matches. ' +
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
