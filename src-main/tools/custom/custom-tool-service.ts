/**
 * Custom tools as the app sees them: the tool folders found for a project, a host process per
 * folder (with the environment the person passes it), their tools in the registry (source
 * `custom`), the project folders the person trusts — with their modules as trusted — and a watcher
 * that reloads a folder after an edit: at the next turn, never in the middle of a call.
 */

import { createHash } from 'node:crypto'
import {
  appendFileSync,
  existsSync,
  type FSWatcher,
  mkdirSync,
  readFileSync,
  realpathSync,
  statSync,
  truncateSync,
  watch,
} from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import type { CustomToolMessage } from '../../../src-custom-tool/index'
import type {
  CustomToolFileInfo,
  CustomToolFolderInfo,
  CustomToolLog,
  CustomToolsInfo,
} from '../../../src-shared/custom-tools'
import { AtelierError, errorMessage } from '../../../src-shared/errors'
import type { ToolDisplay } from '../../../src-shared/tools'
import type { AtelierEvents } from '../../core/events'
import type { AppSettingsRepository } from '../../db/app-settings-repository'
import type { ToolRegistry } from '../registry'
import type { ConfineProgram } from '../sandbox/command-sandbox'
import { integerParameter, TIMEOUT_SECONDS } from '../settings-policy'
import type { RegisteredTool, ToolOutput } from '../types'
import { discoverToolFolders, type FoundFolder } from './discovery'
import { FolderEnvironment } from './folder-environment'
import { FolderTrust, isAsTrusted, type TrustedFolder } from './folder-trust'
import type { HostedResult, HostedToolInfo, SessionEvent } from './host-protocol'
import { claimNames } from './loader'
import { fingerprintOf } from './module-fingerprints'
import { renderTheme } from './render-theme'
import { type LoadOutcome, nodeHost, type SpawnHost, ToolHostProcess } from './tool-host-process'

/** A change is acted on once the folder has been quiet this long (an editor writes in bursts). */
const DEBOUNCE_MS = 150
/** A log grows to this, then keeps its newer half. */
const MAX_LOG_BYTES = 1024 * 1024
/** What the panel shows of a log. */
const LOG_TAIL_BYTES = 64 * 1024
/** Session events kept for a project none of whose hosts runs yet: a turn's first ones, not a day's. */
const MAX_PENDING_EVENTS = 50

export interface CustomToolDeps {
  registry: ToolRegistry
  settings: AppSettingsRepository
  /** The configured paths (Settings → Custom tools), read at each discovery. */
  configuredPaths: () => readonly string[]
  events: AtelierEvents
  /** Where the modules' logs are kept. */
  dataDir: string
  /** Whether a person watches (the app, the web host); false for `atelier run` and `atelier tool`. */
  hasUI: boolean
  home?: string
  spawn?: SpawnHost
  /** Confines the programs the tools start (`api.exec`). */
  confine?: ConfineProgram
  /**
   * Other files of a project that run code under the same trust (its hooks file): trusting the
   * folder records them as they are, and one edited since waits, as a module does.
   */
  alsoTrusted?: (project: string) => string[]
  /** Whether the app shows light or dark now, for the render hooks; light when not given (the CLI). */
  theme?: () => 'light' | 'dark'
  /** A chat's messages, for a module's `sessionManager`; none when not given. */
  messages?: (chatId: string) => CustomToolMessage[]
  now?: () => number
}

interface HostedFolder {
  found: FoundFolder
  /** The modules it was loaded with; another list means another host. */
  files: string
  /** The variables passed to it besides the allowlist; others mean another host. */
  passed: string
  /**
   * The modules' size and times when it was loaded: a turn sent right after a save must not race
   * the watcher's debounce and run the old code.
   */
  signature: string
  host: ToolHostProcess
  outcome?: LoadOutcome
  /** A file changed since it loaded: reload when no call runs. */
  dirty: boolean
  watcher?: FSWatcher
  debounce?: NodeJS.Timeout
  registered: boolean
  unregister: (() => void)[]
  /** Per module: how registering its tools went. */
  conflicts: Map<string, { name: string; heldBy: string }[]>
  hostLog: string[]
}

/**
 * How far a tool folder may run: whether its project is trusted (the person's own folders always
 * are), the modules that may load, and those added or edited since the project was trusted.
 */
interface Standing {
  trusted: boolean
  runnable: string[]
  changed: string[]
}

