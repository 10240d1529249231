/**
 * The app's side of one tool folder's host process: starts it, loads the folder's modules in it,
 * sends it calls and serves what they ask for (programs to run, log lines, the person's answers).
 * A host that crashes fails the calls it had ("the tool host stopped") and starts again at the next
 * call; one that stops answering after a call was stopped is stuck in the person's code, and is killed.
 */

import { type ChildProcess, fork } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CustomToolMessage, CustomToolTheme } from '../../../src-custom-tool/index'
import type { CustomToolLoadError } from '../../../src-shared/custom-tools'
import { errorMessage } from '../../../src-shared/errors'
import type { ToolProgress } from '../../../src-shared/tools'
import { FatalToolError, ToolError } from '../errors'
import { runShellCommand } from '../processes'
import type { ConfineProgram } from '../sandbox/command-sandbox'
import type { ToolCallRecord, ToolHost } from '../types'
import type { FromHost, HostedResult, HostedToolInfo, SessionEvent, ToHost } from './host-protocol'

/** A started host: a message channel and a way to end it. Node's fork, or Electron's utility process. */
export interface HostChannel {
  send(message: ToHost): void
  onMessage(listener: (message: FromHost) => void): void
  onExit(listener: (code: number | null) => void): void
  /** What the host printed outside any module (a crash's stack). */
  onOutput(listener: (text: string) => void): void
  kill(): void
}

/** Starts a host with `env` as its whole environment (the folder's: see `ToolHostOptions.env`). */
export type SpawnHost = (entry: string, execArgv: string[], env: NodeJS.ProcessEnv) => HostChannel

/** How long a host has to answer a ping after a call was stopped before it counts as stuck. */
const STUCK_AFTER_MS = 1000
/** How long the modules' `onSession(shutdown)` handlers may take before the host is ended anyway. */
const SHUTDOWN_WAIT_MS = 2000
/** Per stream, what `api.exec` keeps of a program's output (head and tail). */
export const EXEC_MAX_OUTPUT_BYTES = 10 * 1024 * 1024
/**
 * How long a host may take to load its modules: every turn's tools wait for it, so a factory that
 * never returns must not hold them long. Loading a large module compiles in well under a second.
 */
const LOAD_TIMEOUT_MS = 10_000

export function nodeHost(entry: string, execArgv: string[], env: NodeJS.ProcessEnv): HostChannel {
  const child: ChildProcess = fork(entry, [], {
    execArgv,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'json',
  })
  return {
    send: (message) => {
      // A host that dies as a message goes out fails the write (EPIPE): its exit says so already.
      if (child.connected) child.send(message, () => {})
    },
    onMessage: (listener) => child.on('message', (message) => listener(message as FromHost)),
    onExit: (listener) => child.once('exit', (code) => listener(code)),
    onOutput: (listener) => {
      child.stdout?.on('data', (chunk: Buffer) => listener(chunk.toString('utf8')))
      child.stderr?.on('data', (chunk: Buffer) => listener(chunk.toString('utf8')))
    },
    kill: () => child.kill('SIGKILL'),
  }
}

/**
 * The host's entry and how to run it: the built `custom-tool-host.js` beside the bundle, or the
 * source through tsx (tests, `npm run example:tools`).
 */
export function hostEntry(): { entry: string; execArgv: string[] } {
  for (const candidate of ['./custom-tool-host.js', '../custom-tool-host.js']) {
    const url = new URL(candidate, import.meta.url)
    if (existsSync(url)) return { entry: fileURLToPath(url), execArgv: [] }
  }
  return { entry: fileURLToPath(new URL('./host.ts', import.meta.url)), execArgv: ['--import', 'tsx'] }
}

/**
 * What the modules import by name: Atelier's own typebox (its package root) and `atelier` — its
 * module contract alone, not the package's whole entry, which would load the app into every host.
 */
export function moduleAliases(): Record<string, string> {
  const typebox = packageRoot(
    '@sinclair/typebox',
    createRequire(import.meta.url).resolve('@sinclair/typebox'),
  )
  const built = ['./custom-tool-contract.js', '../custom-tool-contract.js']
    .map((candidate) => new URL(candidate, import.meta.url))
    .find((url) => existsSync(url))
  const atelier = built ?? new URL('../../../src-custom-tool/index.ts', import.meta.url)
  return { '@sinclair/typebox': typebox, atelier: fileURLToPath(atelier) }
}

