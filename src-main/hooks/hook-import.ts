/**
 * Importing the hooks people already wrote: Claude Code's `hooks` object (`~/.claude/settings.json`,
 * a project's `.claude/settings.json`) has Atelier's very shape, so only its tool names change;
 * Gemini CLI's (`~/.gemini/settings.json`, `.gemini/settings.json`) also names its events otherwise
 * and gives timeouts in milliseconds. What has no counterpart here is listed with why.
 */
import { readFileSync } from 'node:fs'
import { AtelierError } from '../../src-shared/errors'
import type { HookEvent } from '../../src-shared/hooks'

/** Whose settings file it is: it decides the event names, tool names and timeout unit. */
export type HookDialect = 'claude' | 'gemini'

/** One hook to add: its event, matcher (in Atelier's tool names), command and timeout in seconds. */
export interface MappedHook {
  event: HookEvent
  matcher: string
  command: string
  timeout?: number
}

export interface MappedHooks {
  hooks: MappedHook[]
  skipped: { what: string; why: string }[]
}

const CLAUDE_EVENTS: Record<string, HookEvent> = {
  PreToolUse: 'PreToolUse',
  PostToolUse: 'PostToolUse',
  UserPromptSubmit: 'UserPromptSubmit',
  Stop: 'Stop',
  SubagentStop: 'SubagentStop',
  SessionStart: 'SessionStart',
  PreCompact: 'PreCompact',
  Notification: 'Notification',
}

const GEMINI_EVENTS: Record<string, HookEvent> = {
  BeforeTool: 'PreToolUse',
  AfterTool: 'PostToolUse',
  BeforeAgent: 'UserPromptSubmit',
  AfterAgent: 'Stop',
  SessionStart: 'SessionStart',
  PreCompress: 'PreCompact',
  Notification: 'Notification',
}

/** Their tool names for Atelier's tools that do the same job. */
const TOOL_NAMES: Record<HookDialect, Record<string, string>> = {
  claude: {
    Bash: 'bash',
    Read: 'read_file',
    Write: 'write_file',
    Edit: 'edit_file',
    MultiEdit: 'edit_file',
    Glob: 'glob',
    Grep: 'grep',
    LS: 'list_directory',
    WebFetch: 'web_fetch',
    WebSearch: 'web_search',
    TodoWrite: 'update_plan',
    ExitPlanMode: 'propose_plan',
  },
  gemini: {
    run_shell_command: 'bash',
    read_file: 'read_file',
    write_file: 'write_file',
    replace: 'edit_file',
    glob: 'glob',
    search_file_content: 'grep',
    list_directory: 'list_directory',
    web_fetch: 'web_fetch',
    google_web_search: 'web_search',
    write_todos: 'update_plan',
  },
}

/** The events whose matcher names tools. */
const TOOL_EVENTS: ReadonlySet<HookEvent> = new Set(['PreToolUse', 'PostToolUse'])

/** Reads a settings file and maps its `hooks`; throws `invalid_import` when it is not JSON. */
export function readForeignHooks(path: string, dialect: HookDialect): MappedHooks {
  let settings: unknown
  try {
    settings = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new AtelierError('invalid_import', `${path} cannot be read as JSON: ${(error as Error).message}`, {
      path,
    })
  }
  const hooks = (settings as { hooks?: unknown } | null)?.hooks
  if (typeof hooks !== 'object' || hooks === null) return { hooks: [], skipped: [] }
  return mapForeignHooks(hooks as Record<string, unknown>, dialect)
}

export function mapForeignHooks(hooks: Record<string, unknown>, dialect: HookDialect): MappedHooks {
  const events = dialect === 'claude' ? CLAUDE_EVENTS : GEMINI_EVENTS
  const mapped: MappedHooks = { hooks: [], skipped: [] }
  for (const [name, groups] of Object.entries(hooks)) {
    // Gemini CLI keeps its switches (`enabled`, `disabled`) beside its events.
    if (!Array.isArray(groups)) continue
    const event = events[name]
    if (!event) {
      mapped.skipped.push({
        what: `${name} (${groups.length} group${groups.length === 1 ? '' : 's'})`,
        why: `Atelier has no event like ${name}.`,
      })
      continue
    }
    for (const group of groups as { matcher?: unknown; hooks?: unknown }[]) {
      const matcher = typeof group?.matcher === 'string' ? group.matcher : ''
      const toolMatcher = TOOL_EVENTS.has(event) ? mapToolMatcher(matcher, dialect) : { matcher }
      if (toolMatcher.note)
        mapped.skipped.push({ what: `${name} matcher "${matcher}"`, why: toolMatcher.note })
      for (const hook of Array.isArray(group?.hooks) ? group.hooks : []) {
        const { type, command, timeout } = (hook ?? {}) as {
          type?: unknown
          command?: unknown
          timeout?: unknown
        }
        if (type !== 'command' || typeof command !== 'string' || !command.trim()) {
          mapped.skipped.push({
            what: `${name} ${String(type ?? 'hook')} hook`,
            why: 'Only command hooks run in Atelier.',
          })
          continue
        }
        const seconds = typeof timeout === 'number' && timeout > 0 ? secondsOf(timeout, dialect) : undefined
        mapped.hooks.push({
          event,
          matcher: toolMatcher.matcher,
          command,
          ...(seconds && { timeout: seconds }),
        })
      }
    }
  }
  return mapped
}

/** Gemini CLI's timeouts are milliseconds; Claude Code's and Atelier's are seconds. */
function secondsOf(timeout: number, dialect: HookDialect): number {
  return dialect === 'gemini' ? Math.max(1, Math.ceil(timeout / 1000)) : timeout
}

/**
 * A tool matcher in Atelier's tool names: plain names (and `|` lists of them) are renamed one by
 * one; a regular expression is kept as written, with a note, since its names cannot be told apart.
 */
function mapToolMatcher(matcher: string, dialect: HookDialect): { matcher: string; note?: string } {
  if (matcher === '' || matcher === '*') return { matcher }
  const names = TOOL_NAMES[dialect]
  if (!/^[\w-]+(\|[\w-]+)*$/.test(matcher)) {
    const renamed = matcher.replace(/[A-Za-z_][\w-]*/g, (word) => names[word] ?? word)
    return renamed === matcher
      ? { matcher, note: 'A pattern: kept as written; check that it names Atelier tools.' }
      : { matcher: renamed, note: `A pattern: its tool names were renamed, to "${renamed}"; check it.` }
  }
  const parts = matcher.split('|')
  const unknown = parts.filter((part) => !names[part])
  const renamed = [...new Set(parts.map((part) => names[part] ?? part))].join('|')
  return unknown.length === 0
    ? { matcher: renamed }
    : { matcher: renamed, note: `Atelier has no tool like ${unknown.join(', ')}: kept as written.` }
}