export class CustomToolService {
  private readonly hosted = new Map<string, HostedFolder>()
  private readonly home: string
  private readonly spawn: SpawnHost
  private readonly trusts: FolderTrust
  private readonly environments: FolderEnvironment
  private closed = false
  /** Settles when the preparing under way is done: preparations run one at a time. */
  private preparing: Promise<unknown> = Promise.resolve()
  /**
   * Session events no host heard, by project (`''`: none): a chat's first turn begins before its
   * tool folders load, so its `new` and `turn_start` wait here for them.
   */
  private readonly pending = new Map<string, { event: SessionEvent; cwd: string }[]>()

  constructor(private readonly deps: CustomToolDeps) {
    this.home = deps.home ?? homedir()
    this.spawn = deps.spawn ?? nodeHost
    const now = deps.now ?? Date.now
    this.trusts = new FolderTrust(deps.settings, now)
    this.environments = new FolderEnvironment(deps.settings, now)
  }

  /**
   * Loads the tool folders a turn in this project uses — the person's, the configured ones, and the
   * project's own once it is trusted — and makes the registry hold their tools. Folders changed
   * since they loaded are reloaded here, unless a call of theirs is running.
   */
  prepare(project: string | null): Promise<void> {
    const next = this.preparing.then(() => this.loadFolders(project))
    this.preparing = next.catch(() => {})
    return next
  }

  /**
   * A session event of a chat in `project`, for the modules serving it: the person's own and that
   * project's. When none of their hosts runs, it waits for the next load of that project.
   */
  session(project: string | null, event: SessionEvent): void {
    const cwd = project ?? this.home
    let heard = false
    for (const hosted of this.servingHosts(project)) {
      if (!hosted.host.running) continue
      hosted.host.session(event, cwd)
      heard = true
    }
    if (heard) return
    const waiting = this.pending.get(project ?? '') ?? []
    waiting.push({ event, cwd })
    this.pending.set(project ?? '', waiting.slice(-MAX_PENDING_EVENTS))
  }

  private servingHosts(project: string | null): HostedFolder[] {
    return [...this.hosted.values()].filter(
      (hosted) => hosted.found.project === undefined || hosted.found.project === project,
    )
  }

  /**
   * Every file found for this project and how loading it went so far, for the panel and the trust
   * notice: reads the tool folders, starts nothing.
   */
  list(project: string | null = null): CustomToolsInfo {
    const trusts = this.trusts.all()
    const { folders, skipped } = this.discovery(project)
    const found = folders.map((folder) => ({
      folder,
      standing: this.standing(folder, trusts),
    }))
    const untrusted = found
      .filter(({ folder, standing }) => folder.project !== undefined && !standing.trusted)
      .flatMap(({ folder }) => modulesOf(folder))
    const changed = found.flatMap(({ standing }) => standing.changed)
    const waiting = untrusted.length > 0 ? untrusted : changed
    return {
      folders: found.map(({ folder, standing }) => this.folderInfo(folder, standing)),
      configuredPaths: [...this.deps.configuredPaths()],
      skippedPaths: skipped,
      trustedFolders: trusts.map((each) => each.folder),
      trustNeeded:
        project && waiting.length > 0
          ? { folder: project, files: waiting, changedSinceTrusted: untrusted.length === 0 }
          : null,
    }
  }

  /** Loads this project's tool folders as a turn would, then lists them: so how loading went shows. */
  async load(project: string | null = null): Promise<CustomToolsInfo> {
    await this.prepare(project)
    return this.list(project)
  }

  /** Ends every host of these folders (their `onSession(shutdown)` first) and loads them again. */
  async reload(project: string | null = null): Promise<CustomToolsInfo> {
    await this.preparing
    await Promise.all([...this.hosted.values()].map((folder) => this.unload(folder)))
    this.changed()
    return this.load(project)
  }

  /**
   * From now on the project's tool modules load as they are now; one added or edited later waits
   * until the person trusts the folder again. A cloned repository never runs code unasked.
   */
  trust(folder: string): { folder: string; trusted: string[] } {
    const real = realFolder(folder)
    const modules: TrustedFolder['modules'] = {}
    for (const found of this.discover(real)) {
      if (found.project === undefined) continue
      for (const module of modulesOf(found)) {
        const print = fingerprintOf(module, found.path)
        if (print) modules[print.key] = print.digest
      }
    }
    for (const file of this.deps.alsoTrusted?.(real) ?? []) {
      const print = fingerprintOf(file, dirname(file))
      if (print) modules[print.key] = print.digest
    }
    this.trusts.record(real, modules)
    this.changed()
    return { folder: real, trusted: this.trustedFolders() }
  }

