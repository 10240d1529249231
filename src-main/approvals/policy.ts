/**
 * The approval policy: given a described call, the chat's mode and the rules that hold, whether it
 * runs, asks or is refused — and, when it asks, what a person is shown and offered to save.
 *
 * A call is split into subjects: a shell call into its sub-commands (parsed, never string-matched),
 * a file call into its paths, anything else is one subject, its summary (and its host, for a
 * network call's domain rules). Each subject gets the
 * strictest action of the rules that match it (deny > ask > allow), or the mode's default when none
 * does; some facts ask whatever an allow rule says (a redirect to a file, a path outside the folder,
 * a protected path). The call takes the strictest of its subjects.
 */
import { basename, isAbsolute, relative, sep } from 'node:path'
import {
  type ApprovalMode,
  type CommandVerdict,
  joinWords,
  offersOnlyReads,
  type PermissionRule,
  type RuleAction,
  splitWords,
} from '../../src-shared/approvals'
import type { SandboxSettings } from '../../src-shared/sandbox'
import type { ToolCallDescription } from '../../src-shared/tools'
import { protectingPattern, protectionOf } from './protected-paths'
import { hasRiskyOptions } from './risky-options'
import { compileRule, type RuleMatcher } from './rules'
import { parseShellCommand, type ShellSubCommand } from './shell-command'

export interface CallFacts {
  tool: string
  description: ToolCallDescription
  mode: ApprovalMode
  /** The bound folder as a real path, in agent mode; null: nothing confines the chat's calls. */
  folder: string | null
  rules: readonly PermissionRule[]
  /** Folder-relative globs whose edits always ask, unless a rule naming them allows. */
  protectedPaths: readonly string[]
  /** The sandbox settings that bear on asking. */
  sandbox: Pick<SandboxSettings, 'runUnasked' | 'escapeInFullAuto'>
  /**
   * A PreToolUse hook of the person's allowed the call: what only the mode would ask about runs.
   * A deny or ask rule, a protected path, a path outside the folder and leaving the sandbox still
   * decide as they would.
   */
  hookAllows?: boolean
}

export interface Verdict {
  action: RuleAction
  /** Why it asks or is refused, for the person and (on a deny) the model. */
  reasons: string[]
  /** The saved rules that decided it, to mark as used. */
  rulesUsed: string[]
  /** The same rules as written (`bash(git status*)`), for the call's record. */
  rulesWritten: string[]
  /** For shells: each sub-command with its own verdict. */
  commands?: CommandVerdict[]
  /** What "Always allow" would save: one exact-or-prefix rule per subject that did not run. */
  suggestedRules: string[]
}

interface Subject {
  /** How the card shows it. */
  text: string
  matches(rule: RuleMatcher): boolean
  /** Whether, with no rule, the mode lets it run. */
  byDefault: { action: RuleAction; reason?: string }
  /** Facts that make it ask even where a rule or the mode allows. */
  escalations: Escalation[]
  /** The rule "Always allow" offers for it. */
  suggestion: string
}

interface Escalation {
  reason: string
  /** Which allow rule still allows it: one with no wildcard, one with any argument pattern, none. */
  waivedBy?: 'exact-rule' | 'rule-with-pattern'
  /** It asks in Full auto too (protected paths do; the rest is the mode's to waive). */
  holdsInFullAuto?: boolean
}

function waives(escalation: Escalation, rule: RuleMatcher): boolean {
  if (escalation.waivedBy === 'exact-rule') return rule.exact
  if (escalation.waivedBy === 'rule-with-pattern') return !rule.coversAll
  return false
}

const STRICTNESS: Record<RuleAction, number> = { allow: 0, ask: 1, deny: 2 }

function strictest(actions: Iterable<RuleAction>): RuleAction {
  let result: RuleAction = 'allow'
  for (const action of actions) if (STRICTNESS[action] > STRICTNESS[result]) result = action
  return result
}

const MODE_NAMES: Record<ApprovalMode, string> = {
  ask: 'Ask',
  'accept-edits': 'Accept edits',
  'read-only': 'Read only',
  'full-auto': 'Full auto',
  plan: 'Plan',
}

