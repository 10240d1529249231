/**
 * The language servers of every folder Atelier works in: one process per (folder, server), started
 * on the first edit or question about a file it serves, kept warm, ended when nobody has used it
 * for a while, when no chat is bound to its folder any more, and on quit. A server that crashes is
 * started again once; if it crashes again it is reported as failed and left alone until the person
 * tests it or changes the settings.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Diagnostic } from 'vscode-languageserver-protocol/node'
import type {
  CodeIntelligenceSettings,
  CustomLanguageServer,
  FileDiagnostic,
  LanguageServerInfo,
  LanguageServerState,
  LanguageServerTest,
} from '../../src-shared/code-intelligence'
import { errorMessage } from '../../src-shared/errors'
import type { CodeIntelligence, CodeLocation, CodeSymbol } from '../tools/code-intelligence'
import { ToolError } from '../tools/errors'
import type { SandboxCommand } from '../tools/sandbox/policy'
import { LanguageServerProcess } from './language-server-process'
import { fromLocations, fromSymbols, hoverText, toFileDiagnostic } from './lsp-results'
import {
  extensionOf,
  type LanguageServerDefinition,
  languageIdOf,
  languageServerCatalog,
} from './server-catalog'

/** How long a server may take to answer `initialize` before it is ended as failed. */
const INITIALIZE_TIMEOUT_MS = 60_000
/** How long a server whose `initialize` failed is given to exit, so its end counts as a crash. */
const EXIT_WAIT_MS = 2000
/** How long Settings' Test waits for a server to start. */
const TEST_TIMEOUT_MS = 20_000
/** How long a question waits for the server to have analyzed the file before it is asked anyway. */
const ANALYSIS_WAIT_MS = 15_000
/** How many log lines each server keeps. */
const LOG_LINES = 200
/** How long the servers found on PATH and a folder's file endings are trusted before they are looked up again. */
const LOOKUP_TTL_MS = 30_000
/** How far into a folder its file endings are looked for: enough to see what a project is written in. */
const SCAN_ENTRIES = 5000
const SCAN_DEPTH = 6

export interface LanguageServersDeps {
  settings(): CodeIntelligenceSettings
  /**
   * The command as it will run: confined to read the project (and `readable`, the server's own
   * code) where the sandbox is on and works.
   */
  confine(command: SandboxCommand, folder: string, readable: readonly string[]): Promise<SandboxCommand>
  /** A server started, ended or failed. */
  changed(): void
  /** Where the test of a server runs; the OS temp folder by default. */
  scratch?: string
}

/** One server in one folder, across its restarts. */
interface ServerSlot {
  key: string
  definition: LanguageServerDefinition
  folder: string
  process?: LanguageServerProcess
  ready?: Promise<LanguageServerProcess>
  crashes: number
  failure?: string
  idle?: NodeJS.Timeout
}

export class LanguageServerService implements CodeIntelligence {
  private readonly slots = new Map<string, ServerSlot>()
  private readonly logs = new Map<string, string[]>()
  private readonly folderEndings = new Map<string, { at: number; endings: Set<string> }>()
  private catalog?: { at: number; key: string; definitions: LanguageServerDefinition[] }
  private closed = false

  constructor(private readonly deps: LanguageServersDeps) {}

  /** Every server known now, enabled or not, as Settings and `atelier lsp status` show them. Starts nothing. */
  status(): LanguageServerInfo[] {
    const settings = this.deps.settings()
    return this.definitions().map((definition) => {
      const slots = [...this.slots.values()].filter((slot) => slot.definition.id === definition.id)
      const failed = slots.find((slot) => slot.failure)
      const running = slots.filter((slot) => slot.process && !slot.process.ended)
      const state = failed
        ? 'failed'
        : running.length > 0
          ? 'running'
          : definition.argv
            ? 'available'
            : 'missing'
      return {
        id: definition.id,
        name: definition.name,
        languages: [...definition.extensions],
        origin: definition.origin,
        enabled: settings.enabled && !settings.disabled.includes(definition.id),
        state,
        ...(definition.argv && { command: definition.argv.join(' ') }),
        ...(!definition.argv && definition.installHint && { installHint: definition.installHint }),
        ...(failed?.failure && { error: failed.failure }),
        folders: running.map((slot) => slot.folder),
        log: this.logs.get(definition.id) ?? [],
      }
    })
  }

