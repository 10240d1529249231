/**
 * A part of a glob call as a search worker runs it: the plan the tool makes on the main thread, and
 * the walk that keeps the entries whose path matches.
 */
import { type PathPolicyData, policyFromData } from '../paths'
import { globMatcher, type WalkOptions } from '../walk'
import { type JobContext, type PartResult, type SearchPart, walkPart } from './search-call'
import type { CachePlan } from './tree-cache'

/** A glob call as a worker runs it: plain data, planned on the main thread. */
export interface GlobPlan {
  /** The folder walked: real, and accepted by the policy. */
  root: string
  /** The picomatch pattern, matched against `prefix` + each entry's path below `root`. */
  pattern: string
  /** Whether wildcards match dot names. */
  dot: boolean
  foldersOnly: boolean
  prefix: string
  /** Whether the walk lists dot entries (the matcher still decides). */
  includeDotfiles: boolean
  respectGitignore: boolean
  maxDepth: number
  maxResults: number
  policy: PathPolicyData
  cache: CachePlan | undefined
}

/** A part of a glob call, in a search worker: the real paths matched, in walk order. */
export function globJob(
  plan: GlobPlan,
  part: SearchPart,
  { cache, signal }: JobContext,
): Promise<PartResult<string>> {
  const isMatch = globMatcher(plan.pattern, { dot: plan.dot, posix: true })
  const options: WalkOptions = {
    includeDotfiles: plan.includeDotfiles,
    respectGitignore: plan.respectGitignore,
    maxDepth: plan.maxDepth,
    policy: policyFromData(plan.policy),
    signal,
    folders: cache.source(plan.cache, false),
    ...lastNameTest(plan.pattern),
  }
  let count = 0
  return walkPart<string>(plan.root, options, part, (entry, found) => {
    if ((plan.foldersOnly && !entry.isDirectory) || !isMatch(plan.prefix + entry.relative)) return true
    found.push(entry.path)
    return ++count <= plan.maxResults
  })
}

/**
 * What a matching name must be, read off the pattern's last part when it is plain (`package.json`)
 * or a star and plain text (`*.d.ts`): a test that lets the walk skip the other names. None for
 * anything else (classes, braces, extglobs, a leading `!`, `**`): the matcher alone decides.
 */
function lastNameTest(pattern: string): Pick<WalkOptions, 'nameCanMatch'> {
  const last = pattern.slice(pattern.lastIndexOf('/') + 1)
  if (pattern.startsWith('!') || last === '' || /[?[\]{}()!+@\\]/.test(last)) return {}
  const star = last.indexOf('*')
  if (star === -1) return { nameCanMatch: (name) => name === last }
  if (star !== 0 || last.indexOf('*', 1) !== -1 || last.length === 1) return {}
  const suffix = last.slice(1)
  return { nameCanMatch: (name) => name.endsWith(suffix) }
}
