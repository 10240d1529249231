/**
 * One language server process for one folder, spoken to over stdio with the LSP client library:
 * started, initialized, kept in step with the files Atelier looks at (whole-text syncs), and asked
 * questions. Diagnostics are pushed by servers when they please, so the latest set of each file is
 * kept, with a way to wait for the set that follows a given change.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createMessageConnection, type MessageConnection } from 'vscode-jsonrpc/node'
import {
  type Diagnostic,
  DidChangeTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  type InitializeResult,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  WorkDoneProgress,
  type WorkDoneProgressBegin,
  type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
} from 'vscode-languageserver-protocol/node'
import { closeProcessTree } from '../tools/mcp/process-tree'
import type { SandboxCommand } from '../tools/sandbox/policy'

/** How long `shutdown` may take before the process tree is ended anyway. */
const SHUTDOWN_MS = 1000
/**
 * After a server's work (loading a project) ends, how long it gets to publish what it now knows
 * before what it published during the work is taken as its answer.
 */
const AFTER_WORK_MS = 500
/** How long a server that does not version its diagnostics must say nothing more about a file for its last publish to be its answer. */
const QUIET_MS = 250

/** The latest diagnostics a server published for one file, and when. */
interface PublishedDiagnostics {
  diagnostics: Diagnostic[]
  /** Counts publishes across the whole server, so "after this change" can be told. */
  sequence: number
  /** The document version they are about, when the server says. */
  version: number | undefined
  /** When they came (performance.now()). */
  at: number
}

interface SyncedDocument {
  version: number
  text: string
  /** The publish sequence when the latest change was sent: a publish after it is about this text. */
  changedAt: number
}

interface DiagnosticsWaiter {
  uri: string
  after: number
  version: number
  resolve: () => void
}

/** What a server process needs to start: where, how, and what to call its file kinds. */
export interface LanguageServerLaunch {
  /** Its name in the log and in errors. */
  name: string
  folder: string
  command: SandboxCommand
  initializationOptions?: unknown
  /** Called once the process has ended, whoever ended it; `expected` when Atelier ended it. */
  onExit: (expected: boolean, reason: string) => void
  /** A line for the server's log. */
  log: (line: string) => void
}

export class LanguageServerProcess {
  private readonly child: ChildProcess
  private readonly connection: MessageConnection
  private readonly documents = new Map<string, SyncedDocument>()
  private readonly published = new Map<string, PublishedDiagnostics>()
  private readonly waiters = new Set<DiagnosticsWaiter>()
  private sequence = 0
  /** The server's work in progress (a project loading), by token: what it publishes meanwhile may be partial. */
  private readonly working = new Set<string | number>()
  private afterWork?: NodeJS.Timeout
  private ending?: Promise<void>
  private exited = false
  private markEnded = () => {}
  /** Settles once the process has ended, whoever ended it. */
  readonly whenEnded = new Promise<void>((resolve) => {
    this.markEnded = resolve
  })
  /** Set once `initialize` has been answered. */
  capabilities?: InitializeResult['capabilities']
  serverInfo?: InitializeResult['serverInfo']

