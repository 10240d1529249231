/**
 * Running one command for a tool: its own process group, its own deadline, both streams capped
 * with head and tail kept, and the whole group killed on timeout or stop.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import type { ShellCommandResult } from '../../src-shared/tools'

export type { ShellCommandResult }
export type Termination = ShellCommandResult['termination']

export interface ShellCommandOptions {
  file: string
  args: string[]
  cwd: string
  env: NodeJS.ProcessEnv
  timeoutMs: number
  /** Per stream: beyond it the middle is dropped, head and tail kept. */
  maxOutputBytes: number
  /** The user's stop. */
  signal: AbortSignal
  /**
   * Live output, for the UI: each stream's first `maxOutputBytes` bytes (the start the result keeps
   * too), in the order they arrived, whole characters only, at most every LIVE_OUTPUT_INTERVAL_MS;
   * what is still waiting comes before the result. Nothing past the cap (the result has the tail).
   */
  onOutput?: (stream: OutputStream, text: string) => void
}

export type OutputStream = 'stdout' | 'stderr'

/** After the shell exits, how long its pipes may stay open (a background grandchild can hold them). */
const PIPE_GRACE_MS = 200

/**
 * How often, at most, live output goes out: the first chunk at once, then what arrived in between as
 * one update, decoded once. A flood of pipe chunks costs a few updates a second, not one per chunk.
 */
export const LIVE_OUTPUT_INTERVAL_MS = 100

/** An executable of that name on PATH, or undefined. */
export function findOnPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  const extensions = process.platform === 'win32' ? ['.exe', '.cmd', ''] : ['']
  for (const folder of path.split(delimiter)) {
    if (!folder) continue
    for (const extension of extensions) {
      const candidate = join(folder, name + extension)
      try {
        accessSync(candidate, constants.X_OK)
        return candidate
      } catch {
        // not here; keep looking
      }
    }
  }
  return undefined
}

/**
 * Keeps the first and last `limit / 2` bytes of a stream and drops the middle as it arrives, so
 * memory stays bounded however much a command prints.
 */
class CappedOutput {
  private readonly head: Buffer
  private headLength = 0
  private readonly tailLimit: number
  /** Recent chunks past the head; whole chunks are dropped from the front once they are not needed. */
  private tail: Buffer[] = []
  private tailSize = 0
  private total = 0

  constructor(private readonly limit: number) {
    // Not zero-filled: only the bytes written are ever read, and zeroing a large cap costs each command milliseconds.
    this.head = Buffer.allocUnsafe(Math.ceil(limit / 2))
    this.tailLimit = Math.floor(limit / 2)
  }

  get truncated(): boolean {
    return this.total > this.limit
  }

  get size(): number {
    return this.total
  }

  push(chunk: Buffer): void {
    this.total += chunk.length
    const taken = chunk.copy(this.head, this.headLength)
    this.headLength += taken
    if (taken === chunk.length) return
    this.tail.push(chunk.subarray(taken))
    this.tailSize += chunk.length - taken
    while (this.tail.length > 1 && this.tailSize - (this.tail[0]?.length ?? 0) >= this.tailLimit) {
      this.tailSize -= this.tail.shift()?.length ?? 0
    }
  }

  text(): string {
    const head = this.head.subarray(0, this.headLength)
    const tail = Buffer.concat(this.tail)
    if (!this.truncated) return Buffer.concat([head, tail]).toString('utf8')
    const kept = tail.subarray(tail.length - this.tailLimit)
    const cutHead = head.subarray(0, utf8Boundary(head, head.length))
    const cutTail = kept.subarray(firstCharStart(kept))
    const dropped = this.total - cutHead.length - cutTail.length
    return `${cutHead.toString('utf8')}\n[… ${dropped} bytes of output cut here …]\n${cutTail.toString('utf8')}`
  }
}

/** The longest prefix of `bytes[0, length)` that ends on a whole UTF-8 character. */
function utf8Boundary(bytes: Buffer, length: number): number {
  let start = length
  // Walk back over continuation bytes (10xxxxxx) to the lead byte of the last character.
  while (start > 0 && ((bytes[start - 1] ?? 0) & 0xc0) === 0x80) start--
  if (start === 0) return length
  const lead = bytes[start - 1] ?? 0
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
  return start - 1 + size <= length ? length : start - 1
}

