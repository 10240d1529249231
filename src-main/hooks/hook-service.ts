/**
 * The person's hooks: which ones an event runs (their own, and a trusted project's), running them
 * side by side, what they decided together, and the recent runs Settings → Hooks shows. Also the
 * hooks files' editing behind Settings and `atelier hooks`.
 */
import { statSync } from 'node:fs'
import { dirname } from 'node:path'
import { AtelierError } from '../../src-shared/errors'
import {
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  type HookEntry,
  type HookEvent,
  type HookImport,
  type HookRun,
  type HookScope,
} from '../../src-shared/hooks'
import { type FolderTrust, isAsTrusted } from '../tools/custom/folder-trust'
import { fingerprintOf } from '../tools/custom/module-fingerprints'
import {
  addTo,
  entriesOf,
  type HooksFile,
  hooksFileIn,
  locate,
  readHooksFile,
  removeFrom,
  writeHooksFile,
} from './hook-files'
import { type HookDialect, readForeignHooks } from './hook-import'
import { compileMatcher } from './hook-matcher'
import { combine, type HookOutcome, verdictOf } from './hook-outcome'
import { runHookCommand } from './run-hook-command'

/** How many recent runs Settings → Hooks can show. */
const KEPT_RUNS = 100
/** What a run keeps of its output for the card and Settings. */
const SHOWN_OUTPUT_CHARS = 4000

/** One occurrence of an event: where it happens, what the matcher is compared with, its input. */
export interface HookOccasion {
  event: HookEvent
  /** The chat's project folder (null in chat mode): its trusted hooks run, and hooks run in it. */
  folder: string | null
  chatId?: string
  /** The tool call the event is about. */
  callId?: string
  /** What a matcher is compared with: the tool name, the source, the trigger… */
  matchOn?: string
  /** The event's own fields, beside `session_id`, `cwd` and `hook_event_name`. */
  input: Record<string, unknown>
  signal?: AbortSignal
}

export interface HookServiceDeps {
  /** The person's home: `~/.atelier/hooks.json`. */
  home: string
  /**
   * The trust that lets a project's code run (`atelier folders trust`): it records the project's
   * hooks file as it was, and a file changed since (a `git pull`) runs only once trusted again.
   */
  trust: Pick<FolderTrust, 'of' | 'record'>
  /** Called with every finished run (the tool card shows the runs of its call). */
  onRun?: (run: HookRun) => void
  now?: () => number
}

/** Where a hook is added, edited or removed: its scope, and the project for a project's. */
export interface HookPlace {
  scope: HookScope
  folder?: string
}

export class HookService {
  private readonly recent: HookRun[] = []
  private readonly files = new Map<string, { stamp: string; file: HooksFile }>()
  /** Stops every running hook when Atelier closes. */
  private readonly closing = new AbortController()
  private readonly inFlight = new Set<Promise<unknown>>()
  private readonly now: () => number

  constructor(private readonly deps: HookServiceDeps) {
    this.now = deps.now ?? Date.now
  }

  /** Every hook: the person's, then the project's (listed even when the project is not trusted). */
  list({ folder }: { folder?: string } = {}): HookEntry[] {
    const own = entriesOf(this.read(hooksFileIn(this.deps.home)), 'user', true)
    if (!folder) return own
    const written = entriesOf(this.read(hooksFileIn(folder)), 'project', true)
    // Most projects have no hooks: their trust is not even looked up.
    if (written.length === 0) return own
    const trust = this.trustOf(folder)
    const problem = 'The file changed since the folder was trusted: trust the folder again to run it.'
    const project = written.map((entry) => {
      if (trust === 'trusted') return entry
      return { ...entry, runs: false, ...(trust === 'changed' && { problem: entry.problem ?? problem }) }
    })
    return [...own, ...project]
  }

  /** Adds a hook to the person's file or a project's; returns it as listed. */
  add(
    request: HookPlace & { event: HookEvent; matcher?: string; command: string; timeout?: number },
  ): HookEntry {
    const matcher = request.matcher?.trim() ?? ''
    const { problem } = compileMatcher(matcher)
    if (problem) throw new AtelierError('invalid_hook', problem, { matcher })
    if (!request.command.trim()) throw new AtelierError('invalid_hook', 'A hook needs a command.', {})
    const file = this.fileOf(request)
    const id = addTo(file, request.scope, request.event, matcher, {
      type: 'command',
      command: request.command.trim(),
      ...(request.timeout !== undefined && { timeout: request.timeout }),
    })
    this.write(file, request)
    return this.entry(id, request)
  }