  /** The enabled, installed server for a file, by its ending; the person's own first. */
  serverFor(path: string): LanguageServerDefinition | undefined {
    const settings = this.deps.settings()
    if (!settings.enabled) return undefined
    const extension = extensionOf(path)
    const candidates = this.definitions().filter(
      (definition) =>
        definition.argv &&
        !settings.disabled.includes(definition.id) &&
        definition.extensions.includes(extension),
    )
    return candidates.find((definition) => definition.origin === 'custom') ?? candidates[0]
  }

  /** Whether an enabled, installed server that has not failed serves a kind of file found in `folder`: then the code tools are offered. */
  servesFolder(folder: string | null): boolean {
    return this.serving(folder).some(({ state }) => state !== 'failed')
  }

  /** The enabled servers that serve the kinds of files in `folder`, and how each is there. */
  serving(folder: string | null): { id: string; name: string; state: LanguageServerState }[] {
    if (folder === null || !this.deps.settings().enabled) return []
    const definitions = new Set(
      [...this.endingsIn(folder)].flatMap((ending) => this.serverFor(`file.${ending}`) ?? []),
    )
    return [...definitions].map((definition) => {
      const slot = this.slots.get(slotKey(definition, folder))
      const state = slot?.failure ? 'failed' : slot?.process && !slot.process.ended ? 'running' : 'available'
      return { id: definition.id, name: definition.name, state }
    })
  }

  /** The running (or starting) server of a file in `folder`; throws the ToolError a tool reports when there is none. */
  async serve(folder: string, path: string): Promise<LanguageServerProcess> {
    const definition = this.serverFor(path)
    if (!definition) {
      throw new ToolError(
        'validation_failed',
        `No language server is available for .${extensionOf(path) || '(no ending)'} files (see Settings → Code intelligence).`,
      )
    }
    return this.client(folder, definition)
  }

  /** Gives the server the file as it is on disk and waits for its diagnostics; an absent file has none. */
  async fileDiagnostics(folder: string, path: string): Promise<Diagnostic[]> {
    // Read now, not once the server has started: the "before" of an edit must be the file before it.
    const text = readTextOrUndefined(path)
    const server = await this.serve(folder, path)
    if (text === undefined) return []
    await server.sync(path, languageIdOf(path), text)
    return server.diagnosticsFor(path)
  }

  async diagnostics(
    folder: string,
    path: string | undefined,
    signal: AbortSignal,
  ): Promise<FileDiagnostic[]> {
    if (path !== undefined) {
      const found = await abortable(this.fileDiagnostics(folder, path), signal)
      return found.map((diagnostic) => toFileDiagnostic(path, diagnostic))
    }
    const all: FileDiagnostic[] = []
    for (const slot of this.slots.values()) {
      if (slot.folder !== folder || !slot.process || slot.process.ended) continue
      for (const [file, found] of slot.process.allDiagnostics()) {
        all.push(...found.map((diagnostic) => toFileDiagnostic(file, diagnostic)))
      }
    }
    return all
  }

  async definition(folder: string, at: CodeLocation, signal: AbortSignal): Promise<CodeLocation[]> {
    const server = await this.opened(folder, at.path, signal)
    return fromLocations(await server.request('textDocument/definition', positionParams(at), signal))
  }

  async references(folder: string, at: CodeLocation, signal: AbortSignal): Promise<CodeLocation[]> {
    const server = await this.opened(folder, at.path, signal)
    const params = { ...positionParams(at), context: { includeDeclaration: false } }
    return fromLocations(await server.request('textDocument/references', params, signal))
  }