  async untrust(folder: string): Promise<{ folder: string; trusted: string[] }> {
    const real = realFolder(folder)
    this.trusts.forget(real)
    const trusted = this.trustedFolders()
    const affected = [...this.hosted.values()].filter(
      (hosted) => hosted.found.project !== undefined && realFolder(hosted.found.project) === real,
    )
    await Promise.all(affected.map((hosted) => this.unload(hosted)))
    this.changed()
    return { folder: real, trusted }
  }

  /** The trusted project folders, by real path. */
  trustedFolders(): string[] {
    return this.trusts.all().map((each) => each.folder)
  }

  /** The variables passed to the tool folder at `folder` besides the allowlist. */
  environmentOf(folder: string): string[] {
    return this.environments.names(folder)
  }

  /**
   * Passes these variables (names, or `PREFIX*`) to the tool folder's host and the programs it
   * starts, besides the shell's allowlist; its host starts again with them at the next load.
   */
  setEnvironment(folder: string, names: readonly string[]): { folder: string; names: string[] } {
    const passed = this.environments.set(folder, names)
    this.changed()
    return { folder, names: passed }
  }

  /** The end of a module's log; only files a tool folder holds have one. */
  log(file: string): CustomToolLog {
    const known = [...this.hosted.values()].some((hosted) =>
      hosted.found.files.some((each) => each.path === file),
    )
    if (!known) throw new AtelierError('not_found', `No custom tool module "${file}" is loaded.`, { file })
    const path = this.logFile(file)
    if (!existsSync(path)) return { path, text: '' }
    const text = readFileSync(path)
    return { path, text: text.subarray(Math.max(0, text.length - LOG_TAIL_BYTES)).toString('utf8') }
  }

  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.hosted.values()].map((folder) => this.unload(folder)))
  }

  private discover(project: string | null): FoundFolder[] {
    return this.discovery(project).folders
  }

  private discovery(project: string | null) {
    return discoverToolFolders({ home: this.home, project, configuredPaths: this.deps.configuredPaths() })
  }

  private standing(folder: FoundFolder, trusts = this.trusts.all()): Standing {
    const modules = modulesOf(folder)
    if (folder.project === undefined) return { trusted: true, runnable: modules, changed: [] }
    const trust = this.trusts.of(folder.project, trusts)
    if (!trust) return { trusted: false, runnable: [], changed: [] }
    const changed = modules.filter((module) => !isAsTrusted(trust, module, folder.path))
    return { trusted: true, runnable: modules.filter((module) => !changed.includes(module)), changed }
  }

  private async loadFolders(project: string | null): Promise<void> {
    if (this.closed) return
    const trusts = this.trusts.all()
    const wanted = this.discover(project)
      .map((found) => ({ found, runnable: this.standing(found, trusts).runnable }))
      .filter(({ runnable }) => runnable.length > 0)
    // Only a load that changed something is announced: the panel loads again on the announcement,
    // so announcing every prepare would have it and the announcements ask each other for ever.
    let changes = false
    // Folders of this project (and the person's) that are gone or changed make way first.
    for (const hosted of this.hosted.values()) {
      const now = wanted.find(({ found }) => found.path === hosted.found.path)
      const ours = hosted.found.project === undefined || hosted.found.project === project
      const stale =
        (now &&
          (JSON.stringify(now.runnable) !== hosted.files ||
            signatureOf(now.runnable) !== hosted.signature ||
            JSON.stringify(this.environments.names(now.found.path)) !== hosted.passed)) ||
        hosted.dirty
      if ((ours && !now) || (stale && !hosted.host.busy)) {
        await this.unload(hosted)
        changes = true
      }
    }
    for (const { found, runnable } of wanted) {
      if (this.hosted.has(found.path)) continue
      this.hosted.set(found.path, this.host(found, runnable))
      changes = true
    }
    const loading = wanted.map(({ found }) => this.hosted.get(found.path) as HostedFolder)
    await Promise.all(
      loading.map(async (hosted) => {
        if (hosted.outcome) return
        try {
          hosted.outcome = await hosted.host.load()
        } catch (error) {
          const reason = errorMessage(error)
          hosted.hostLog.push(reason)
          const message = `The tool host stopped while loading this folder: ${reason}`
          const files: string[] = JSON.parse(hosted.files)
          hosted.outcome = { tools: [], errors: files.map((file) => ({ file, error: { message } })) }
        }
      }),
    )
    // The registry holds one tool a name: one of another project (a chat there used it) makes
    // way, or this project would run that project's code. It loads again when that project's turn comes.
    for (const hosted of loading) {
      if (hosted.registered) continue
      for (const tool of hosted.outcome?.tools ?? []) {
        const holder = this.deps.registry.get(tool.name)?.source
        if (holder?.kind !== 'custom' || holder.project === undefined || holder.project === project) continue
        const other = [...this.hosted.values()].find((each) =>
          each.found.files.some((file) => file.path === holder.module),
        )
        if (other && !other.host.busy) await this.unload(other)
      }
    }
    // A name refused before may be free now (the folder that held it changed): that folder tries again.
    for (const hosted of loading) {
      const refused = [...hosted.conflicts.values()].flat()
      if (!hosted.registered || !refused.some(({ name }) => !this.deps.registry.get(name))) continue
      for (const unregister of hosted.unregister.splice(0)) unregister()
      hosted.conflicts.clear()
      hosted.registered = false
      changes = true
    }
    // In discovery order, so the person's own folders win a name over a project's.
    for (const hosted of loading) {
      if (!hosted.registered) this.register(hosted)
    }
    const waiting = this.pending.get(project ?? '')
    this.pending.delete(project ?? '')
    for (const { event, cwd } of waiting ?? []) {
      for (const hosted of loading) hosted.host.session(event, cwd)
    }
    if (changes) this.changed()
  }

  /** A host for the folder's `files` (the modules that may run), with the folder's environment. */
  private host(found: FoundFolder, files: string[]): HostedFolder {
    const hosted: HostedFolder = {
      found,
      files: JSON.stringify(files),
      passed: JSON.stringify(this.environments.names(found.path)),
      signature: signatureOf(files),
      dirty: false,
      registered: false,
      unregister: [],
      conflicts: new Map(),
      hostLog: [],
      host: new ToolHostProcess({
        files,
        admit: (candidates) => {
          const { runnable } = this.standing(found)
          return candidates.filter((file) => runnable.includes(file))
        },
        hasUI: this.deps.hasUI,
        home: this.home,
        spawn: this.spawn,
        env: this.environments.of(found.path),
        ...(this.deps.confine && { confine: this.deps.confine }),
        log: (file, level, message) => this.writeLog(file, level, message),
        hostLog: (message) => {
          hosted.hostLog = [...hosted.hostLog, message].slice(-20)
          for (const file of files) this.writeLog(file, 'host', message)
        },
        onStateChange: () => this.changed(),
        theme: () => renderTheme(this.deps.theme?.() ?? 'light'),
        messages: (chatId) => this.deps.messages?.(chatId) ?? [],
      }),
    }
    try {
      hosted.watcher = watch(found.path, { recursive: true }, () => {
        clearTimeout(hosted.debounce)
        hosted.debounce = setTimeout(() => {
          hosted.dirty = true
          this.changed()
        }, DEBOUNCE_MS)
      })
      hosted.watcher.on('error', () => {})
    } catch {
      // Without a watcher the folder still reloads from the panel's Reload and on a new file list.
    }
    return hosted
  }

  /** Registers the folder's tools in load order; a taken name is refused, naming both places. */
  private register(hosted: HostedFolder): void {
    const { registry } = this.deps
    hosted.registered = true
    const { claimed, refused } = claimNames(hosted.outcome?.tools ?? [], (name) => {
      const holder = registry.get(name)?.source
      if (!holder) return undefined
      if (holder.kind === 'custom') return holder.module
      if (holder.kind === 'builtin') return 'a built-in tool'
      return holder.kind === 'mcp' ? `the MCP server ${holder.server}` : `the tool service ${holder.service}`
    })
    for (const { tool, heldBy } of refused) {
      const list = hosted.conflicts.get(tool.file) ?? []
      list.push({ name: tool.name, heldBy })
      hosted.conflicts.set(tool.file, list)
      this.writeLog(tool.file, 'error', `The tool "${tool.name}" is not loaded: ${heldBy} has that name.`)
    }
    for (const tool of claimed) {
      const source = {
        kind: 'custom' as const,
        module: tool.file,
        ...(hosted.found.project !== undefined && { project: hosted.found.project }),
      }
      hosted.unregister.push(registry.register(this.registeredTool(tool, hosted.host), source))
    }
  }

  private registeredTool(tool: HostedToolInfo, host: ToolHostProcess): RegisteredTool {
    return {
      definition: { name: tool.name, description: tool.description, parameters: tool.parameters },
      settings: {
        title: tool.label,
        description: `${tool.description} (custom tool, ${tool.file})`,
        category: 'system',
        enabledByDefault: true,
        canDisable: true,
        defaultParameters: { timeoutSeconds: TIMEOUT_SECONDS.fallback },
        parameterDescriptors: [
          integerParameter(
            'timeoutSeconds',
            'Timeout',
            'The longest a call may take.',
            TIMEOUT_SECONDS,
            'seconds',
          ),
        ],
      },
      kind: tool.kind,
      describe: async (args) => ({ summary: `${tool.label} ${JSON.stringify(args)}`, locations: [] }),
      runner: { run: async (call, callHost) => toolOutput(await host.run(call, callHost)) },
    }
  }

  private async unload(hosted: HostedFolder): Promise<void> {
    this.hosted.delete(hosted.found.path)
    clearTimeout(hosted.debounce)
    hosted.watcher?.close()
    for (const unregister of hosted.unregister) unregister()
    await hosted.host.stop()
  }

  private folderInfo(found: FoundFolder, { trusted, changed }: Standing): CustomToolFolderInfo {
    const hosted = this.hosted.get(found.path)
    const files = found.files.map((file): CustomToolFileInfo => {
      const base = { path: file.path, tools: [] }
      if (file.kind === 'metadata') return { ...base, status: 'metadata' }
      if (file.duplicateOf) return { ...base, status: 'duplicate', duplicateOf: file.duplicateOf }
      if (!trusted) return { ...base, status: 'untrusted' }
      if (changed.includes(file.path)) return { ...base, status: 'changed' }
      const logFile = this.logFile(file.path)
      const outcome = hosted?.outcome
      // A file the folder's host did not load (added since) waits for the next load.
      if (!outcome || !(JSON.parse(hosted.files) as string[]).includes(file.path)) {
        return { ...base, status: 'pending', logFile }
      }
      const failed = outcome.errors.find((each) => each.file === file.path)
      if (failed) return { ...base, status: 'failed', error: failed.error, logFile }
      const conflicts = hosted.conflicts.get(file.path)
      const tools = outcome.tools
        .filter((tool) => tool.file === file.path && !conflicts?.some((each) => each.name === tool.name))
        .map(({ name, label, description }) => ({ name, label, description }))
      if (conflicts) return { ...base, status: 'conflict', tools, conflicts, logFile }
      return { ...base, status: 'loaded', tools, logFile }
    })
    return {
      path: found.path,
      origin: found.origin,
      ...(found.project !== undefined && { project: found.project }),
      trusted,
      running: hosted?.host.running ?? false,
      environment: this.environments.names(found.path),
      files,
    }
  }

  private logFile(file: string): string {
    const id = createHash('sha256').update(file).digest('hex').slice(0, 12)
    return join(this.deps.dataDir, 'custom-tools', 'logs', `${basename(file)}-${id}.log`)
  }

  private writeLog(file: string, level: string, message: string): void {
    const path = this.logFile(file)
    try {
      mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 })
      if (existsSync(path) && statSync(path).size > MAX_LOG_BYTES) {
        const kept = readFileSync(path).subarray(-MAX_LOG_BYTES / 2)
        truncateSync(path, 0)
        appendFileSync(path, kept)
      }
      appendFileSync(path, `${new Date().toISOString()} ${level.toUpperCase()} ${message}\n`, { mode: 0o600 })
    } catch {
      // A log that cannot be written must not fail the call that wrote it.
    }
  }

  private changed(): void {
    if (this.closed) return
    this.deps.events.emit('customTools.changed', {})
  }
}