  constructor(private readonly launch: LanguageServerLaunch) {
    const { command } = launch
    this.child = spawn(command.file, command.args, {
      cwd: command.cwd,
      env: command.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    this.child.stderr?.setEncoding('utf8')
    this.child.stderr?.on('data', (text: string) => {
      for (const line of text.split('\n')) if (line.trim()) launch.log(line)
    })
    this.connection = createMessageConnection(
      new StreamMessageReader(this.child.stdout as NodeJS.ReadableStream),
      new StreamMessageWriter(this.child.stdin as NodeJS.WritableStream),
    )
    // A server that dies mid-write leaves EPIPE on its stdin: the exit says what happened.
    this.child.stdin?.on('error', () => {})
    this.connection.onError(([error]) => launch.log(`connection error: ${error.message}`))
    this.connection.onNotification(PublishDiagnosticsNotification.type, ({ uri, diagnostics, version }) =>
      this.onPublish(uri, diagnostics, version),
    )
    // What servers ask of a client Atelier does not play (configuration, progress, registrations) gets the empty answer.
    this.connection.onRequest((method, params) => {
      if (method === 'workspace/configuration') {
        const items = (params as { items?: unknown[] } | undefined)?.items ?? []
        return items.map(() => null)
      }
      if (method === 'workspace/workspaceFolders') return [this.workspaceFolder()]
      if (method === 'window/workDoneProgress/create') {
        const { token } = params as { token: string | number }
        this.connection.onProgress(WorkDoneProgress.type, token, (value) => this.onProgress(token, value))
      }
      return null
    })
    this.connection.onNotification('window/logMessage', (params: { message?: string }) => {
      if (params.message) launch.log(params.message)
    })
    this.child.on('error', (error) => this.exit(`it could not be started: ${error.message}`))
    this.child.on('exit', (code, signal) =>
      this.exit(signal ? `it was ended by ${signal}` : `it exited with code ${code}`),
    )
    this.connection.listen()
  }

  get pid(): number | undefined {
    return this.child.pid
  }

  /** Whether the process has ended. */
  get ended(): boolean {
    return this.exited
  }

  /** Sends `initialize` and `initialized`; rejects when the process ends first. */
  async initialize(): Promise<void> {
    const root = this.workspaceFolder()
    const ended = new Promise<never>((_, reject) => {
      this.child.once('exit', () => reject(new Error('it ended before it was ready')))
      this.child.once('error', (error) => reject(error))
    })
    ended.catch(() => {})
    const result = await Promise.race([
      this.connection.sendRequest('initialize', {
        // No parent to watch: a server confined in its own PID namespace would find no such process
        // and exit. Atelier ends its servers itself, and the sandbox ends them with it.
        processId: null,
        clientInfo: { name: 'Atelier' },
        rootUri: root.uri,
        workspaceFolders: [root],
        initializationOptions: this.launch.initializationOptions,
        capabilities: {
          textDocument: {
            synchronization: { didSave: false, dynamicRegistration: false },
            publishDiagnostics: { versionSupport: true, relatedInformation: false },
            definition: { linkSupport: false },
            references: {},
            hover: { contentFormat: ['plaintext', 'markdown'] },
            documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          },
          workspace: { workspaceFolders: true, configuration: true, symbol: {} },
          // So a server says when it is loading a project, whose diagnostics until then are partial.
          window: { workDoneProgress: true },
        },
      }) as Promise<InitializeResult>,
      ended,
    ])
    this.capabilities = result.capabilities
    this.serverInfo = result.serverInfo
    await this.connection.sendNotification(InitializedNotification.type, {})
  }

  /**
   * Brings the server's copy of a file to `text` (opening it the first time). Returns the
   * document's version, whose diagnostics `diagnosticsFor` waits for.
   */
  async sync(path: string, languageId: string, text: string): Promise<number> {
    const uri = pathToFileURL(path).href
    const known = this.documents.get(uri)
    if (known?.text === text) return known.version
    const version = (known?.version ?? 0) + 1
    this.documents.set(uri, { version, text, changedAt: this.sequence })
    if (!known) {
      await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri, languageId, version, text },
      })
    } else {
      await this.connection.sendNotification(DidChangeTextDocumentNotification.type, {
        textDocument: { uri, version },
        contentChanges: [{ text }],
      })
    }
    return version
  }

  /** The files this server has been given, by path, with the text it was given. */
  syncedTexts(): Map<string, string> {
    return new Map([...this.documents].map(([uri, { text }]) => [fileURLToPath(uri), text]))
  }

  /** The latest diagnostics the server published for a file, without waiting. */
  latestDiagnostics(path: string): Diagnostic[] {
    return this.published.get(pathToFileURL(path).href)?.diagnostics ?? []
  }

  /**
   * The diagnostics of a synced file's current text: at once when the server has published them
   * since the last change, else the next publish about it. A server that does not version its
   * publishes may send them in parts (TypeScript's: syntax, then types), so its answer is its last
   * publish once it has been quiet about the file for QUIET_MS. Resolves when the server answers,
   * never rejects; the caller bounds the wait.
   */
  async diagnosticsFor(path: string): Promise<Diagnostic[]> {
    const uri = pathToFileURL(path).href
    await this.publishedSinceChange(uri)
    for (;;) {
      const latest = this.published.get(uri)
      if (!latest || latest.version !== undefined || this.exited) return latest?.diagnostics ?? []
      const quietFor = performance.now() - latest.at
      if (quietFor >= QUIET_MS && this.working.size === 0) return latest.diagnostics
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS - Math.min(quietFor, QUIET_MS - 10)))
    }
  }

  /** Settles once the server has published about the document since its latest change. */
  private publishedSinceChange(uri: string): Promise<void> {
    const document = this.documents.get(uri)
    const latest = this.published.get(uri)
    if (!document || (latest && latest.sequence > document.changedAt && this.working.size === 0)) {
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      this.waiters.add({ uri, after: document.changedAt, version: document.version, resolve })
    })
  }

  /** Every file's latest diagnostics, by path. */
  allDiagnostics(): Map<string, Diagnostic[]> {
    return new Map([...this.published].map(([uri, { diagnostics }]) => [fileURLToPath(uri), diagnostics]))
  }

  /** A request to the server; rejects when it fails or the signal stops it. */
  async request<R>(method: string, params: unknown, signal: AbortSignal): Promise<R> {
    signal.throwIfAborted()
    const stopped = new Promise<never>((_, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason), { once: true })
    })
    stopped.catch(() => {})
    return Promise.race([this.connection.sendRequest(method, params) as Promise<R>, stopped])
  }

  /** Asks the server to shut down, then ends its process tree; settles when it is gone. */
  end(): Promise<void> {
    this.ending ??= (async () => {
      clearTimeout(this.afterWork)
      if (!this.exited) {
        const polite = (async () => {
          await this.connection.sendRequest(ShutdownRequest.type)
          await this.connection.sendNotification(ExitNotification.type)
        })().catch(() => {})
        await Promise.race([polite, new Promise((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref())])
      }
      await closeProcessTree(this.child.pid ?? null, async () => {
        if (!this.exited) this.child.kill('SIGTERM')
      })
      this.connection.dispose()
    })()
    return this.ending
  }

  private onPublish(uri: string, diagnostics: Diagnostic[], version: number | undefined): void {
    this.sequence += 1
    const document = this.documents.get(uri)
    // A publish about an older version than the server was given is stale: the next one is coming.
    if (document && version !== undefined && version < document.version) return
    this.published.set(uri, { diagnostics, sequence: this.sequence, version, at: performance.now() })
    if (this.working.size === 0) this.answerWaiters()
  }

  /** Answers every waiter whose file has been published about since its change. */
  private answerWaiters(): void {
    for (const waiter of this.waiters) {
      const latest = this.published.get(waiter.uri)
      if (!latest || latest.sequence <= waiter.after) continue
      if (latest.version !== undefined && latest.version < waiter.version) continue
      this.waiters.delete(waiter)
      waiter.resolve()
    }
  }

  private onProgress(
    token: string | number,
    value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd,
  ): void {
    if (value.kind === 'begin') {
      this.working.add(token)
      clearTimeout(this.afterWork)
    }
    if (value.kind !== 'end' || !this.working.delete(token) || this.working.size > 0) return
    this.afterWork = setTimeout(() => this.answerWaiters(), AFTER_WORK_MS)
  }

  private exit(reason: string): void {
    if (this.exited) return
    this.exited = true
    this.markEnded()
    clearTimeout(this.afterWork)
    this.launch.log(`ended: ${reason}`)
    this.launch.onExit(this.ending !== undefined, reason)
  }

  private workspaceFolder() {
    return {
      uri: pathToFileURL(this.launch.folder).href,
      name: this.launch.folder.split(/[\\/]/).pop() ?? '',
    }
  }
}
