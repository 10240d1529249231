/**
 * Running one command for a tool: its own process group, its own deadline, both streams capped
 * with head and tail kept, and the whole group killed on timeout or stop. The output comes through
 * real pipes read into one buffer each (see `outputPipe`), and goes live to the UI a few times a
 * second at most (see `LiveOutput`), so a flood costs about what `cat` pays for it.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { accessSync, closeSync, constants, openSync, readdirSync, unlinkSync } from 'node:fs'
import { type OnReadOpts, Socket, type SocketConstructorOpts } from 'node:net'
import { delimiter, join } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import type { ShellCommandResult } from '../../src-shared/tools'
import { pidExists, procStat } from '../core/process-owner'
import { processFolder } from './process-folders'

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
  /** Called once the command's process exists; what it returns is called when the command has ended. */
  onStart?: (command: StartedCommand) => (() => void) | undefined
}

export type OutputStream = 'stdout' | 'stderr'

/** A command that runs now, for whoever keeps a record of it while it runs. */
export interface StartedCommand {
  /** Its process, the leader of its process group (outside Windows). */
  pid: number
  /** Its output so far, each stream as the result would keep it (head and tail within the cap). */
  output(): Record<OutputStream, string>
}

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

/** What one read of a command's output may bring at most: libuv's own read size. */
const READ_BUFFER_BYTES = 64 * 1024
/** Below this much room at the end of the ring, the next read goes to its start. */
const MIN_READ_ROOM = 16 * 1024

/**
 * Keeps the first and last `limit / 2` bytes of a stream and drops the middle as it arrives, so
 * memory stays bounded however much a command prints. Reads can land in it directly, with no copy
 * (`readBuffer`, then `wrote`): the head first, then a ring a read longer than the tail, in which
 * the last `limit / 2` bytes always are.
 */
class CappedOutput {
  private readonly head: Buffer
  private headLength = 0
  private readonly tailLimit: number
  /** Made once the head is full; the next read goes at `ringEnd`. */
  private ring: Buffer | undefined
  private ringEnd = 0
  /** Where the bytes before the ring's last wrap end. */
  private wrappedAt = 0
  private inRing = false
  private total = 0

  constructor(private readonly limit: number) {
    // Not zero-filled: only the bytes written are ever read, and zeroing a large cap costs each command milliseconds.
    this.head = Buffer.allocUnsafe(Math.ceil(limit / 2))
    this.tailLimit = Math.floor(limit / 2)
  }

  get truncated(): boolean {
    return this.total > this.limit
  }

  /** Where the next read may go (then `wrote`): room for up to READ_BUFFER_BYTES. */
  readBuffer(): Buffer {
    if (this.headLength < this.head.length) {
      this.inRing = false
      return this.head.subarray(
        this.headLength,
        Math.min(this.head.length, this.headLength + READ_BUFFER_BYTES),
      )
    }
    this.inRing = true
    this.ring ??= Buffer.allocUnsafe(this.tailLimit + READ_BUFFER_BYTES)
    const ring = this.ring
    if (ring.length - this.ringEnd < MIN_READ_ROOM) {
      this.wrappedAt = this.ringEnd
      this.ringEnd = 0
    }
    return ring.subarray(this.ringEnd, Math.min(ring.length, this.ringEnd + READ_BUFFER_BYTES))
  }

  /** The last `readBuffer` got `length` bytes. */
  wrote(length: number): void {
    this.total += length
    if (this.inRing) this.ringEnd += length
    else this.headLength += length
  }

  /** Takes a copy of `bytes[0, length)`. */
  push(bytes: Buffer, length: number): void {
    for (let from = 0; from < length; ) {
      const taken = bytes.copy(this.readBuffer(), 0, from, length)
      this.wrote(taken)
      from += taken
    }
  }

