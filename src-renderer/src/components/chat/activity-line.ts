/**
 * A tool call said in one line, as a person would say it: the verb, the argument that matters and
 * how it came out — `Read src/a.ts · 48 lines`, `Searched "TODO" · 3 matches in 2 files`.
 */
import { countedProgressText } from '../../../../src-shared/progress'
import type { ToolCallState } from '../../../../src-shared/tool-calls'
import type { ShellChunk, ToolResultView } from './conversation'
import { resultSize } from './ToolResultBody'
import { classifyDiffLine, headline, parseJson } from './tool-display'

/**
 * A built-in tool's verb — once done, while under way, and otherwise (queued, asking, failed: what
 * it is to do) — and the argument its line names.
 */
interface BuiltinWords {
  done: string
  busy: string
  plain: string
  argument: string
  /** How the argument reads in the line (grep's pattern in quotes); as it is by default. */
  quote?: boolean
}

const BUILTIN_WORDS: Record<string, BuiltinWords> = {
  read_file: { done: 'Read', busy: 'Reading', plain: 'Read', argument: 'path' },
  write_file: { done: 'Wrote', busy: 'Writing', plain: 'Write', argument: 'path' },
  edit_file: { done: 'Edited', busy: 'Editing', plain: 'Edit', argument: 'path' },
  grep: { done: 'Searched', busy: 'Searching', plain: 'Search', argument: 'pattern', quote: true },
  glob: { done: 'Found', busy: 'Finding', plain: 'Find', argument: 'pattern' },
  list_directory: { done: 'Listed', busy: 'Listing', plain: 'List', argument: 'path' },
  bash: { done: 'Ran', busy: 'Running', plain: 'Run', argument: 'command' },
  generate_image: {
    done: 'Generated',
    busy: 'Generating',
    plain: 'Generate',
    argument: 'prompt',
    quote: true,
  },
  update_plan: {
    done: 'Updated the plan',
    busy: 'Updating the plan',
    plain: 'Update the plan',
    argument: 'explanation',
  },
  propose_plan: {
    done: 'Proposed a plan',
    busy: 'Proposing a plan',
    plain: 'Propose a plan',
    argument: 'plan',
  },
  web_fetch: { done: 'Fetched', busy: 'Fetching', plain: 'Fetch', argument: 'url' },
  task: { done: 'Delegated', busy: 'Delegating', plain: 'Delegate', argument: 'description' },
  get_current_datetime: {
    done: 'Checked the time',
    busy: 'Checking the time',
    plain: 'Check the time',
    argument: 'timezone',
  },
}

/** An outcome's text this long or shorter is said in the line as it is; longer ones by their size. */
const SHORT_OUTCOME = 60

export interface ActivityLine {
  /** The verb (a built-in's), else the tool's title. */
  verb: string
  /** The argument that matters, on one line; absent when the call has none (yet). */
  subject?: string
  /** How it came out, or how far along it is. */
  outcome?: string
}

/** Whether `name` is one of Atelier's own tools, which the line names by a verb rather than a title. */
export function isBuiltinTool(name: string): boolean {
  return name in BUILTIN_WORDS
}

function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim()) ?? '').trim()
}

function argumentsOf(text: string): Record<string, unknown> {
  const value = parseJson(text)
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {}
}

function subjectOf(name: string, argumentsText: string): string | undefined {
  const words = BUILTIN_WORDS[name]
  if (!words) return headline(argumentsText)
  const value = argumentsOf(argumentsText)[words.argument]
  const line = typeof value === 'string' ? firstLine(value) : ''
  // A listing of the chat's folder names it as a person would, not as `.`.
  if (name === 'list_directory' && (line === '' || line === '.')) return 'the folder'
  if (line === '') return undefined
  return words.quote ? `"${line}"` : line
}

/** "+3 −1": the lines a patch adds and removes. */
export function diffStat(patch: string): string {
  let added = 0
  let removed = 0
  for (const line of patch.split('\n')) {
    const kind = classifyDiffLine(line)
    if (kind === 'added') added += 1
    else if (kind === 'removed') removed += 1
  }
  return `+${added} −${removed}`
}

function shellOutcome(display: Extract<NonNullable<ToolResultView['display']>, { kind: 'shell' }>): string {
  switch (display.termination) {
    case 'signalled':
      return `killed by ${display.signal ?? 'a signal'}`
    case 'aborted':
      return 'stopped'
    case 'timed_out':
      return 'timed out'
    default:
      return `exit ${display.exitCode ?? 'none'}`
  }
}

/** What a finished call's line says of its result. */
function resultOutcome(name: string, result: ToolResultView): string {
  const display = result.display
  if (result.isError) return firstLine(result.content)
  if (display?.kind === 'diff') return diffStat(display.patch)
  if (display?.kind === 'shell') return shellOutcome(display)
  if (display?.kind === 'images')
    return `${display.images.length} ${display.images.length === 1 ? 'image' : 'images'}`
  if (display?.kind === 'plan') {
    const done = display.steps.filter((step) => step.status === 'completed').length
    return `${done} of ${display.steps.length} done`
  }
  if (display?.kind === 'proposed-plan') return display.approvedMode ? 'approved' : 'not approved'
  if (
    display?.kind === 'file' ||
    display?.kind === 'matches' ||
    display?.kind === 'paths' ||
    display?.kind === 'web-page'
  )
    return resultSize(result, name)
  const text = result.content.trim()
  return text.length <= SHORT_OUTCOME && !text.includes('\n') ? text : resultSize(result, name)
}

/** How far a running call has come: its counted progress, its partial result, else the last line it wrote. */
function progressOutcome(
  state: ToolCallState | undefined,
  output: ShellChunk[] | undefined,
): string | undefined {
  const counted = state?.progress?.counted
  if (counted) return countedProgressText(counted)
  const partial = state?.progress?.partial
  if (partial) return firstLine(partial.text)
  const written = output?.map((chunk) => chunk.text).join('') ?? ''
  const last = written.split('\n').findLast((line) => line.trim())
  return last?.trim()
}

function verbOf(words: BuiltinWords, state: ToolCallState | undefined): string {
  if (state?.status === 'succeeded') return words.done
  if (!state || state.status === 'validating' || state.status === 'executing') return words.busy
  return words.plain
}

/** The call's line: what it does to what, and how it came out (or how far along it is). */
export function activityLine(
  name: string,
  argumentsText: string,
  state: ToolCallState | undefined,
  output: ShellChunk[] | undefined,
): ActivityLine {
  const words = BUILTIN_WORDS[name]
  const result = state?.result
  const verb = words ? verbOf(words, state) : (state?.title ?? name)
  const subject = subjectOf(name, argumentsText)
  const outcome = result ? resultOutcome(name, result) : progressOutcome(state, output)
  return { verb, ...(subject !== undefined && { subject }), ...(outcome && { outcome }) }
}