  async hover(folder: string, at: CodeLocation, signal: AbortSignal): Promise<string | undefined> {
    const server = await this.opened(folder, at.path, signal)
    return hoverText(await server.request('textDocument/hover', positionParams(at), signal))
  }

  async symbols(
    folder: string,
    target: { path: string } | { query: string },
    signal: AbortSignal,
  ): Promise<CodeSymbol[]> {
    if ('path' in target) {
      const server = await this.opened(folder, target.path, signal)
      const params = { textDocument: { uri: pathToFileURL(target.path).href } }
      return fromSymbols(await server.request('textDocument/documentSymbol', params, signal), target.path)
    }
    // Every server of the folder's kinds of files is asked: a project may be written in several languages.
    const servers = [...this.endingsIn(folder)].flatMap((ending) => this.serverFor(`file.${ending}`) ?? [])
    const found: CodeSymbol[] = []
    for (const definition of new Set(servers)) {
      const server = await abortable(this.client(folder, definition), signal)
      found.push(
        ...fromSymbols(await server.request('workspace/symbol', { query: target.query }, signal), undefined),
      )
    }
    return found
  }

  /**
   * The files of `folder` its running servers were given that have changed on disk since (a
   * command rewrote them), each with what its server last said of it: the "before" of a check.
   */
  changedOnDisk(folder: string): { path: string; before: Diagnostic[] }[] {
    const changed: { path: string; before: Diagnostic[] }[] = []
    for (const slot of this.slots.values()) {
      const server = slot.process
      if (slot.folder !== folder || !server || server.ended) continue
      for (const [path, text] of server.syncedTexts()) {
        const now = readTextOrUndefined(path)
        if (now !== undefined && now !== text) changed.push({ path, before: server.latestDiagnostics(path) })
      }
    }
    return changed
  }

  /** Ends the servers the settings now switch off (or all of them, with code intelligence off). */
  endSwitchedOff(): void {
    const settings = this.deps.settings()
    for (const slot of this.slots.values()) {
      if (!settings.enabled || settings.disabled.includes(slot.definition.id)) void this.endSlot(slot)
    }
  }

  /** Ends the servers of folders no chat is bound to any more. */
  keepFolders(folders: readonly string[]): void {
    const kept = new Set(folders)
    for (const slot of this.slots.values()) if (!kept.has(slot.folder)) void this.endSlot(slot)
  }

  /**
   * Starts a server — a known one by id, or one being configured — in an empty scratch folder, and
   * reports what it says it can do; it is ended after.
   */
  async test(request: { id: string } | { server: CustomLanguageServer }): Promise<LanguageServerTest> {
    const definition =
      'server' in request
        ? languageServerCatalog([request.server]).find((found) => found.origin === 'custom')
        : this.definitions().find((found) => found.id === request.id)
    if (!definition)
      return { ok: false, error: `No language server is called "${'id' in request ? request.id : ''}".` }
    if (!definition.argv)
      return { ok: false, error: definition.installHint ?? `${definition.name} is not installed.` }
    const folder = mkdtempSync(join(this.deps.scratch ?? tmpdir(), 'atelier-lsp-test-'))
    const lines: string[] = []
    let server: LanguageServerProcess | undefined
    const started = performance.now()
    try {
      const [file = '', ...args] = definition.argv
      server = new LanguageServerProcess({
        name: definition.name,
        folder,
        command: await this.deps.confine(
          { file, args, cwd: folder, env: process.env },
          folder,
          definition.readable ?? [],
        ),
        initializationOptions: definition.initializationOptions,
        onExit: () => {},
        log: (line) => lines.push(line),
      })
      await withTimeout(
        server.initialize(),
        TEST_TIMEOUT_MS,
        `it did not answer within ${TEST_TIMEOUT_MS / 1000} s`,
      )
      // A test is a fresh start: a server that failed before may run again.
      for (const slot of this.slots.values()) {
        if (slot.definition.id !== definition.id) continue
        slot.failure = undefined
        slot.crashes = 0
      }
      const capabilities = Object.entries(server.capabilities ?? {})
        .filter(([, value]) => value !== false && value !== undefined && value !== null)
        .map(([name]) => name)
      const info = server.serverInfo
      return {
        ok: true,
        ...(info && { server: [info.name, info.version].filter(Boolean).join(' ') }),
        capabilities,
        durationMs: performance.now() - started,
      }
    } catch (error) {
      const said = lines.slice(-3).join(' / ')
      return {
        ok: false,
        error: `${definition.name} did not start: ${errorMessage(error)}${said ? ` (it said: ${said})` : ''}`,
      }
    } finally {
      await server?.end()
      rmSync(folder, { recursive: true, force: true })
      this.deps.changed()
    }
  }

