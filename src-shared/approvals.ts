/**
 * Approvals as every layer sees them: the modes a chat runs in, the rules a person saves, what an
 * approval card shows and what a person answers. The policy itself lives in `src-main/approvals/`.
 */
import { type Static, Type } from '@sinclair/typebox'
import { ToolCallDescription, ToolDisplay } from './tools'

/**
 * `ask`: reads run, edits and commands ask. `accept-edits`: edits inside the bound folder run too.
 * `read-only`: only read tools are offered. `full-auto`: nothing asks, but deny rules and protected
 * paths still hold. `plan`: only read tools are offered, and `propose_plan`, which the person
 * approves before anything is changed (see plans.ts).
 */
export const APPROVAL_MODES = ['ask', 'accept-edits', 'read-only', 'full-auto', 'plan'] as const
export const ApprovalMode = Type.Union(APPROVAL_MODES.map((mode) => Type.Literal(mode)))
export type ApprovalMode = (typeof APPROVAL_MODES)[number]
export const DEFAULT_APPROVAL_MODE: ApprovalMode = 'ask'

/** Modes that offer (and run) only reading tools: Read only, and Plan until a plan is approved. */
export function offersOnlyReads(mode: ApprovalMode): boolean {
  return mode === 'read-only' || mode === 'plan'
}

export const RULE_ACTIONS = ['allow', 'ask', 'deny'] as const
export const RuleAction = Type.Union(RULE_ACTIONS.map((action) => Type.Literal(action)))
export type RuleAction = (typeof RULE_ACTIONS)[number]

/** Where a saved rule holds. ("This call" is Allow once: nothing is saved.) */
export const RULE_SCOPES = ['chat', 'project', 'global'] as const
export const RuleScope = Type.Union(RULE_SCOPES.map((scope) => Type.Literal(scope)))
export type RuleScope = (typeof RULE_SCOPES)[number]

/** Who made a rule: a person answering a card, the settings panel, the CLI. */
export const RuleSource = Type.Union([
  Type.Literal('approval'),
  Type.Literal('settings'),
  Type.Literal('cli'),
])
export type RuleSource = Static<typeof RuleSource>

/** The written form of a rule: `bash(git status*)`, `edit_file(src/**)`, `everything__*`. */
export const RuleText = Type.String({ minLength: 1, maxLength: 2000, pattern: '\\S' })

export const PermissionRule = Type.Object({
  id: Type.String(),
  rule: Type.String(),
  action: RuleAction,
  scope: RuleScope,
  /** The chat a `chat` rule holds in. */
  chatId: Type.Union([Type.String(), Type.Null()]),
  /** The project folder a `project` rule holds in. */
  folder: Type.Union([Type.String(), Type.Null()]),
  source: RuleSource,
  createdAt: Type.Number(),
  lastUsedAt: Type.Union([Type.Number(), Type.Null()]),
})
export type PermissionRule = Static<typeof PermissionRule>

/** One sub-command of a shell call, as the parser found it and the policy judged it. */
export const CommandVerdict = Type.Object({
  /** The sub-command as written. */
  text: Type.String(),
  verdict: RuleAction,
  /** The saved rule that decided it; absent when the mode's default did. */
  rule: Type.Optional(Type.String()),
  /** Why it asks or is denied, in words for the person. */
  reasons: Type.Array(Type.String()),
})
export type CommandVerdict = Static<typeof CommandVerdict>

/** A change a custom tool proposes (`api.pushPendingAction`): the card offers Apply and Discard only. */
export const PendingActionView = Type.Object({
  label: Type.String(),
  detail: Type.Optional(Type.String()),
  preview: Type.Optional(Type.String()),
})
export type PendingActionView = Static<typeof PendingActionView>

/** The subagent a question comes from (a call of a `task`'s child turn): its card says so. */
export const QuestionAsker = Type.Object({
  /** The agent profile it runs on. */
  agent: Type.String(),
  /** What it was asked to do, as the `task` call described it. */
  description: Type.String(),
})
export type QuestionAsker = Static<typeof QuestionAsker>

/** What every question to the person names: itself, its chat, and the call it belongs to. */
export const QuestionBase = {
  id: Type.String(),
  chatId: Type.String(),
  callId: Type.String(),
  tool: Type.String(),
  /** Set when a subagent asks: the question waits in its parent chat's line, labelled with it. */
  subagent: Type.Optional(QuestionAsker),
}