  /** The last `tailLimit` bytes past the head (fewer if fewer came): the end of the ring, and before its wrap. */
  private tail(): Buffer {
    const ring = this.ring ?? Buffer.alloc(0)
    const length = Math.min(this.tailLimit, this.total - this.headLength)
    if (length <= this.ringEnd) return ring.subarray(this.ringEnd - length, this.ringEnd)
    const before = length - this.ringEnd
    return Buffer.concat([
      ring.subarray(this.wrappedAt - before, this.wrappedAt),
      ring.subarray(0, this.ringEnd),
    ])
  }

  text(): string {
    const head = this.head.subarray(0, this.headLength)
    const tail = this.tail()
    if (!this.truncated) return Buffer.concat([head, tail]).toString('utf8')
    const cutHead = head.subarray(0, utf8Boundary(head, head.length))
    const cutTail = tail.subarray(firstCharStart(tail))
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
 * What `onOutput` gets, throttled: chunks wait (copied) until the next update is due,
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
    // A copy: the read buffer is reused. Bounded by the live share, the cap.
    this.pending.push({ stream, chunk: Buffer.from(chunk.subarray(0, left)) })
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
 * Whether a command started as process `pid` (see `processStartTime`) still runs: any process of its
 * group (outside Windows), since the group outlives a leader that exits first. A leader that exists
 * with another start is a later process that took the pid: not the command.
 */
export function commandIsRunning(pid: number, started: string | undefined): boolean {
  const leader = procStat(pid)
  if (leader && started !== undefined && leader[19] !== started) return false
  if (procStat('self')) return groupHasLiveProcess(pid)
  return pidExists(process.platform === 'win32' ? pid : -pid)
}

/**
 * Whether a process of the group lives, read from /proc. A signal 0 to the group would count its
 * zombies too: ended processes whose status nobody has read, as a container's init may never.
 */
function groupHasLiveProcess(group: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = procStat(entry)
    if (stat && stat[2] === String(group) && stat[0] !== 'Z') return true
  }
  return false
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
 * not die with Atelier: whatever is left is killed when the process exits (the desktop app
 * quitting, the web host or CLI stopping), and by the watchdog when it dies without exiting (a
 * kill -9, a crash). Returns the call that forgets the child once it is gone.
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
  tellWatchdog('+', child)
  return () => {
    running.delete(child)
    tellWatchdog('-', child)
  }
}

/**
 * The watchdog: one small shell per Atelier process, in a session of its own, that reads the process
 * groups to kill from a pipe only Atelier holds. When Atelier dies however it dies, the kernel closes
 * that pipe; the watchdog reads its end and kills every group still listed. A parent-death signal
 * (`setpriv --pdeathsig`, bubblewrap's `--die-with-parent`) reaches only the one process it is set on,
 * not what that process started, and exists only on Linux; this kills whole groups, on macOS too. It
 * ignores the signals a terminal sends its foreground group, so a Ctrl-C that kills Atelier leaves it
 * to do its job.
 */
const WATCHDOG_SCRIPT = `trap '' HUP INT TERM QUIT
groups=' '
while IFS= read -r line; do
  group=\${line#?}
  case $line in
    +*) groups="$groups$group " ;;
    -*) case $groups in *" $group "*) groups="\${groups%%" $group "*} \${groups#*" $group "}" ;; esac ;;
  esac
done
for group in $groups; do kill -s KILL -- "-$group" 2>/dev/null; done`

/** The watchdog while it runs; null where it cannot (Windows has no process groups, or no sh). */
let watchdog: ChildProcess | null | undefined

function tellWatchdog(change: '+' | '-', child: ChildProcess): void {
  if (child.pid === undefined || process.platform === 'win32') return
  startWatchdog()
  watchdog?.stdin?.write(`${change}${child.pid}\n`)
}

function startWatchdog(): void {
  if (watchdog !== undefined) return
  try {
    const started = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    })
    watchdog = started
    started.once('error', () => {
      watchdog = null
    })
    // Killed by someone else while Atelier lives: the next command starts another, told of every group.
    started.once('exit', () => {
      if (watchdog !== started) return
      watchdog = undefined
      for (const each of running) tellWatchdog('+', each)
    })
    started.stdin?.on('error', () => {})
    // Neither it nor its pipe keeps Atelier running: it is there for when Atelier is gone.
    started.unref()
    ;(started.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null)?.unref?.()
  } catch {
    watchdog = null
  }
}