export async function evaluateCall(facts: CallFacts): Promise<Verdict> {
  const rules = facts.rules.flatMap((rule) => {
    const matcher = compileRule(rule.rule)
    return matcher?.tool(facts.tool) ? [{ rule, matcher }] : []
  })
  const { subjects, parseError } = await subjectsOf(facts)
  const run = facts.description.command?.sandbox?.run
  // Confined by the OS, a command can do only what the folder allows: only a rule the person wrote
  // to deny (or ask about) it decides. What the parse, the mode and the protected paths would ask
  // about is the sandbox's to refuse.
  const confinedUnasked =
    run === 'confined' && facts.sandbox.runUnasked && (facts.mode === 'ask' || facts.mode === 'accept-edits')
  const reasons: string[] = []
  const rulesUsed = new Map<string, string>()
  const suggestions: string[] = []
  const commands: CommandVerdict[] = []
  const verdicts: RuleAction[] = []

  if (run === 'network' || run === 'everything') {
    // No rule answers for the person here: leaving the sandbox is asked about call by call.
    if (facts.mode !== 'full-auto' || !facts.sandbox.escapeInFullAuto) {
      verdicts.push('ask')
      const what = run === 'network' ? 'to reach the network' : 'to run outside the sandbox entirely'
      reasons.push(
        `It asks ${what}: ${facts.description.command?.sandbox?.justification ?? '(no reason given)'}`,
      )
    }
  }

  if (parseError && !confinedUnasked) {
    // Unparsed, the command's sub-commands cannot be checked against deny rules: someone decides.
    const rulesCouldRefuse = rules.some(({ rule }) => rule.action !== 'allow')
    if ((facts.mode !== 'full-auto' && !facts.hookAllows) || rulesCouldRefuse) {
      verdicts.push('ask')
      reasons.push(`What the command runs cannot be checked sub-command by sub-command: ${parseError}`)
    }
  }

  for (const subject of subjects) {
    const matched = rules.filter(({ matcher }) => subject.matches(matcher))
    const ruleAction = matched.length > 0 ? strictest(matched.map(({ rule }) => rule.action)) : undefined
    const deciding = matched.filter(({ rule }) => rule.action === ruleAction)
    const subjectReasons: string[] = []
    let action: RuleAction
    if (ruleAction === 'deny' || ruleAction === 'ask') {
      action = ruleAction
      subjectReasons.push(`${ruleAction === 'deny' ? 'Denied' : 'Asks'} by the rule ${quoted(deciding)}.`)
    } else if (confinedUnasked) {
      action = 'allow'
    } else {
      const waivedByHook = !ruleAction && facts.hookAllows && subject.byDefault.action === 'ask'
      action = ruleAction ?? (waivedByHook ? 'allow' : subject.byDefault.action)
      if (!ruleAction && !waivedByHook && subject.byDefault.reason)
        subjectReasons.push(subject.byDefault.reason)
      const held = subject.escalations.filter(
        (escalation) =>
          (facts.mode !== 'full-auto' || escalation.holdsInFullAuto) &&
          !deciding.some(({ matcher }) => waives(escalation, matcher)),
      )
      if (action === 'allow' && held.length > 0) {
        action = 'ask'
        subjectReasons.push(...held.map((escalation) => escalation.reason))
      }
    }
    for (const { rule } of deciding) rulesUsed.set(rule.id, rule.rule)
    const rule = deciding[0]?.rule.rule
    if (facts.description.command) {
      commands.push({ text: subject.text, verdict: action, ...(rule && { rule }), reasons: subjectReasons })
    }
    if (action !== 'allow') {
      reasons.push(
        ...subjectReasons.map((reason) => (subjects.length > 1 ? `${subject.text}: ${reason}` : reason)),
      )
      if (action === 'ask' && !suggestions.includes(subject.suggestion)) suggestions.push(subject.suggestion)
    }
    verdicts.push(action)
  }

  return {
    action: strictest(verdicts),
    reasons,
    rulesUsed: [...rulesUsed.keys()],
    rulesWritten: [...rulesUsed.values()],
    ...(facts.description.command && { commands }),
    suggestedRules: suggestions,
  }
}

function quoted(matched: { rule: PermissionRule }[]): string {
  return matched.map(({ rule }) => `"${rule.rule}"`).join(', ')
}

