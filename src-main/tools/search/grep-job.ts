/**
 * A part of a grep call as a search worker runs it: the plan the tool makes on the main thread,
 * and the walk that scans each file of the part with grep-scan.ts.
 */
import { errorMessage } from '../../../src-shared/errors'
import { ToolArgumentError } from '../errors'
import { type PathPolicyData, policyFromData } from '../paths'
import { globMatcher, namesDotEntry, type WalkOptions } from '../walk'
import { compilePattern } from './grep-pattern'
import { FileSearcher, type MatchedLine, type SkipReason } from './grep-scan'
import {
  type JobContext,
  type PartResult,
  type PassedOver,
  passOver,
  type SearchPart,
  walkPart,
} from './search-call'
import type { CachePlan } from './tree-cache'

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

/** A matching line and the file it is in. */
export interface FoundLine extends MatchedLine {
  /** The file's real path: the tool shows it relative to the working folder or absolute. */
  real: string
}

/** The lines found, in walk order, by real path; or why a file named on its own was not searched. */
export type GrepJobResult = PartResult<FoundLine> | { skipped: SkipReason }

/** How often a worker reports how far it got. */
const PROGRESS_MS = 10

/**
 * Matches a file's path below the folder searched. Like ripgrep's -g, a glob without a slash matches
 * names at any depth: *.ts reads as **\/*.ts (Bun.Glob would read it as the folder's own files only).
 * Wildcards match dot names only with includeDotfiles, as in glob, so .hidden/** does not reach
 * into .hidden/.cache unless dotfiles are included.
 */
export function compileFileFilter(glob: string, includeDotfiles: boolean): (relative: string) => boolean {
  // A leading ! (not the extglob !(…)) negates what follows it.
  const negations = /^(?:!(?!\())*/.exec(glob)?.[0] ?? ''
  const body = glob.slice(negations.length)
  const pattern = negations + (body.includes('/') ? body : `**/${body}`)
  try {
    return globMatcher(pattern, { dot: includeDotfiles, posix: true })
  } catch (error) {
    throw new ToolArgumentError(`"${glob}" is not a valid glob: ${errorMessage(error)}`, 'glob')
  }
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
  // Binary files are left out as documented, like ripgrep does; the others could have held a match.
  let passedOver: PassedOver | undefined
  let reportAt = performance.now() + PROGRESS_MS
  const result = await walkPart<FoundLine>(plan.root, options, part, (file, found) => {
    if (filter && !filter(file.relative)) return true
    const summary = cache.summary(file.parent, file.path)
    const lines = searcher.search(file.path, Math.min(maxMatchesPerFile, limit - count), summary)
    filesSearched++
    if (typeof lines !== 'string') {
      for (const line of lines) found.push({ real: file.path, ...line })
      count += lines.length
    } else if (lines !== 'binary') {
      passedOver = passOver(passedOver, file.path, lines)
    }
    if (performance.now() >= reportAt) {
      progress(filesSearched, count)
      reportAt = performance.now() + PROGRESS_MS
    }
    return count < limit
  })
  cache.filesRead += searcher.filesRead
  return passedOver ? { ...result, passedOver } : result
}