/**
 * FIFOs one `mkfifo` makes ahead (a command takes two), and how few may be left before the next
 * batch: made ahead, not opened, they cost no descriptors, and a run of commands never waits.
 */
const FIFO_BATCH = 64
const FIFO_LOW = 16
/** `mkfifo` runs that failed in a row; after a few (no `mkfifo`, no FIFOs there), commands keep Node's pipes. */
const MAX_MAKE_FAILURES = 3

const fifos: string[] = []
let fifoCount = 0
let making: Promise<void> | undefined
let makeFailures = 0

/** Makes the next batch of FIFOs with one `mkfifo`, in the background of the commands that run. */
function makeFifos(): Promise<void> {
  making ??= new Promise<void>((resolve) => {
    let folder: string
    try {
      folder = processFolder('pipes')
    } catch {
      makeFailures++
      resolve()
      return
    }
    const batch = Array.from({ length: FIFO_BATCH }, () => join(folder, String(++fifoCount)))
    execFile('mkfifo', ['-m', '600', ...batch], (error) => {
      if (error) makeFailures++
      else {
        makeFailures = 0
        fifos.push(...batch)
      }
      resolve()
    })
  }).finally(() => {
    making = undefined
  })
  return making
}

/** A FIFO made ahead, or undefined where there are none (Windows, no `mkfifo`, no usable temp folder). */
async function takeFifo(): Promise<string | undefined> {
  if (process.platform === 'win32' || makeFailures >= MAX_MAKE_FAILURES) return undefined
  if (fifos.length === 0) await makeFifos()
  const path = fifos.pop()
  if (fifos.length < FIFO_LOW) void makeFifos()
  return path
}

/** A pipe for one stream of a command: the descriptor the command writes to, and our reading end. */
interface OutputPipe {
  childEnd: number
  ourEnd: Socket
}

/**
 * Node gives a child's 'pipe' as a Unix socket pair and reads it into a fresh buffer every time:
 * writing a socket costs the command more than writing a pipe, and those buffers were garbage only
 * a collection freed, tens of MiB of them in a flood. This is a real pipe (a FIFO made ahead, opened
 * at both ends, then unlinked), read straight into `output` (`onread`, each read where
 * `output.readBuffer()` says); `onRead` then gets where it went and its length. Undefined where it cannot be made:
 * the command then gets Node's pipes.
 */
async function outputPipe(
  output: CappedOutput,
  onRead: (buffer: Buffer, length: number) => void,
): Promise<OutputPipe | undefined> {
  const path = await takeFifo()
  if (path === undefined) return undefined
  let read: number | undefined
  let write: number | undefined
  try {
    // Non-blocking, so opening the reading end does not wait for a writer; then the writing end opens
    // at once. Both are close-on-exec: no other child inherits them.
    read = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
    write = openSync(path, constants.O_WRONLY)
    const callback = (length: number, buffer: Uint8Array) => {
      output.wrote(length)
      onRead(buffer as Buffer, length)
      return true
    }
    // `onread` is a documented option of the net.Socket constructor that @types/node 20 leaves out.
    const options: SocketConstructorOpts & { onread: OnReadOpts } = {
      fd: read,
      readable: true,
      writable: false,
      onread: { buffer: () => output.readBuffer(), callback },
    }
    return { childEnd: write, ourEnd: new Socket(options) }
  } catch {
    if (read !== undefined) closeSync(read)
    if (write !== undefined) closeSync(write)
    // The folder may have gone with the temp folder's cleaning, and what was made in it with it.
    fifos.length = 0
    return undefined
  } finally {
    try {
      unlinkSync(path)
    } catch {
      // Gone with its folder.
    }
  }
}