async function subjectsOf(facts: CallFacts): Promise<{ subjects: Subject[]; parseError?: string }> {
  const { description } = facts
  if (description.command) return commandSubjects(facts, description.command)
  if (description.locations.length > 0) {
    return {
      subjects: await Promise.all(description.locations.map((location) => pathSubject(facts, location))),
    }
  }
  const { host } = description
  return {
    subjects: [
      {
        text: description.summary,
        matches: (rule) => rule.text(description.summary) || (host !== undefined && rule.domain(host)),
        byDefault: defaultFor(facts),
        escalations: [],
        // A network call's "Always allow" is for its host, never for every host the tool may reach.
        suggestion: host === undefined ? facts.tool : `${facts.tool}(domain:${host})`,
      },
    ],
  }
}

/** What the mode does with a call no rule speaks for. */
function defaultFor(facts: CallFacts, insideFolder = false): Subject['byDefault'] {
  const { mode, folder, description } = facts
  const modeName = MODE_NAMES[mode]
  const fileOrShell = description.locations.length > 0 || description.command !== undefined
  if (mode === 'full-auto') return { action: 'allow' }
  if (offersOnlyReads(mode) && description.kind !== 'read') {
    return { action: 'deny', reason: `The chat is in ${modeName} mode: only reading tools run.` }
  }
  if (folder === null && fileOrShell) {
    return {
      action: 'ask',
      reason: 'This chat has no project folder to confine its tools, so every file and shell call asks.',
    }
  }
  switch (description.kind) {
    case 'read':
      return { action: 'allow' }
    case 'edit':
      if (mode === 'accept-edits' && insideFolder) return { action: 'allow' }
      return {
        action: 'ask',
        reason:
          mode === 'accept-edits'
            ? 'Edits outside the project folder ask, even in Accept edits mode.'
            : `Edits ask in ${modeName} mode.`,
      }
    case 'execute':
      return { action: 'ask', reason: `Commands ask in ${modeName} mode.` }
    case 'network':
      return { action: 'ask', reason: `Calls that reach the network ask in ${modeName} mode.` }
    default:
      return { action: 'ask', reason: `Tools that are not reads ask in ${modeName} mode.` }
  }
}

async function pathSubject(facts: CallFacts, location: string): Promise<Subject> {
  const { folder } = facts
  const inside = folder !== null ? insideFolder(folder, location) : undefined
  const shown = inside ?? location
  const escalations: Escalation[] = []
  if (folder !== null && inside !== undefined && facts.description.kind === 'edit') {
    const reason = await protectionOf({ folder, path: location, relative: inside }, facts.protectedPaths)
    if (reason) escalations.push({ reason, waivedBy: 'rule-with-pattern', holdsInFullAuto: true })
  }
  return {
    text: shown,
    matches: (rule) => rule.path(shown),
    byDefault: defaultFor(facts, inside !== undefined),
    escalations,
    suggestion: `${facts.tool}(${shown})`,
  }
}

function commandSubjects(
  facts: CallFacts,
  command: NonNullable<ToolCallDescription['command']>,
): Promise<{ subjects: Subject[]; parseError?: string }> | { subjects: Subject[] } {
  if (command.syntax !== 'posix') {
    // PowerShell is not parsed: the whole line is one command, and only a rule for all of it matches.
    const words = splitWords(command.text)
    return {
      subjects: [
        {
          text: command.text,
          matches: (rule) => rule.command(words),
          byDefault: defaultFor(facts),
          escalations: [],
          suggestion: `${facts.tool}(${joinWords(words)})`,
        },
      ],
    }
  }
  // A line of bare assignments runs nothing: no subjects, nothing to ask about.
  return parseShellCommand(command.text, command.cwd).then(({ commands, error }) => ({
    subjects: commands.map((sub) => commandSubject(facts, sub)),
    ...(error !== undefined && { parseError: error }),
  }))
}