  /** Changes a hook: it keeps its place when its matcher stays, and moves to its new matcher's group otherwise. */
  update(
    request: HookPlace & { id: string; matcher?: string; command?: string; timeout?: number },
  ): HookEntry {
    const file = this.fileOf(request)
    const { event, group, index } = locate(request.id, file.table)
    const current = group.hooks[index] as NonNullable<(typeof group.hooks)[number]>
    const matcher = request.matcher?.trim() ?? group.matcher ?? ''
    const timeout = request.timeout ?? current.timeout
    const command = request.command?.trim() || current.command
    if (matcher === (group.matcher ?? '')) {
      group.hooks[index] = { type: 'command', command, ...(timeout !== undefined && { timeout }) }
      this.write(file, request)
      return this.entry(request.id, request)
    }
    removeFrom(file, request.id)
    this.write(file, request)
    return this.add({ ...request, event, matcher, command, ...(timeout !== undefined && { timeout }) })
  }

  remove(request: HookPlace & { id: string }): { id: string } {
    const file = this.fileOf(request)
    removeFrom(file, request.id)
    this.write(file, request)
    return { id: request.id }
  }

  /**
   * Adds the hooks of Claude Code's or Gemini CLI's settings file, mapped to Atelier's events and
   * tool names, and says what could not be mapped.
   */
  import(request: HookPlace & { from: string; dialect: HookDialect }): HookImport {
    // A path as a person types it: `~/.claude/settings.json`.
    const from = request.from.replace(/^~(?=$|[\\/])/, this.deps.home)
    const { hooks, skipped } = readForeignHooks(from, request.dialect)
    const added = hooks.map((hook) =>
      this.add({ scope: request.scope, ...(request.folder && { folder: request.folder }), ...hook }),
    )
    return { from, added, skipped }
  }

  /**
   * Runs one hook with a sample input, whatever its matcher says: what Settings' "Test" and
   * `atelier hooks test` show. A project's hook runs only in a trusted project.
   */
  async test(request: HookPlace & { id: string; input?: Record<string, unknown> }): Promise<HookRun> {
    const entry = this.entry(request.id, request)
    if (!entry.runs) throw untrusted(request.folder as string)
    const folder = request.scope === 'project' ? (request.folder as string) : null
    const input = request.input ?? sampleInput(entry.event)
    return this.runOne(entry, { event: entry.event, folder, input })
  }

  /** The latest runs, newest last: of one chat, or of every chat and test. */
  runs({ chatId }: { chatId?: string } = {}): HookRun[] {
    return chatId ? this.recent.filter((run) => run.chatId === chatId) : [...this.recent]
  }

  /** Whether any hook of the event could run here: lets callers skip building an input nobody reads. */
  has(event: HookEvent, folder: string | null): boolean {
    return this.matching(event, folder, undefined).length > 0
  }

  /** Runs every hook the occasion matches, side by side; the strictest answer wins. */
  async run(occasion: HookOccasion): Promise<HookOutcome> {
    const hooks = this.matching(occasion.event, occasion.folder, occasion.matchOn)
    if (hooks.length === 0) return { decision: 'none', runs: [] }
    return combine(await Promise.all(hooks.map((entry) => this.runOne(entry, occasion))))
  }

  /** Stops the hooks still running and waits for them to end. */
  async close(): Promise<void> {
    this.closing.abort()
    await Promise.allSettled([...this.inFlight])
  }

  private matching(event: HookEvent, folder: string | null, matchOn: string | undefined): HookEntry[] {
    return this.list(folder ? { folder } : {}).filter(
      (entry) =>
        entry.event === event &&
        entry.runs &&
        (matchOn === undefined || compileMatcher(entry.matcher).test(matchOn)),
    )
  }

  private async runOne(entry: HookEntry, occasion: HookOccasion): Promise<HookRun> {
    const cwd = occasion.folder ?? this.deps.home
    const signal = occasion.signal
      ? AbortSignal.any([occasion.signal, this.closing.signal])
      : this.closing.signal
    const running = runHookCommand({
      command: entry.command,
      input: { session_id: occasion.chatId ?? '', cwd, hook_event_name: occasion.event, ...occasion.input },
      cwd,
      env: {
        ...process.env,
        ATELIER_PROJECT_DIR: occasion.folder ?? '',
        // What Claude Code's hooks name their project by, so theirs run here unchanged.
        CLAUDE_PROJECT_DIR: occasion.folder ?? '',
        GEMINI_PROJECT_DIR: occasion.folder ?? '',
      },
      timeoutMs: (entry.timeoutSeconds || DEFAULT_HOOK_TIMEOUT_SECONDS) * 1000,
      signal,
    })
    this.inFlight.add(running)
    const result = await running.finally(() => this.inFlight.delete(running))
    const verdict = verdictOf(occasion.event, result)
    const output = [result.stdout.trim(), result.stderr.trim()].filter(Boolean).join('\n')
    const run: HookRun = {
      event: occasion.event,
      command: entry.command,
      scope: entry.scope,
      ...verdict,
      exitCode: result.exitCode,
      output: output.length > SHOWN_OUTPUT_CHARS ? `${output.slice(0, SHOWN_OUTPUT_CHARS)}…` : output,
      durationMs: result.durationMs,
      at: this.now(),
      ...(occasion.chatId && { chatId: occasion.chatId }),
      ...(occasion.callId && { callId: occasion.callId }),
    }
    this.recent.push(run)
    if (this.recent.length > KEPT_RUNS) this.recent.shift()
    this.deps.onRun?.(run)
    return run
  }