export async function runShellCommand(options: ShellCommandOptions): Promise<ShellCommandResult> {
  const started = performance.now()
  const outputs = {
    stdout: new CappedOutput(options.maxOutputBytes),
    stderr: new CappedOutput(options.maxOutputBytes),
  }
  const live = options.onOutput && new LiveOutput(options.onOutput, options.maxOutputBytes)
  // The hot path of a flood: past the live share, a read has nothing more to do.
  const toLive = (name: OutputStream, bytes: Buffer, length: number) => {
    if (live?.wants(name)) live.add(name, bytes.subarray(0, length))
  }
  const made = await Promise.all(
    STREAMS.map((name) => outputPipe(outputs[name], (buffer, length) => toLive(name, buffer, length))),
  )
  const pipes = made.every((pipe) => pipe !== undefined) ? made : undefined
  if (!pipes) for (const pipe of made) closePipe(pipe)

  return new Promise((resolve, reject) => {
    let termination: Termination | undefined
    let child: ChildProcess
    try {
      child = spawn(options.file, options.args, {
        cwd: options.cwd,
        env: options.env,
        // Its own process group, so a timeout or a stop can kill everything it started.
        detached: process.platform !== 'win32',
        stdio: pipes ? ['ignore', pipes[0].childEnd, pipes[1].childEnd] : ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
      })
    } catch (error) {
      for (const pipe of pipes ?? []) closePipe(pipe)
      reject(error)
      return
    }
    // The command has its ends now; with ours closed, the output ends when the last process holding them does.
    for (const pipe of pipes ?? []) closeSync(pipe.childEnd)
    const readers = pipes ? pipes.map((pipe) => pipe.ourEnd) : STREAMS.map((name) => child[name])
    if (!pipes) {
      for (const name of STREAMS) {
        child[name]?.on('data', (chunk: Buffer) => {
          outputs[name].push(chunk, chunk.length)
          toLive(name, chunk, chunk.length)
        })
      }
    }

    const forget = killWithAtelier(child)
    const ended =
      child.pid === undefined
        ? undefined
        : options.onStart?.({
            pid: child.pid,
            output: () => ({ stdout: outputs.stdout.text(), stderr: outputs.stderr.text() }),
          })
    const stop = (reason: Termination) => {
      termination ??= reason
      killProcessGroup(child)
    }
    const timer = setTimeout(() => stop('timed_out'), options.timeoutMs)
    const onAbort = () => stop('aborted')
    if (options.signal.aborted) onAbort()
    options.signal.addEventListener('abort', onAbort, { once: true })

    let settled = false
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, error?: Error) => {
      if (settled) return
      settled = true
      forget()
      ended?.()
      clearTimeout(timer)
      options.signal.removeEventListener('abort', onAbort)
      // Our ends of the pipes are closed; a grandchild still writing gets EPIPE, not our memory.
      for (const reader of readers) reader?.destroy()
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
    // Done when the command has exited and its output has ended (every process holding it closed it).
    let open = readers.filter(Boolean).length
    let exited: [number | null, NodeJS.Signals | null] | undefined
    for (const reader of readers) {
      // A read error ends that stream like its end would; what came before it is kept.
      reader?.on('error', () => {})
      reader?.once('close', () => {
        open--
        if (exited && open === 0) finish(...exited)
      })
    }
    child.once('error', (error) => finish(null, null, error))
    child.once('exit', (code, signal) => {
      exited = [code, signal]
      if (open === 0) finish(code, signal)
      // Normally the output ends at once; a background grandchild holding it must not hold the turn.
      else setTimeout(() => finish(code, signal), PIPE_GRACE_MS).unref()
    })
  })
}

const STREAMS = ['stdout', 'stderr'] as const

function closePipe(pipe: OutputPipe | undefined): void {
  if (!pipe) return
  closeSync(pipe.childEnd)
  pipe.ourEnd.destroy()
}