function commandSubject(facts: CallFacts, sub: ShellSubCommand): Subject {
  const words = [...sub.argv, ...sub.redirects.flatMap((redirect) => splitWords(redirect))]
  const escalations: Escalation[] = []
  if (sub.redirects.length > 0) {
    escalations.push({
      reason: `It writes to a file through a redirect (${sub.redirects.join(', ')}).`,
      waivedBy: 'exact-rule',
    })
  }
  if (facts.folder !== null) {
    const outside = sub.paths.filter(
      (path) => path === null || insideFolder(facts.folder as string, path) === undefined,
    )
    if (outside.length > 0) {
      const named = outside.map((path) => path ?? 'a path that depends on a variable').join(', ')
      escalations.push({ reason: `It names a path outside the project folder: ${named}.` })
    }
    if (sub.cwd === null)
      escalations.push({ reason: 'Its working folder is not known (a cd into a variable).' })
  }
  if (sub.riskyOptions.length > 0) {
    const program = basename(sub.argv[0] ?? '')
    escalations.push({
      reason: `${program} can write files or run code through ${sub.riskyOptions.join(', ')}, which a rule for ${program} does not vouch for.`,
      waivedBy: 'exact-rule',
    })
  }
  const protectedWrites = facts.folder === null ? [] : protectedPathsWritten(facts, sub.written)
  if (protectedWrites.length > 0) {
    escalations.push({
      reason: `It writes to a protected path (${protectedWrites.join(', ')}): changing it can run code later. Only an exact rule allows it.`,
      waivedBy: 'exact-rule',
      holdsInFullAuto: true,
    })
  }
  const variables = sub.assignments.filter((name) => !HARMLESS_VARIABLES.test(name))
  if (variables.length > 0) {
    // PATH=. runs ./git for `git status`; LD_PRELOAD, GIT_SSH_COMMAND, NODE_OPTIONS… run code too.
    escalations.push({ reason: `It sets ${variables.join(', ')}, which can change what the command runs.` })
  }
  // A program with options that write or run gets exact rules only: no table of such options is complete.
  const exactOnly = sub.substitution || sub.redirects.length > 0 || hasRiskyOptions(sub.argv[0] ?? '')
  return {
    text: sub.text,
    matches: (rule) => rule.command(words),
    byDefault: defaultFor(facts),
    escalations,
    suggestion: `${facts.tool}(${exactOnly ? joinWords(words) : prefixPattern(sub.argv)})`,
  }
}

/** The protected paths among the files a command writes, with the pattern that protects each. */
function protectedPathsWritten(facts: CallFacts, written: readonly (string | null)[]): string[] {
  return written.flatMap((path) => {
    const inside = path === null ? undefined : insideFolder(facts.folder as string, path)
    const protectedBy = inside === undefined ? undefined : protectingPattern(inside, facts.protectedPaths)
    return protectedBy ? [`${inside}, by ${protectedBy}`] : []
  })
}

/**
 * The words that name what a command does — `cargo test`, `yarn run test` — followed by ` *`, so the
 * saved rule covers that action with any arguments and nothing else. An unknown program is saved
 * exactly as written.
 */
function prefixPattern(argv: readonly string[]): string {
  const [program = '', first] = argv
  const arity = first === 'run' && RUNNERS.has(program) ? 3 : ARITY[program]
  if (arity === undefined || argv.length < arity) return joinWords(argv)
  return `${joinWords(argv.slice(0, arity))} *`
}

/** Variables that change how a program reports, never which code it runs. */
const HARMLESS_VARIABLES =
  /^(NODE_ENV|CI|DEBUG|FORCE_COLOR|NO_COLOR|TERM|COLUMNS|LINES|TZ|LANG|LANGUAGE|LC_\w+|RUST_LOG|RUST_BACKTRACE|LOG_LEVEL|VERBOSE|PYTHONUNBUFFERED|PYTHONDONTWRITEBYTECODE|NODE_NO_WARNINGS|GOOS|GOARCH|CGO_ENABLED)$/

const RUNNERS = new Set(['pnpm', 'yarn', 'bun'])
const ARITY: Record<string, number> = {
  pnpm: 2,
  yarn: 2,
  bun: 2,
  npx: 2,
  cargo: 2,
  go: 2,
  docker: 2,
  kubectl: 3,
  gh: 3,
  pip: 2,
  uv: 2,
  make: 2,
  dotnet: 2,
  mvn: 2,
  gradle: 2,
}

/** The path relative to the folder, `/`-separated, when it is inside; undefined when it is not. */
function insideFolder(folder: string, path: string): string | undefined {
  const rel = relative(folder, path)
  if (rel === '') return '.'
  if (rel.startsWith('..') || isAbsolute(rel)) return undefined
  return rel.split(sep).join('/')
}
