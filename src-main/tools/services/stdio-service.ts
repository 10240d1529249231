/**
 * A tool service Atelier runs itself and speaks to over its stdin and stdout, no broker needed: one
 * NDJSON line per request (`{"id","user","config","arguments"}`), response lines
 * (`{"id","error","response","end_of_stream"}`) back, `{"id","cancel":true}` to cancel. The
 * process is started on the first call, without a shell, in its own process group; when it exits
 * the calls in flight fail and the next call starts it again; close() ends it with everything it
 * started.
 *
 * Environment: the process does not inherit Atelier's environment (which holds the person's
 * provider keys and whatever else the desktop session has). It gets a minimal one — PATH and HOME,
 * the user name, the temp folder and the locale (on Windows, also the system variables a process
 * needs to run at all: SystemRoot, PATHEXT, APPDATA…) — with the descriptor's `env` over it.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { StringDecoder } from 'node:string_decoder'
import { AtelierError } from '../../../src-shared/errors'
import {
  readServiceResponse,
  type StdioCancelLine,
  type StdioRequestLine,
  type StdioServiceDescriptor,
} from '../../../src-shared/tool-services'
import { ToolError } from '../errors'
import { closeProcessTree } from '../mcp/process-tree'
import { killProcessGroup, killWithAtelier } from '../processes'
import { type ConfineServer, serverLaunch } from '../sandbox/command-sandbox'
import { describe, PendingServiceCall } from './pending-call'
import type { ServiceCall, ServiceTransport } from './transport'

/** Enough of the service's stderr to see why it failed, not enough to grow without bound. */
const STDERR_LIMIT = 64 * 1024
/** How much of the stderr tail an error message quotes. */
const STDERR_QUOTED = 1000
/** After the process exits, how long its last stdout lines get to arrive (a grandchild may hold the pipe). */
const EXIT_GRACE_MS = 200
/** On close, how long the process gets to leave after its stdin closes, and then after SIGTERM. */
const STDIN_GRACE_MS = 1000
const TERM_GRACE_MS = 2000
/** How much of an ignored line goes into the log. */
const LOGGED_CHARS = 200

const INHERITED_ENV =
  process.platform === 'win32'
    ? [
        'PATH',
        'PATHEXT',
        'SystemRoot',
        'SystemDrive',
        'windir',
        'COMSPEC',
        'TEMP',
        'TMP',
        'USERPROFILE',
        'USERNAME',
        'HOMEDRIVE',
        'HOMEPATH',
        'APPDATA',
        'LOCALAPPDATA',
        'ProgramData',
        'ProgramFiles',
      ]
    : ['PATH', 'HOME', 'USER', 'LOGNAME', 'TMPDIR', 'LANG', 'LC_ALL', 'LC_CTYPE']

export interface StdioServiceOptions {
  /** Where a relative `cwd` of the descriptor starts (and the folder used when it has none). */
  baseDir: string
  /** Ignored lines, a process that exited or could not start. */
  log?(message: string): void
  /** Confines a service set to run in the sandbox; without it, such a service does not start. */
  confine?: ConfineServer
}

/** One started process and the calls sent to it. */
interface Running {
  child: ChildProcess
  /** Takes it off the list of processes ended when Atelier exits. */
  forget(): void
  pending: Map<string, PendingServiceCall>
  /** The process has exited (its last lines may still be arriving). */
  exited: boolean
  /** close() is ending it: its exit is no failure to report. */
  closing: boolean
  ended: boolean
  /** Tidies what its sandbox left (a temp folder). */
  done(): void
}

export class StdioService implements ServiceTransport {
  private process: Running | undefined
  /** The process being started (its sandbox prepared): calls meanwhile wait for the same one. */
  private starting: Promise<Running> | undefined
  private stderrText = ''

  constructor(
    readonly descriptor: StdioServiceDescriptor,
    private readonly options: StdioServiceOptions,
  ) {}

  /** The process is running (it is started by the first call). */
  get running(): boolean {
    return this.process !== undefined && !this.process.exited
  }

  get pid(): number | null {
    return this.running ? (this.process?.child.pid ?? null) : null
  }

  /** The last 64 KiB the process wrote to stderr, across restarts. */
  get stderr(): string {
    return this.stderrText
  }

  async call(call: ServiceCall): Promise<string> {
    const id = this.descriptor.id
    if (call.signal.aborted) throw call.signal.reason
    let running: Running
    try {
      running = await this.start()
    } catch (error) {
      throw new ToolError('execution_failed', `The service ${id} could not be started: ${describe(error)}`)
    }
    if (call.signal.aborted) throw call.signal.reason
    if (running.closing) {
      throw new ToolError('execution_failed', `The service ${id} was stopped during the call.`)
    }
    if (running.pending.has(call.id)) {
      throw new ToolError('execution_failed', `A call with the id ${call.id} is already in flight.`)
    }
    const pending = new PendingServiceCall(id, call, {
      cancel: () => this.write(running, { id: call.id, cancel: true } satisfies StdioCancelLine),
      done: (settled) => {
        if (running.pending.get(call.id) === settled) running.pending.delete(call.id)
      },
      log: (message) => this.log(message),
    })
    running.pending.set(call.id, pending)
    this.write(running, { id: call.id, ...call.request } satisfies StdioRequestLine)
    return pending.result
  }

  /** Ends the process and all it started; calls in flight fail. A later call starts it again. */
  async close(): Promise<void> {
    await this.starting?.catch(() => {})
    const running = this.process
    this.process = undefined
    if (!running) return
    running.closing = true
    for (const pending of [...running.pending.values()]) {
      pending.fail(
        new ToolError('execution_failed', `The service ${this.descriptor.id} was stopped during the call.`),
      )
    }
    running.pending.clear()
    await closeProcessTree(running.child.pid ?? null, () => this.endRoot(running))
  }