/** The folder of a package, found up from its entry file (its exports hide its package.json). */
function packageRoot(name: string, entry: string): string {
  for (let folder = dirname(entry); dirname(folder) !== folder; folder = dirname(folder)) {
    const manifest = join(folder, 'package.json')
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === name) return folder
  }
  // Plain: a broken install (the package resolved, its folder not), which no caller can act on.
  throw new Error(`The package ${name} was not found above ${entry}.`)
}

function closedError(): ToolError {
  return new ToolError(
    'execution_failed',
    "The tool's folder was reloaded or closed while this call waited; call the tool again.",
  )
}

export interface LoadOutcome {
  tools: HostedToolInfo[]
  errors: { file: string; error: CustomToolLoadError }[]
}

export interface ToolHostOptions {
  files: string[]
  /**
   * Which of `files` may load now, asked each time the host starts: one that starts again after a
   * crash reads the files anew, and a project's module changed since it was trusted must not come
   * in that way.
   */
  admit(files: string[]): string[]
  hasUI: boolean
  home: string
  spawn: SpawnHost
  /**
   * The environment of the host and of the programs its modules start (`api.exec`): the shell's
   * allowlist and the variables the person passes to this folder — never Atelier's whole
   * environment, whose provider keys and tokens the modules have no business with.
   */
  env: NodeJS.ProcessEnv
  /** Confines the programs its modules start, in the call's folder; without it they run as they are. */
  confine?: ConfineProgram
  /** A module's log line (its logger, its console, its failed hooks). */
  log(file: string, level: string, message: string): void
  /** What the host printed outside any module, and why it ended. */
  hostLog(message: string): void
  /** Said whenever the host starts or ends. */
  onStateChange(): void
  /** The app's colours as it shows now, for the render hooks of a call. */
  theme(): CustomToolTheme
  /** A chat's messages, for a module's `sessionManager`. */
  messages(chatId: string): CustomToolMessage[]
}

interface RunningCall {
  record: ToolCallRecord
  host: ToolHost
  resolve(result: HostedResult): void
  reject(error: unknown): void
}

interface Started {
  channel: HostChannel
  loaded: Promise<LoadOutcome>
  exited: Promise<void>
}

export class ToolHostProcess {
  private started: Started | undefined
  private readonly calls = new Map<string, RunningCall>()
  private readonly execs = new Map<string, AbortController>()
  /** Set while a stopped call's host is being checked for being stuck; calls wait for it. */
  private checking: Promise<void> | undefined
  private pong: (() => void) | undefined
  private stopping = false
  /**
   * Set by `stop`: the folder was reloaded, untrusted or the app closes. A call that waited past it
   * (for the person's approval) must not start the old host again: nobody would end it, and an
   * untrusted folder's code would run.
   */
  private closed = false

  constructor(private readonly options: ToolHostOptions) {}

  get running(): boolean {
    return this.started !== undefined
  }

  /**
   * Whether a call is running that someone waits for. A stopped call may go on in the host (its
   * code ignores the signal, maybe for ever); its result was given already, so it holds no reload back.
   */
  get busy(): boolean {
    return [...this.calls.values()].some((call) => !call.host.signal.aborted)
  }

  /** Tells a running host's modules of a session event (onSession); a host not running hears nothing. */
  session(event: SessionEvent, cwd: string): void {
    if (!this.closed) this.started?.channel.send({ type: 'session', event, cwd })
  }

  /** Starts the host (when it is not running) and says what loading the folder's modules gave. */
  load(): Promise<LoadOutcome> {
    if (this.closed) return Promise.reject(closedError())
    return this.start().loaded
  }

  async run(record: ToolCallRecord, host: ToolHost): Promise<HostedResult> {
    await this.checking
    if (this.closed) throw closedError()
    const started = this.start()
    await started.loaded
    // Stopped while its host was starting (or checked for being stuck): it must not run at all.
    host.signal.throwIfAborted()
    const id = randomUUID()
    return new Promise<HostedResult>((resolve, reject) => {
      this.calls.set(id, { record, host, resolve, reject })
      const onAbort = () => {
        started.channel.send({ type: 'abort', id, reason: String(host.signal.reason?.message ?? 'stopped') })
        this.checkStuck(started)
      }
      host.signal.addEventListener('abort', onAbort, { once: true })
      const settle = () => {
        host.signal.removeEventListener('abort', onAbort)
        this.calls.delete(id)
      }
      const call = this.calls.get(id) as RunningCall
      call.resolve = (result) => {
        settle()
        resolve(result)
      }
      call.reject = (error) => {
        settle()
        reject(error)
      }
      started.channel.send({
        type: 'call',
        id,
        tool: record.tool,
        args: record.args,
        context: {
          toolCallId: record.callId,
          chatId: record.chatId,
          cwd:
            record.mode === 'agent' && record.workingDirectory ? record.workingDirectory : this.options.home,
          mode: record.mode,
          settings: record.settings.parameters,
          model: record.model ?? null,
          theme: this.options.theme(),
        },
      })
    })
  }

