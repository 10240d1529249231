import { statSync } from 'node:fs'
import { posix, resolve } from 'node:path'
import { type Static, Type } from '@sinclair/typebox'
import picomatch from 'picomatch'
import { errorMessage } from '../../../src-shared/errors'
import { defineTool } from '../define-tool'
import { ToolArgumentError, ToolPathError } from '../errors'
import {
  baseDirectory,
  describePath,
  loadPathPolicy,
  pathToolSettings,
  policyData,
  resolveAndValidatePath,
} from '../paths'
import { withDisplay } from '../pipeline/shape'
import { registerTool } from '../registry'
import { DEFAULT_MAX_RESULT_CHARS } from '../result-limits'
import type { GlobPlan } from '../search/glob-job'
import { cachePlan, searchInParts } from '../search/search-call'
import { SEARCH_TIMEOUT_DESCRIPTOR } from '../search/worker-pool'
import { clampIntegerSetting, integerParameter, TIMEOUT_SECONDS } from '../settings-policy'
import type { EffectiveToolSettings, RegisteredTool, ToolContext } from '../types'
import {
  fitMatches,
  namesDotEntry,
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
        'Glob matched against paths relative to cwd: * (any characters except /), ** (any number of folders), ' +
        '? (one character), [abc] and [!abc], {a,b}; dir/** matches what is inside dir, not dir itself; ' +
        'a trailing / matches folders only; a leading ! lists every path the rest does not match ' +
        '(!**/*.test.ts: everything but tests). Examples: **/*.ts, src/**/*.{ts,tsx}, *.md.',
    }),
    cwd: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Folder to search from: absolute, ~-prefixed, or relative to the working folder. Default: the working folder.',
      }),
    ),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

const MAX_RESULTS = { min: 1, max: 5000, fallback: 200 }
/** The cap on what reaches the model (longer results are cut); glob lists only the paths that fit under it. */
const MAX_RESULT_CHARS = DEFAULT_MAX_RESULT_CHARS

export interface GlobResult {
  /** The cwd argument as given, or the folder searched when it was omitted. */
  cwd: string
  /** Sorted; relative to the working folder in agent mode, else absolute. */
  matches: string[]
  /** More paths matched than maxResults allows, or than fit in MAX_RESULT_CHARS. */
  truncated: boolean
}

async function glob(args: Parameters, context: ToolContext): Promise<GlobResult> {
  const { parameters } = context.settings
  const maxResults = clampIntegerSetting(parameters.maxResults, MAX_RESULTS)
  const { includeDotfiles, respectGitignore, cacheMiB } = walkSettings(parameters)
  // A trailing slash asks for folders only, as in a shell.
  const foldersOnly = args.pattern.length > 1 && args.pattern.endsWith('/')
  const pattern = foldersOnly ? args.pattern.replace(/\/+$/, '') || '/' : args.pattern
  try {
    // posix: [!a] negates a class, as in every shell; without it picomatch reads the ! literally.
    // Compiled here to refuse a bad pattern before any walk; the worker compiles it again.
    picomatch(insideOnly(pattern), { dot: includeDotfiles, posix: true })
  } catch (error) {
    throw new ToolArgumentError(`"${args.pattern}" is not a valid glob: ${errorMessage(error)}`, 'pattern')
  }
  const policy = await loadPathPolicy(context)
  const cwd = await resolveSearchPath(args.cwd ?? baseDirectory(context), context, policy)
  if (!cwd.isDirectory) {
    throw new ToolPathError('invalid_path', `cwd "${args.cwd}" is a file; give the folder to search from.`)
  }
  const result = { cwd: args.cwd ?? cwd.real, matches: [] as string[], truncated: false }

  const { start, maxDepth } = walkPlan(pattern)
  const root = start
    ? await resolveAndValidatePath(resolve(cwd.real, start), context, policy)
    : { real: cwd.real, exists: true }
  if (!root.exists || !statSync(root.real, { throwIfNoEntry: false })?.isDirectory()) return result
  const prefix = start === '' || start.endsWith('/') ? start : `${start}/`
  const plan: GlobPlan = {
    root: root.real,
    pattern: insideOnly(pattern),
    dot: includeDotfiles,
    foldersOnly,
    prefix,
    includeDotfiles: includeDotfiles || namesDotEntry(pattern),
    respectGitignore,
    maxDepth,
    maxResults,
    policy: policyData(policy),
    cache: cachePlan(root.real, baseDirectory(context), cacheMiB),
  }
  // One past maxResults is looked for, so truncated is only set when there were more.
  const { found } = await searchInParts<string>('glob', plan, {
    signal: context.signal,
    limit: maxResults + 1,
  })
  result.truncated = found.length > maxResults
  const absolute = parameters.absolute === true
  result.matches = found
    .slice(0, maxResults)
    .map((real) => (absolute ? real : policy.display(real)))
    .sort(byCodeUnit)
  return fitMatches(result, MAX_RESULT_CHARS)
}