/** Where the first whole character starts: continuation bytes of a character cut in half are skipped. */
function firstCharStart(bytes: Buffer): number {
  let start = 0
  while (start < bytes.length && start < 3 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++
  return start
}

/**
 * What `onOutput` gets, throttled: chunks wait (by reference, no copy) until the next update is due,
 * which sends each run of one stream's chunks as one text. Each stream offers only its first `limit`
 * bytes, so what waits is bounded by the cap, however much a command prints.
 */
class LiveOutput {
  private pending: { stream: OutputStream; chunk: Buffer }[] = []
  private readonly left: Record<OutputStream, number>
  // Pipe chunks can end mid-character; a decoder holds the partial bytes for the next update.
  private readonly decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') }
  private timer: NodeJS.Timeout | undefined
  private sentAt = Number.NEGATIVE_INFINITY

  constructor(
    private readonly send: (stream: OutputStream, text: string) => void,
    limit: number,
  ) {
    this.left = { stdout: limit, stderr: limit }
  }

  /** Whether the stream still has live output to give (false once its first `limit` bytes went). */
  wants(stream: OutputStream): boolean {
    return this.left[stream] > 0
  }

  add(stream: OutputStream, chunk: Buffer): void {
    const left = this.left[stream]
    this.left[stream] = Math.max(0, left - chunk.length)
    this.pending.push({ stream, chunk: chunk.length <= left ? chunk : chunk.subarray(0, left) })
    if (this.timer) return
    const wait = this.sentAt + LIVE_OUTPUT_INTERVAL_MS - performance.now()
    if (wait <= 0) this.flush()
    else this.timer = setTimeout(() => this.flush(), wait)
  }

  /** Sends what waits now; also before the result, so the last update comes first. */
  flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    const pending = this.pending
    if (pending.length === 0) return
    this.pending = []
    this.sentAt = performance.now()
    let start = 0
    for (let end = 1; end <= pending.length; end++) {
      const stream = pending[start]?.stream ?? 'stdout'
      if (end < pending.length && pending[end]?.stream === stream) continue
      const run = pending.slice(start, end).map((piece) => piece.chunk)
      const text = this.decoders[stream].write(run.length === 1 ? (run[0] as Buffer) : Buffer.concat(run))
      if (text !== '') this.send(stream, text)
      start = end
    }
  }
}

/**
 * Signals a child's whole process group; on Windows, where there are none, SIGKILL ends its
 * process tree and other signals go to the process.
 */
export function killProcessGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return
  try {
    if (process.platform !== 'win32') process.kill(-child.pid, signal)
    else if (signal === 'SIGKILL') execFile('taskkill', ['/pid', String(child.pid), '/T', '/F'], () => {})
    else child.kill(signal)
  } catch {
    // The group is already gone.
  }
}

/**
 * Children in process groups of their own (shell commands, stdio tool services). Those groups do
 * not die with Atelier, so whatever is left is killed when the process exits (the desktop app
 * quitting, the web host or CLI stopping). Returns the call that forgets the child once it is gone.
 */
const running = new Set<ChildProcess>()
let killOnExit = false

export function killWithAtelier(child: ChildProcess): () => void {
  running.add(child)
  if (!killOnExit) {
    killOnExit = true
    process.once('exit', () => {
      for (const each of running) killProcessGroup(each)
    })
  }
  return () => running.delete(child)
}

export function runShellCommand(options: ShellCommandOptions): Promise<ShellCommandResult> {
  const started = performance.now()
  const outputs = {
    stdout: new CappedOutput(options.maxOutputBytes),
    stderr: new CappedOutput(options.maxOutputBytes),
  }
  return new Promise((resolve) => {
    let termination: Termination | undefined
    const child = spawn(options.file, options.args, {
      cwd: options.cwd,
      env: options.env,
      // Its own process group, so a timeout or a stop can kill everything it started.
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    })
    const forget = killWithAtelier(child)
    const stop = (reason: Termination) => {
      termination ??= reason
      killProcessGroup(child)
    }
    const timer = setTimeout(() => stop('timed_out'), options.timeoutMs)
    const onAbort = () => stop('aborted')
    if (options.signal.aborted) onAbort()
    options.signal.addEventListener('abort', onAbort, { once: true })

    const live = options.onOutput && new LiveOutput(options.onOutput, options.maxOutputBytes)
    for (const name of ['stdout', 'stderr'] as const) {
      const output = outputs[name]
      // The hot path of a flood: past the live share, each chunk only goes into the capped capture.
      child[name]?.on('data', (chunk: Buffer) => {
        output.push(chunk)
        if (live?.wants(name)) live.add(name, chunk)
      })
    }

    let settled = false
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, error?: Error) => {
      if (settled) return
      settled = true
      forget()
      clearTimeout(timer)
      options.signal.removeEventListener('abort', onAbort)
      // Our ends of the pipes are closed; a grandchild still writing gets EPIPE, not our memory.
      child.stdout?.destroy()
      child.stderr?.destroy()
      live?.flush()
      const stderr = error ? `${outputs.stderr.text()}${error.message}\n` : outputs.stderr.text()
      resolve({
        stdout: outputs.stdout.text(),
        stderr,
        exitCode,
        signal,
        termination: termination ?? (signal ? 'signalled' : 'exited'),
        durationMs: Math.round(performance.now() - started),
        truncated: { stdout: outputs.stdout.truncated, stderr: outputs.stderr.truncated },
      })
    }
    child.once('error', (error) => finish(null, null, error))
    child.once('close', (code, signal) => finish(code, signal))
    child.once('exit', (code, signal) => {
      // Normally `close` follows at once; a background grandchild holding the pipes must not hold the turn.
      setTimeout(() => finish(code, signal), PIPE_GRACE_MS).unref()
    })
  })
}