/** May this call run? What the policy found, for the person to decide: what it does and why it asks. */
export const ApprovalRequest = Type.Object({
  kind: Type.Literal('approval'),
  ...QuestionBase,
  description: ToolCallDescription,
  reasons: Type.Array(Type.String()),
  /** For edits, the diff that would be applied, computed before anything is written. */
  preview: Type.Optional(ToolDisplay),
  /** For shells, every sub-command with its verdict. */
  commands: Type.Optional(Type.Array(CommandVerdict)),
  /** What "Always allow" would save: one rule per sub-command, never broader than shown. */
  suggestedRules: Type.Array(Type.String()),
  /** Whether the chat has a project folder, so "Always allow" can be kept to it. */
  folder: Type.Union([Type.String(), Type.Null()]),
})
export type ApprovalRequest = Static<typeof ApprovalRequest>

/** May a tool apply the change it proposes? Answered Apply (`allow-once`) or Discard (`deny`). */
export const ConfirmationRequest = Type.Object({
  kind: Type.Literal('confirmation'),
  ...QuestionBase,
  action: PendingActionView,
})
export type ConfirmationRequest = Static<typeof ConfirmationRequest>

/** A person's answer to an approval; a confirmation takes `allow-once` (Apply) or `deny` (Discard). */
export const ApprovalAnswer = Type.Union([
  Type.Object({ decision: Type.Literal('allow-once') }, { additionalProperties: false }),
  Type.Object({ decision: Type.Literal('allow-chat') }, { additionalProperties: false }),
  Type.Object(
    {
      decision: Type.Literal('always'),
      rules: Type.Array(RuleText, { minItems: 1, maxItems: 50 }),
      scope: Type.Union([Type.Literal('project'), Type.Literal('global')]),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { decision: Type.Literal('deny'), message: Type.Optional(Type.String({ maxLength: 10_000 })) },
    { additionalProperties: false },
  ),
])
export type ApprovalAnswer = Static<typeof ApprovalAnswer>

/** A rule's written form, split: the tool pattern and, when given, the argument pattern. */
export interface ParsedRule {
  tool: string
  argument?: string
}

/** `tool` or `tool(argument)`; undefined when the text is not a rule. */
export function parseRule(text: string): ParsedRule | undefined {
  const match = /^\s*([A-Za-z0-9_.*-]+)\s*(?:\((.*)\))?\s*$/s.exec(text)
  if (!match?.[1]) return undefined
  const argument = match[2]?.trim()
  return argument ? { tool: match[1], argument } : { tool: match[1] }
}

/** Splits an argument pattern into words as a shell would: quotes group, a backslash escapes. */
export function splitWords(text: string): string[] {
  const words: string[] = []
  let word: string | undefined
  let quote: '"' | "'" | undefined
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string
    if (quote) {
      if (char === quote) quote = undefined
      else if (char === '\\' && quote === '"' && i + 1 < text.length) word += text[++i]
      else word += char
    } else if (char === '"' || char === "'") {
      quote = char
      word ??= ''
    } else if (char === '\\' && i + 1 < text.length) {
      word = (word ?? '') + text[++i]
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word)
      word = undefined
    } else {
      word = (word ?? '') + char
    }
  }
  if (word !== undefined) words.push(word)
  return words
}

/** Writes words back so `splitWords` gives them again: plain words bare, the rest single-quoted. */
export function joinWords(words: readonly string[]): string {
  return words
    .map((word) => (/^[A-Za-z0-9_@%+=:,./<>&-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`))
    .join(' ')
}

/**
 * The protected paths: files a *routine* command (`git status`, `npm run test`, `cargo build`, a
 * `cd`, opening the folder in an editor, a push to CI) reads and runs code from, or that tell an
 * agent or editor what to run — not the sources a coding task edits. A glob without `/` matches at
 * any depth, one with `/` from the bound folder (see docs/approvals.md for why each is here). Any
 * file with an executable bit, and anything in a folder git takes for a repository, is protected
 * as well.
 */
export const DEFAULT_PROTECTED_PATHS = [
  '**/.git/**',
  '.gitattributes',
  '.gitmodules',
  '.husky/**',
  '.pre-commit-config.yaml',
  '.envrc',
  '.env*',
  'package.json',
  '.npmrc',
  '.yarnrc*',
  '.pnpmfile.cjs',
  '**/.cargo/config*',
  'Makefile',
  '.vscode/**',
  '*.code-workspace',
  '.idea/**',
  '.devcontainer/**',
  '.devcontainer.json',
  '.atelier/**',
  '.claude/**',
  '.codex/**',
  '.cursor/**',
  '.mcp.json',
  '.github/**',
  '.gitlab-ci.yml',
]