function modulesOf(folder: FoundFolder): string[] {
  return folder.files.filter((file) => file.kind === 'module' && !file.duplicateOf).map((file) => file.path)
}

/** What changes when a module is saved (written in place or replaced). */
function signatureOf(files: string[]): string {
  return JSON.stringify(
    files.map((file) => {
      try {
        const { size, mtimeMs, ctimeMs, ino } = statSync(file)
        return [size, mtimeMs, ctimeMs, ino]
      } catch {
        return null
      }
    }),
  )
}

function realFolder(folder: string): string {
  try {
    return realpathSync(folder)
  } catch {
    throw new AtelierError('not_found', `No folder "${folder}".`, { folder })
  }
}

/** What the model reads (the text) and what the card shows (the render hooks' Markdown, or the images). */
function toolOutput(result: HostedResult): ToolOutput {
  let display: ToolDisplay | undefined
  if (result.call !== undefined || result.collapsed !== undefined || result.expanded !== undefined) {
    display = {
      kind: 'rendered',
      ...(result.call !== undefined && { call: result.call }),
      ...(result.collapsed !== undefined && { collapsed: result.collapsed }),
      ...(result.expanded !== undefined && { expanded: result.expanded }),
    }
  } else if (result.images.length > 0) {
    display = { kind: 'images', images: result.images }
  }
  return {
    content: result.text,
    ...(result.isError && { isError: true }),
    ...(display && { display }),
    ...(result.details !== undefined && { data: result.details }),
  }
}