  /** Whether a project's hooks file runs: trusted as it is, changed since it was trusted, or never trusted. */
  private trustOf(folder: string): 'trusted' | 'changed' | 'untrusted' {
    const trusted = this.deps.trust.of(folder)
    if (!trusted) return 'untrusted'
    const file = hooksFileIn(folder)
    return isAsTrusted(trusted, file, dirname(file)) ? 'trusted' : 'changed'
  }

  private fileOf({ scope, folder }: HookPlace): HooksFile {
    if (scope === 'user') return this.read(hooksFileIn(this.deps.home), true)
    if (!folder) throw new AtelierError('invalid_hook', "A project's hook needs its project folder.", {})
    return this.read(hooksFileIn(folder), true)
  }

  private entry(id: string, place: HookPlace): HookEntry {
    const found = this.list(place.folder ? { folder: place.folder } : {}).find(
      (entry) => entry.id === id && entry.scope === place.scope,
    )
    if (!found) throw new AtelierError('not_found', `No hook with id "${id}".`, { id })
    return found
  }

  /**
   * A hooks file as it is on disk, read again only when it changed. Listing only reads what it
   * returns; a file to edit is a copy, so an edit that fails half-way leaves the cache as the disk.
   */
  private read(path: string, forEditing = false): HooksFile {
    // Asked before every tool call, where most people have no hooks file: a missing file is told
    // by the answer, not by a thrown error, whose making costs more than the stat itself.
    let stamp = 'missing'
    try {
      const found = statSync(path, { throwIfNoEntry: false })
      if (found) stamp = `${found.mtimeMs} ${found.size}`
    } catch {
      // A file that cannot be looked at (its folder unreadable) is read as none, as a missing one.
    }
    const cached = this.files.get(path)
    const file = cached?.stamp === stamp ? cached.file : readHooksFile(path)
    this.files.set(path, { stamp, file })
    return forEditing ? structuredClone(file) : file
  }

  /**
   * Writes a hooks file. A trusted project's file that was as trusted stays trusted: the person
   * changed it here, in Settings or `atelier hooks`.
   */
  private write(file: HooksFile, { scope, folder }: HookPlace): void {
    const project = scope === 'project' ? folder : undefined
    const trusted = project === undefined ? undefined : this.deps.trust.of(project)
    const wasTrusted = project !== undefined && this.trustOf(project) === 'trusted'
    writeHooksFile(file)
    this.files.delete(file.path)
    const print = wasTrusted ? fingerprintOf(file.path, dirname(file.path)) : undefined
    if (trusted && print)
      this.deps.trust.record(trusted.folder, { ...trusted.modules, [print.key]: print.digest })
  }
}

function untrusted(folder: string): AtelierError {
  return new AtelierError(
    'untrusted_folder',
    `The hooks of ${folder} run only once the folder is trusted (atelier folders trust).`,
    { folder },
  )
}

/** A sample input for each event, as a test run sends it. */
export function sampleInput(event: HookEvent): Record<string, unknown> {
  switch (event) {
    case 'PreToolUse':
      return { tool_name: 'bash', tool_input: { command: 'echo hello' }, tool_use_id: 'sample' }
    case 'PostToolUse':
      return {
        tool_name: 'write_file',
        tool_input: { path: 'sample.txt', content: 'hello\n' },
        tool_response: { content: 'Wrote sample.txt', isError: false },
        tool_use_id: 'sample',
      }
    case 'UserPromptSubmit':
      return { prompt: 'Say hello.' }
    case 'SessionStart':
      return { source: 'startup' }
    case 'PreCompact':
      return { trigger: 'manual', custom_instructions: '' }
    case 'Notification':
      return { message: 'Atelier needs your approval to run bash.', notification_type: 'approval' }
    case 'Stop':
      return { stop_hook_active: false, status: 'completed' }
    case 'SubagentStop':
      return { stop_hook_active: false, agent_name: 'sample', status: 'completed' }
  }
}