  /** Ends every server; settles when all of them (and what they started) have ended. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.slots.values()].map((slot) => this.endSlot(slot)))
  }

  /** The file, synced from disk, in a started server. */
  private async opened(folder: string, path: string, signal: AbortSignal): Promise<LanguageServerProcess> {
    const server = await abortable(this.serve(folder, path), signal)
    const text = readTextOrUndefined(path)
    if (text === undefined) throw new ToolError('not_found', `No file at "${path}".`)
    await server.sync(path, languageIdOf(path), text)
    // A server answers from what it has loaded: right after a start, TypeScript's knows only the
    // open file (a definition would be the import). Its first diagnostics mean it has the program.
    await abortable(settleWithin(server.diagnosticsFor(path), ANALYSIS_WAIT_MS), signal)
    return server
  }

  private client(folder: string, definition: LanguageServerDefinition): Promise<LanguageServerProcess> {
    if (this.closed) return Promise.reject(new ToolError('execution_failed', 'Atelier is closing.'))
    const key = slotKey(definition, folder)
    let slot = this.slots.get(key)
    if (!slot) {
      slot = { key, definition, folder, crashes: 0 }
      this.slots.set(key, slot)
    }
    if (slot.failure) return Promise.reject(new ToolError('execution_failed', slot.failure))
    this.touch(slot)
    return slot.ready ?? this.start(slot)
  }

  /** A start; when its process dies before it is ready, the restart (or the failure) that follows. */
  private start(slot: ServerSlot): Promise<LanguageServerProcess> {
    const attempt: Promise<LanguageServerProcess> = this.launch(slot).catch((error) => {
      // The exit was counted as a crash: the one restart is under way, or the server has failed.
      if (slot.ready && slot.ready !== attempt) return slot.ready
      slot.failure ??= `${slot.definition.name} could not be started: ${errorMessage(error)}`
      slot.ready = undefined
      this.deps.changed()
      throw new ToolError('execution_failed', slot.failure)
    })
    slot.ready = attempt
    return attempt
  }

  private async launch(slot: ServerSlot): Promise<LanguageServerProcess> {
    const { definition, folder } = slot
    const [file = '', ...args] = definition.argv ?? []
    const command = await this.deps.confine(
      { file, args, cwd: folder, env: process.env },
      folder,
      definition.readable ?? [],
    )
    const log = (line: string) => this.log(definition.id, `${folder}: ${line}`)
    log(`starting ${[file, ...args].join(' ')}`)
    const server: LanguageServerProcess = new LanguageServerProcess({
      name: definition.name,
      folder,
      command,
      initializationOptions: definition.initializationOptions,
      onExit: (expected, reason) => this.exited(slot, server, expected, reason),
      log,
    })
    slot.process = server
    this.deps.changed()
    try {
      await withTimeout(
        server.initialize(),
        INITIALIZE_TIMEOUT_MS,
        `it did not answer "initialize" within ${INITIALIZE_TIMEOUT_MS / 1000} s`,
      )
    } catch (error) {
      // A server that died may fail `initialize` before its exit is seen: the exit, counted as a
      // crash, decides what follows. One still there after a moment is hung, and ended as failed.
      await settleWithin(server.whenEnded, EXIT_WAIT_MS)
      if (!server.ended) {
        slot.failure = `${definition.name} could not be started: ${errorMessage(error)}`
        await server.end()
      }
      throw error
    }
    log('ready')
    return server
  }