  /** Sends `onSession(shutdown)` to the modules, then ends the host; running calls fail. */
  async stop(): Promise<void> {
    this.closed = true
    const started = this.started
    if (!started) return
    this.stopping = true
    let waited: NodeJS.Timeout | undefined
    const done = new Promise<void>((resolve) => {
      waited = setTimeout(resolve, SHUTDOWN_WAIT_MS)
      started.channel.onMessage((message) => {
        if (message.type === 'shutdown-done') resolve()
      })
    })
    started.channel.send({ type: 'shutdown' })
    await Promise.race([done, started.exited])
    clearTimeout(waited)
    started.channel.kill()
    await started.exited
    this.stopping = false
  }

  private start(): Started {
    if (this.started) return this.started
    const { entry, execArgv } = hostEntry()
    const aliases = moduleAliases()
    const channel = this.options.spawn(entry, execArgv, this.options.env)
    let loadedResolve: (outcome: LoadOutcome) => void = () => {}
    let loadedReject: (error: unknown) => void = () => {}
    const loaded = new Promise<LoadOutcome>((resolve, reject) => {
      loadedResolve = resolve
      loadedReject = reject
    })
    loaded.catch(() => {})
    const loadTimer = setTimeout(() => {
      const seconds = LOAD_TIMEOUT_MS / 1000
      loadedReject(
        new ToolError(
          'execution_failed',
          `The tool folder did not finish loading in ${seconds} s (a factory that never returns?).`,
        ),
      )
      channel.kill()
    }, LOAD_TIMEOUT_MS)
    const exited = new Promise<void>((resolve) => {
      channel.onExit((code) => {
        clearTimeout(loadTimer)
        if (this.started?.channel === channel) this.started = undefined
        if (!this.stopping) this.options.hostLog(`The tool host stopped (exit code ${code ?? 'none'}).`)
        const stopped = new ToolError('execution_failed', 'The tool host stopped.')
        loadedReject(stopped)
        for (const call of this.calls.values()) call.reject(stopped)
        for (const exec of this.execs.values()) exec.abort()
        this.execs.clear()
        this.pong?.()
        this.options.onStateChange()
        resolve()
      })
    })
    channel.onOutput((text) => this.options.hostLog(text.trimEnd()))
    channel.onMessage((message) => {
      if (message.type === 'loaded') {
        clearTimeout(loadTimer)
        loadedResolve({ tools: message.tools, errors: message.errors })
      } else this.handle(channel, message)
    })
    channel.send({
      type: 'load',
      files: this.options.admit(this.options.files),
      hasUI: this.options.hasUI,
      home: this.options.home,
      aliases,
    })
    this.started = { channel, loaded, exited }
    this.options.onStateChange()
    return this.started
  }

  private handle(channel: HostChannel, message: FromHost): void {
    const call = 'id' in message && message.id ? this.calls.get(message.id) : undefined
    // A stopped call has its result already: what it streams or asks for now reaches nobody.
    const live = call?.host.signal.aborted ? undefined : call
    switch (message.type) {
      case 'update':
        live?.host.onUpdate({ kind: 'partial', ...message.partial })
        return
      case 'notify': {
        const progress: ToolProgress = {
          kind: 'output',
          stream: message.level === 'info' ? 'stdout' : 'stderr',
          text: `${message.message}\n`,
        }
        live?.host.onUpdate(progress)
        return
      }
      case 'result':
        call?.resolve(message.result)
        return
      case 'failed':
        call?.reject(
          message.fatal
            ? new FatalToolError(
                message.message,
                message.fatal.cause === undefined ? undefined : message.fatal,
              )
            : new Error(message.message),
        )
        return
      case 'messages':
        channel.send({
          type: 'messages-read',
          readId: message.readId,
          messages: message.chatId === null ? [] : this.readMessages(message.chatId),
        })
        return
      case 'abort-turn':
        if (live?.host.abortTurn) live.host.abortTurn(message.reason)
        else live?.reject(new ToolError('aborted', message.reason))
        return
      case 'exec':
        void this.exec(channel, message, call)
        return
      case 'exec-cancel':
        this.execs.get(message.execId)?.abort()
        return
      case 'confirm':
        void this.confirm(channel, message, call)
        return
      case 'log':
        this.options.log(message.file, message.level, message.message)
        return
      case 'pong':
        this.pong?.()
        return
    }
  }

