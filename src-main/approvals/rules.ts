/**
 * Rules in their written form — `bash(git status*)`, `edit_file(src/**)`, `everything__*`,
 * `web_fetch(domain:*.mozilla.org)` — turned into matchers. A tool pattern is a name with `*`
 * wildcards. What the argument pattern is matched against depends on the call: a shell's
 * sub-commands word by word, a file tool's paths as globs, a network call's host when the pattern
 * starts with `domain:`, anything else its one-line summary.
 */
import picomatch from 'picomatch'
import { type ParsedRule, parseRule, splitWords } from '../../src-shared/approvals'
import { AtelierError } from '../../src-shared/errors'

export interface RuleMatcher {
  /** The tool pattern matches this tool's name. */
  tool(name: string): boolean
  /** No argument pattern: the rule covers every call of the tool. */
  readonly coversAll: boolean
  /** The argument pattern has no wildcard: it names one command, one path, one summary. */
  readonly exact: boolean
  /** A sub-command's words (its redirects appended as words) match. */
  command(words: readonly string[]): boolean
  /** A path, relative to the folder when inside it, matches as a glob. */
  path(path: string): boolean
  text(summary: string): boolean
  /**
   * A `domain:` rule's host pattern matches the host a network call reaches: `docs.python.org`
   * that host only, `*.mozilla.org` any name below mozilla.org (not mozilla.org itself).
   */
  domain(host: string): boolean
}

/** The argument prefix that makes a rule a domain rule. */
const DOMAIN_PREFIX = 'domain:'

const cache = new Map<string, RuleMatcher | undefined>()

/** The matcher for a rule's text, or undefined when it is not a rule. Compiled once per text. */
export function compileRule(text: string): RuleMatcher | undefined {
  if (cache.has(text)) return cache.get(text)
  const parsed = parseRule(text)
  const matcher = parsed && buildMatcher(parsed)
  if (cache.size > 2000) cache.clear()
  cache.set(text, matcher)
  return matcher
}

/** The rule's text as it will be stored, or an `invalid_rule` error saying what is wrong. */
export function assertRule(text: string): string {
  const trimmed = text.trim()
  if (!compileRule(trimmed)) {
    throw new AtelierError(
      'invalid_rule',
      `"${text}" is not a rule. Write a tool name, or a tool name with an argument pattern: bash(git status*), edit_file(src/**), everything__*.`,
      { rule: text },
    )
  }
  return trimmed
}

function buildMatcher({ tool, argument }: ParsedRule): RuleMatcher {
  const toolPattern = wildcard(tool)
  const always = () => true
  if (argument === undefined) {
    return {
      tool: (name) => toolPattern.test(name),
      coversAll: true,
      exact: false,
      command: always,
      path: always,
      text: always,
      domain: always,
    }
  }
  if (argument.startsWith(DOMAIN_PREFIX)) {
    // A domain rule speaks of hosts only: no command, path or summary is a host.
    const hostPattern = wildcard(argument.slice(DOMAIN_PREFIX.length).trim().toLowerCase())
    const never = () => false
    return {
      tool: (name) => toolPattern.test(name),
      coversAll: false,
      exact: !argument.includes('*') && !argument.includes('?'),
      command: never,
      path: never,
      text: never,
      domain: (host) => hostPattern.test(host.toLowerCase()),
    }
  }
  const commandPattern = commandRegex(splitWords(argument))
  const pathPattern = picomatch(argument, { dot: true })
  const textPattern = wildcard(argument)
  return {
    tool: (name) => toolPattern.test(name),
    coversAll: false,
    exact: !argument.includes('*') && !argument.includes('?'),
    command: (words) => commandPattern.test(words.join(SEPARATOR)),
    path: (path) => pathPattern(path),
    text: (summary) => textPattern.test(summary),
    domain: () => false,
  }
}

/** Words are joined with a character no word holds, so a pattern's space is a word boundary. */
const SEPARATOR = '\u0000'

/**
 * A command pattern as a regex over words: a literal space is a word boundary (`git *` does not
 * match `git-lfs`), and `*` matches anything, `/` and further words included. A trailing ` *` also
 * matches nothing at all, so `git *` covers a bare `git`.
 */
function commandRegex(words: string[]): RegExp {
  const last = words.length - 1
  const body = words
    .map((word, index) => {
      const pattern = globBody(word)
      if (index === 0) return pattern
      return index === last && word === '*' ? `(?:${SEPARATOR}[^]*)?` : SEPARATOR + pattern
    })
    .join('')
  return new RegExp(`^${body}$`)
}

function wildcard(pattern: string): RegExp {
  return new RegExp(`^${globBody(pattern)}$`, 's')
}

function globBody(pattern: string): string {
  return pattern
    .split('*')
    .map((piece) => piece.replace(/[\\^$.|?+()[\]{}]/g, '\\$&'))
    .join('[^]*')
}