/**
 * src/** as Bun.Glob reads it: what is inside src, not src itself (picomatch also matches src). So
 * a trailing /** becomes /**\/*, which needs one more name; its negation !src/** then keeps src.
 */
function insideOnly(pattern: string): string {
  return pattern.replace(/\/\*\*(?=$|[,|)}])/g, '/**/*')
}

/**
 * Where a pattern can match, so the walk can skip the rest: the literal folder it starts with
 * (src for src/**\/*.ts) and how deep below it a match can lie. A negated pattern matches anywhere.
 */
function walkPlan(pattern: string): { start: string; maxDepth: number } {
  const scan = picomatch.scan(pattern, { unescape: true })
  if (scan.negated) return { start: '', maxDepth: Number.POSITIVE_INFINITY }
  if (!scan.isGlob) {
    const folder = posix.dirname(scan.base)
    return { start: folder === '.' ? '' : folder, maxDepth: 0 }
  }
  const unbounded = scan.glob.includes('**') || scan.isExtglob
  return { start: scan.base, maxDepth: unbounded ? Number.POSITIVE_INFINITY : slashes(scan.glob) }
}

/** An upper bound on a match's depth: every brace alternative's slashes are counted too. */
function slashes(text: string): number {
  let count = 0
  for (const char of text) if (char === '/') count++
  return count
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function descriptionFor(settings: EffectiveToolSettings): string {
  const { includeDotfiles, respectGitignore } = walkSettings(settings.parameters)
  const maxResults = clampIntegerSetting(settings.parameters.maxResults, MAX_RESULTS)
  const skipped = [
    respectGitignore && 'files and folders excluded by .gitignore (e.g. node_modules)',
    !includeDotfiles && 'dotfiles and dot-folders',
  ].filter(Boolean)
  return (
    'Finds files and folders whose path matches a glob pattern, under cwd (default: the working folder). ' +
    'Returns { cwd, matches, truncated }: matches sorted, relative to the working folder (absolute outside it), ' +
    `ready to pass to other tools; at most ${maxResults} (and no more than fit in ${MAX_RESULT_CHARS} characters), ` +
    'with truncated: true when there were more. ' +
    (skipped.length ? `Skipped: ${skipped.join('; ')}. ` : '') +
    'Symlinked folders are listed but not entered, unless a pattern names one (lib-link/*): what is in it ' +
    'is then listed by its real path. Use grep to search file contents.'
  )
}

const settings = pathToolSettings(
  'Find files (glob)',
  'Lets the model find files and folders by name pattern, such as **/*.ts.',
  {
    defaults: {
      maxResults: MAX_RESULTS.fallback,
      ...WALK_SETTING_DEFAULTS,
      absolute: false,
      timeoutSeconds: TIMEOUT_SECONDS.fallback,
    },
    descriptors: [
      integerParameter('maxResults', 'Max results', 'The most paths one call returns.', MAX_RESULTS),
      ...WALK_SETTING_DESCRIPTORS,
      {
        name: 'absolute',
        type: 'boolean',
        label: 'Absolute paths',
        description: 'Return absolute paths instead of paths relative to the chat’s folder.',
      },
      SEARCH_TIMEOUT_DESCRIPTOR,
    ],
  },
)

export const globTool: RegisteredTool = defineTool({
  name: 'glob',
  description: descriptionFor({ enabled: true, parameters: settings.defaultParameters }),
  parameters: Parameters,
  buildDefinition: (effective) => ({ ...globTool.definition, description: descriptionFor(effective) }),
  settings,
  kind: 'read',
  maxResultChars: MAX_RESULT_CHARS,
  describe: (args, context) =>
    describePath(args.cwd ?? '.', context, args.cwd ? `${args.pattern} in ${args.cwd}` : args.pattern),
  execute: async (args, context) => {
    const result = await glob(args, context)
    // A trailing slash asked for folders only; otherwise files and folders are not told apart.
    const folder = args.pattern.length > 1 && args.pattern.endsWith('/') ? { folder: true } : {}
    const entries = result.matches.map((path) => ({ path, ...folder }))
    return withDisplay(result, { kind: 'paths', root: result.cwd, entries, truncated: result.truncated })
  },
})

registerTool(globTool)
