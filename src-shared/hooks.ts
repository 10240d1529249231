/**
 * Hooks: the person's own commands, run at the agent's lifecycle points. The files that hold them
 * (`~/.atelier/hooks.json`, a trusted project's `.atelier/hooks.json`) have the shape of Claude
 * Code's settings — `{ "hooks": { EVENT: [ { "matcher", "hooks": [ { "type": "command", "command",
 * "timeout" } ] } ] } }` — so hooks written for it work here. See docs/hooks.md.
 */
import { type Static, Type } from '@sinclair/typebox'

/** Every event a hook can run at, in the order a turn meets them. */
export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Notification',
  'PreCompact',
  'SubagentStop',
  'Stop',
] as const
export type HookEvent = (typeof HOOK_EVENTS)[number]
export const HookEvent = Type.Union(HOOK_EVENTS.map((event) => Type.Literal(event)))

/** What a hook's matcher is compared with, by event; the others run on every occurrence. */
export const MATCHED_ON: Partial<Record<HookEvent, string>> = {
  PreToolUse: 'the tool name',
  PostToolUse: 'the tool name',
  SessionStart: 'the source (startup, resume)',
  PreCompact: 'the trigger (manual, auto)',
  Notification: 'the kind of question (approval, confirmation, elicitation, plan)',
  SubagentStop: 'the subagent name',
}

/** How long a hook may run, in seconds, when it does not say. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60

/** One command, as Claude Code writes it: a command line, and its own timeout in seconds. */
export const HookCommand = Type.Object({
  type: Type.Literal('command'),
  command: Type.String({ minLength: 1, maxLength: 10_000 }),
  timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600 })),
})
export type HookCommand = Static<typeof HookCommand>

/** The commands that run when the matcher matches (no matcher, `""` or `*`: always). */
export const HookGroup = Type.Object({
  matcher: Type.Optional(Type.String({ maxLength: 1000 })),
  hooks: Type.Array(HookCommand),
})
export type HookGroup = Static<typeof HookGroup>

/** A hooks file's `hooks` object: its groups by event. */
export type HookTable = Partial<Record<HookEvent, HookGroup[]>>

/** Where a hook is kept: the person's own file, or a project's. */
export const HookScope = Type.Union([Type.Literal('user'), Type.Literal('project')])
export type HookScope = Static<typeof HookScope>

/** One hook as Settings and `atelier hooks list` show it. */
export const HookEntry = Type.Object({
  /** Stable while the file is unchanged: its file, event, group and place in the group. */
  id: Type.String(),
  scope: HookScope,
  /** The hooks file it is written in. */
  file: Type.String(),
  event: HookEvent,
  matcher: Type.String(),
  command: Type.String(),
  timeoutSeconds: Type.Number(),
  /** False for a project the person has not trusted: listed, never run. */
  runs: Type.Boolean(),
  /** Why it cannot run as written (a matcher that is not a valid pattern). */
  problem: Type.Optional(Type.String()),
})
export type HookEntry = Static<typeof HookEntry>

/**
 * What one run decided: `block` (exit 2, `decision: "block"`, `permissionDecision: "deny"`), `ask`,
 * `allow`, `stop` (`continue: false`), `error` (any other exit, a timeout, output that is not
 * JSON — never blocks), or `none`.
 */
export const HookDecision = Type.Union([
  Type.Literal('none'),
  Type.Literal('allow'),
  Type.Literal('ask'),
  Type.Literal('block'),
  Type.Literal('stop'),
  Type.Literal('error'),
])
export type HookDecision = Static<typeof HookDecision>

/** One run of one hook: what a tool card and Settings → Hooks show. */
export const HookRun = Type.Object({
  event: HookEvent,
  command: Type.String(),
  scope: HookScope,
  decision: HookDecision,
  /** Why it blocked, asked or stopped, or what went wrong. */
  reason: Type.Optional(Type.String()),
  /** Text it gave the model to read (`additionalContext`). */
  context: Type.Optional(Type.String()),
  exitCode: Type.Union([Type.Number(), Type.Null()]),
  /** What it printed, stdout then stderr, capped. */
  output: Type.String(),
  durationMs: Type.Number(),
  /** Epoch milliseconds. */
  at: Type.Number(),
  chatId: Type.Optional(Type.String()),
  /** The tool call it ran on, for PreToolUse and PostToolUse. */
  callId: Type.Optional(Type.String()),
})
export type HookRun = Static<typeof HookRun>

/** What an import found: the hooks it could map, and what it could not, each with why. */
export const HookImport = Type.Object({
  /** The file it read. */
  from: Type.String(),
  added: Type.Array(HookEntry),
  skipped: Type.Array(Type.Object({ what: Type.String(), why: Type.String() })),
})
export type HookImport = Static<typeof HookImport>

/** Whether a matcher is one that matches everything. */
export function matchesAll(matcher: string | undefined): boolean {
  return matcher === undefined || matcher === '' || matcher === '*'
}