  /** A chat that is gone (deleted meanwhile) has no messages to read. */
  private readMessages(chatId: string): CustomToolMessage[] {
    try {
      return this.options.messages(chatId)
    } catch {
      return []
    }
  }

  /** The program runs in the app, so it ends with its call even when the host is stuck or gone. */
  private async exec(
    channel: HostChannel,
    message: Extract<FromHost, { type: 'exec' }>,
    call: RunningCall | undefined,
  ): Promise<void> {
    const callSignal = call?.host.signal
    if (callSignal?.aborted) {
      // A stopped call that starts a program without passing its signal on: it never runs.
      channel.send({
        type: 'exec-done',
        execId: message.execId,
        result: { stdout: '', stderr: '', code: null, killed: true },
      })
      return
    }
    const controller = new AbortController()
    this.execs.set(message.execId, controller)
    const onCallStop = () => controller.abort()
    callSignal?.addEventListener('abort', onCallStop, { once: true })
    const untilDeadline = call ? Math.max(1, call.record.deadline - Date.now()) : LOAD_TIMEOUT_MS
    const command = { file: message.command, args: message.args, cwd: message.cwd, env: this.options.env }
    // The call's folder, never the cwd the module asked for: that is where it may write.
    const record = call?.record
    const folder = record?.mode === 'agent' ? record.workingDirectory : null
    const confined = await this.options.confine?.(command, folder)
    const result = await runShellCommand({
      ...(confined?.command ?? command),
      timeoutMs: message.timeoutMs ?? untilDeadline,
      maxOutputBytes: EXEC_MAX_OUTPUT_BYTES,
      signal: controller.signal,
    }).finally(() => confined?.done())
    callSignal?.removeEventListener('abort', onCallStop)
    this.execs.delete(message.execId)
    channel.send({
      type: 'exec-done',
      execId: message.execId,
      result: {
        stdout: result.stdout,
        stderr: result.stderr,
        code: result.exitCode,
        killed: result.termination !== 'exited',
      },
    })
  }

  private async confirm(
    channel: HostChannel,
    message: Extract<FromHost, { type: 'confirm' }>,
    call: RunningCall | undefined,
  ): Promise<void> {
    const ask = call?.host.ask
    if (!call || !ask) {
      channel.send({
        type: 'confirmed',
        confirmId: message.confirmId,
        accepted: false,
        error: 'Nobody can confirm a pending action here (no chat is watching this call).',
      })
      return
    }
    try {
      const answer = await ask({ kind: 'confirmation', action: message.action }, call.host.signal)
      if ('decision' in answer && answer.decision === 'unanswered') {
        channel.send({
          type: 'confirmed',
          confirmId: message.confirmId,
          accepted: false,
          error: answer.reason,
        })
        return
      }
      const accepted = 'decision' in answer && answer.decision !== 'deny'
      channel.send({ type: 'confirmed', confirmId: message.confirmId, accepted })
    } catch (error) {
      channel.send({
        type: 'confirmed',
        confirmId: message.confirmId,
        accepted: false,
        error: errorMessage(error),
      })
    }
  }

  /**
   * After a stop, a host that answers a ping is fine (the call may finish late; nobody waits for
   * it). One that does not is running the person's code without end, and is killed.
   */
  private checkStuck(started: Started): void {
    if (this.checking) return
    this.checking = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.options.hostLog('The tool host did not answer after a call was stopped; it was ended.')
        started.channel.kill()
        void started.exited.then(resolve)
      }, STUCK_AFTER_MS)
      this.pong = () => {
        clearTimeout(timer)
        resolve()
      }
      started.channel.send({ type: 'ping' })
    }).finally(() => {
      this.checking = undefined
      this.pong = undefined
    })
  }
}