  private exited(slot: ServerSlot, server: LanguageServerProcess, expected: boolean, reason: string): void {
    if (slot.process === server) slot.process = undefined
    this.deps.changed()
    if (expected || this.closed || slot.failure) return
    slot.crashes += 1
    if (slot.crashes >= 2) {
      slot.failure = `${slot.definition.name} crashed again after its restart (${reason}); it is not restarted until it is tested in Settings → Code intelligence.`
      slot.ready = undefined
      this.log(slot.definition.id, `${slot.folder}: failed: ${reason}`)
      return
    }
    this.log(slot.definition.id, `${slot.folder}: crashed (${reason}); restarting once`)
    this.start(slot).catch(() => {})
  }

  private touch(slot: ServerSlot): void {
    clearTimeout(slot.idle)
    const idleMs = this.deps.settings().idleMinutes * 60_000
    slot.idle = setTimeout(() => {
      this.log(slot.definition.id, `${slot.folder}: idle for ${idleMs / 60_000} min; ending`)
      this.endSlot(slot)
    }, idleMs)
    slot.idle.unref()
  }

  private async endSlot(slot: ServerSlot): Promise<void> {
    clearTimeout(slot.idle)
    this.slots.delete(slot.key)
    const { process: server } = slot
    slot.ready = undefined
    if (server) await server.end()
  }

  private log(id: string, line: string): void {
    const lines = this.logs.get(id) ?? []
    lines.push(`${new Date().toISOString()} ${line}`)
    if (lines.length > LOG_LINES) lines.splice(0, lines.length - LOG_LINES)
    this.logs.set(id, lines)
  }

  private definitions(): LanguageServerDefinition[] {
    const custom = this.deps.settings().servers
    const key = JSON.stringify(custom)
    const now = Date.now()
    if (!this.catalog || this.catalog.key !== key || now - this.catalog.at > LOOKUP_TTL_MS) {
      this.catalog = { at: now, key, definitions: languageServerCatalog(custom) }
    }
    return this.catalog.definitions
  }

  /** The file endings found in a folder (dot-folders and node_modules aside), looked up again now and then. */
  private endingsIn(folder: string): Set<string> {
    const cached = this.folderEndings.get(folder)
    if (cached && Date.now() - cached.at < LOOKUP_TTL_MS) return cached.endings
    const endings = new Set<string>()
    let seen = 0
    const visit = (dir: string, depth: number) => {
      let entries: import('node:fs').Dirent[]
      try {
        entries = readdirSync(dir, { withFileTypes: true })
      } catch {
        return
      }
      for (const entry of entries) {
        if (++seen > SCAN_ENTRIES) return
        if (entry.isFile()) {
          const ending = extensionOf(entry.name)
          if (ending) endings.add(ending)
        } else if (entry.isDirectory() && depth < SCAN_DEPTH && !entry.name.startsWith('.')) {
          if (entry.name !== 'node_modules') visit(join(dir, entry.name), depth + 1)
        }
      }
    }
    visit(folder, 0)
    this.folderEndings.set(folder, { at: Date.now(), endings })
    return endings
  }
}

function slotKey(definition: LanguageServerDefinition, folder: string): string {
  return `${definition.id}\0${folder}`
}

function positionParams(at: CodeLocation) {
  return {
    textDocument: { uri: pathToFileURL(at.path).href },
    position: { line: Math.max(0, at.line - 1), character: Math.max(0, at.column - 1) },
  }
}

function readTextOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** Settles when the promise does, or after `ms` at the latest, whichever comes first. */
async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms)
  })
  await Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** A promise that rejects as soon as the signal stops it. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted()
  let onAbort = () => {}
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
  })
  return Promise.race([promise, stopped]).finally(() => signal.removeEventListener('abort', onAbort))
}
