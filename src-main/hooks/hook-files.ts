/**
 * The files hooks are kept in: the person's `~/.atelier/hooks.json` and a project's
 * `.atelier/hooks.json`, each `{ "hooks": { EVENT: [ { "matcher", "hooks": [ … ] } ] } }` as Claude
 * Code writes its settings. Other keys of the file are kept as they are when Atelier writes it.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { AtelierError } from '../../src-shared/errors'
import {
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  HOOK_EVENTS,
  type HookCommand,
  type HookEntry,
  type HookEvent,
  HookGroup,
  type HookScope,
  type HookTable,
} from '../../src-shared/hooks'
import { compileMatcher } from './hook-matcher'

/** The hooks file under a folder: the home for the person's own, the project for a project's. */
export function hooksFileIn(base: string): string {
  return join(base, '.atelier', 'hooks.json')
}

/** A hooks file as read: its table, what else it holds, and why part of it was left out. */
export interface HooksFile {
  path: string
  table: HookTable
  /** The file's other keys, written back unchanged. */
  rest: Record<string, unknown>
  problems: string[]
}

/** Reads a hooks file; a missing one is empty, a malformed event or group is left out with a problem. */
export function readHooksFile(path: string): HooksFile {
  const file: HooksFile = { path, table: {}, rest: {}, problems: [] }
  if (!existsSync(path)) return file
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    file.problems.push(`${path} is not valid JSON: ${(error as Error).message}`)
    return file
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    file.problems.push(`${path} does not hold an object.`)
    return file
  }
  const { hooks, ...rest } = parsed as Record<string, unknown>
  file.rest = rest
  file.table = tableOf(hooks, path, file.problems)
  return file
}

/** The known events' well-formed groups of a `hooks` object. */
export function tableOf(hooks: unknown, where: string, problems: string[]): HookTable {
  if (hooks === undefined) return {}
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) {
    problems.push(`"hooks" in ${where} is not an object.`)
    return {}
  }
  const table: HookTable = {}
  for (const [event, groups] of Object.entries(hooks)) {
    if (!HOOK_EVENTS.includes(event as HookEvent)) {
      problems.push(`${where}: Atelier has no event "${event}".`)
      continue
    }
    if (!Array.isArray(groups)) {
      problems.push(`${where}: the ${event} hooks are not a list.`)
      continue
    }
    table[event as HookEvent] = groups.filter((group, index) => {
      if (Value.Check(HookGroup, group)) return true
      problems.push(
        `${where}: ${event} group ${index + 1} is not { "matcher", "hooks": [{ "type": "command", "command" }] }.`,
      )
      return false
    })
  }
  return table
}

/** Writes a hooks file whole, through a temporary file so a reader never sees half of it. */
export function writeHooksFile(file: HooksFile): void {
  mkdirSync(dirname(file.path), { recursive: true })
  const temporary = `${file.path}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify({ ...file.rest, hooks: file.table }, null, 2)}\n`)
  renameSync(temporary, file.path)
}

/** A hook's id: its scope, event, group and place in the group (stable while the file is unchanged). */
function idOf(scope: HookScope, event: HookEvent, group: number, hook: number): string {
  return `${scope}:${event}:${group}:${hook}`
}

/** Where an id points in its file; throws `not_found` when it points nowhere. */
export function locate(
  id: string,
  table: HookTable,
): { scope: HookScope; event: HookEvent; group: HookGroup; index: number } {
  const [scope, event, group, hook] = id.split(':')
  const groups = table[event as HookEvent]
  const found = groups?.[Number(group)]
  if ((scope !== 'user' && scope !== 'project') || !found || !found.hooks[Number(hook)]) {
    throw new AtelierError('not_found', `No hook with id "${id}".`, { id })
  }
  return { scope, event: event as HookEvent, group: found, index: Number(hook) }
}

/** Every hook of a file, as Settings lists them. */
export function entriesOf(file: HooksFile, scope: HookScope, runs: boolean): HookEntry[] {
  return HOOK_EVENTS.flatMap((event) =>
    (file.table[event] ?? []).flatMap((group, groupIndex) => {
      const { problem } = compileMatcher(group.matcher)
      return group.hooks.map((hook, hookIndex) => ({
        id: idOf(scope, event, groupIndex, hookIndex),
        scope,
        file: file.path,
        event,
        matcher: group.matcher ?? '',
        command: hook.command,
        timeoutSeconds: hook.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS,
        runs,
        ...(problem && { problem }),
      }))
    }),
  )
}

/** Adds a command under its event, in the group with the same matcher or a new one; returns its id. */
export function addTo(
  file: HooksFile,
  scope: HookScope,
  event: HookEvent,
  matcher: string,
  hook: HookCommand,
): string {
  const groups = file.table[event] ?? []
  file.table[event] = groups
  let index = groups.findIndex((group) => (group.matcher ?? '') === matcher)
  if (index === -1) {
    groups.push({ ...(matcher && { matcher }), hooks: [] })
    index = groups.length - 1
  }
  const group = groups[index] as HookGroup
  group.hooks.push(hook)
  return idOf(scope, event, index, group.hooks.length - 1)
}

/** Takes a command out of its group; an emptied group and event go with it. */
export function removeFrom(file: HooksFile, id: string): void {
  const { event, group, index } = locate(id, file.table)
  group.hooks.splice(index, 1)
  const groups = file.table[event] as HookGroup[]
  if (group.hooks.length === 0) groups.splice(groups.indexOf(group), 1)
  if (groups.length === 0) delete file.table[event]
}