  /** The running process, or a new one. */
  private start(): Promise<Running> {
    if (this.process && !this.process.exited) return Promise.resolve(this.process)
    this.starting ??= this.launch().finally(() => {
      this.starting = undefined
    })
    return this.starting
  }

  /** The command as it starts: in the sandbox when the person set it so. */
  private async prepare() {
    const { descriptor } = this
    const [file, ...args] = descriptor.command
    if (!file)
      throw new AtelierError('invalid_descriptor', `The service ${descriptor.id} has an empty command.`)
    const cwd = resolve(this.options.baseDir, descriptor.cwd ?? '.')
    const command = { file, args, cwd, env: { ...minimalEnv(), ...descriptor.env } }
    return serverLaunch(command, {
      sandboxed: descriptor.sandboxed,
      folder: descriptor.cwd === undefined ? null : cwd,
      name: `The service ${descriptor.id}`,
      confine: this.options.confine,
    })
  }

  private async launch(): Promise<Running> {
    const { command, done } = await this.prepare()
    const child = spawn(command.file, command.args, {
      cwd: command.cwd,
      env: command.env,
      // Its own process group, so closing it can end everything it started.
      detached: process.platform !== 'win32',
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    })
    const forget = killWithAtelier(child)
    const running: Running = {
      child,
      forget,
      pending: new Map(),
      exited: false,
      closing: false,
      ended: false,
      done,
    }
    this.process = running

    child.stdin?.on('error', (error) => {
      if (!running.exited && !running.closing)
        this.log(`Could not write to the service ${this.descriptor.id}: ${error.message}`)
    })
    if (child.stdout) {
      createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) =>
        this.line(running, line),
      )
    }
    const decoder = new StringDecoder('utf8')
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = this.stderrText + decoder.write(chunk)
      this.stderrText = text.length > STDERR_LIMIT ? text.slice(text.length - STDERR_LIMIT) : text
    })
    child.once('error', (error) => this.ended(running, `could not be started (${error.message})`))
    child.once('exit', (code, signal) => {
      running.exited = true
      forget()
      // The process group may hold a helper it started; it goes with it.
      if (!running.closing) killProcessGroup(child, 'SIGTERM')
      setTimeout(() => this.ended(running, exitText(code, signal)), EXIT_GRACE_MS).unref()
    })
    child.once('close', (code, signal) => this.ended(running, exitText(code, signal)))
    return running
  }

  private line(running: Running, line: string): void {
    if (line.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      this.log(`Ignored a line from the service ${this.descriptor.id} that is not JSON: ${excerpt(line)}`)
      return
    }
    const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined
    if (typeof id !== 'string') {
      this.log(`Ignored a line from the service ${this.descriptor.id} without an id: ${excerpt(line)}`)
      return
    }
    const pending = running.pending.get(id)
    if (!pending) {
      this.log(
        `Ignored a line from the service ${this.descriptor.id} for no call in flight (id ${id}): ${excerpt(line)}`,
      )
      return
    }
    const read = readServiceResponse(line)
    if ('problem' in read) {
      this.log(
        `A line from the service ${this.descriptor.id} for ${id} is not a service response (${read.problem}): ${excerpt(line)}`,
      )
      pending.unusable(read.problem)
      return
    }
    pending.receive(read.response)
  }

  /** The process is gone (exited, or never started): its calls fail, the next call starts another. */
  private ended(running: Running, how: string): void {
    if (running.ended) return
    running.ended = true
    running.exited = true
    running.forget()
    running.done()
    if (this.process === running) this.process = undefined
    if (running.closing) return
    const tail = this.stderrText.trim().slice(-STDERR_QUOTED)
    const stderr = tail ? ` Its stderr ends with: ${tail}` : ''
    this.log(`The service ${this.descriptor.id}: the service process ${how}.${stderr}`)
    for (const pending of [...running.pending.values()]) {
      pending.fail(
        new ToolError(
          'execution_failed',
          `The service ${this.descriptor.id} failed: the service process ${how} during the call.${stderr}`,
        ),
      )
    }
    running.pending.clear()
  }

  private write(running: Running, line: StdioRequestLine | StdioCancelLine): void {
    const stdin = running.child.stdin
    if (running.exited || !stdin || stdin.destroyed || stdin.writableEnded) return
    stdin.write(`${JSON.stringify(line)}\n`)
  }

  /** Closes its stdin (a well-behaved service leaves then), then signals its group, then kills it. */
  private async endRoot(running: Running): Promise<void> {
    const { child } = running
    if (running.exited || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((done) => child.once('exit', () => done()))
    const within = (ms: number) =>
      Promise.race([
        exited.then(() => true),
        new Promise<boolean>((done) => setTimeout(() => done(false), ms)),
      ])
    child.stdin?.end()
    if (await within(STDIN_GRACE_MS)) return
    killProcessGroup(child, 'SIGTERM')
    if (await within(TERM_GRACE_MS)) return
    killProcessGroup(child, 'SIGKILL')
    await within(TERM_GRACE_MS)
  }

  private log(message: string): void {
    try {
      this.options.log?.(message)
    } catch {
      // A logger that throws must not break the service.
    }
  }
}

function minimalEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of INHERITED_ENV) {
    const value = process.env[name]
    if (value !== undefined) env[name] = value
  }
  return env
}

function exitText(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `exited (signal ${signal})` : `exited (code ${code})`
}

function excerpt(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ')
  return oneLine.length > LOGGED_CHARS ? `${oneLine.slice(0, LOGGED_CHARS)}…` : oneLine
}
