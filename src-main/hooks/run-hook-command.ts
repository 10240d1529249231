/**
 * Runs one hook command: its JSON input on stdin, in its own process group so a timeout or a stop
 * kills everything it started, its output capped. A plain command line runs as argv, with no shell;
 * a line that uses the shell's syntax (a pipe, `&&`, a redirect, a `$VARIABLE`, a glob) runs with
 * `/bin/sh -c`, since that is what its author wrote it for.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { splitWords } from '../../src-shared/approvals'
import { killProcessGroup, killWithAtelier } from '../tools/processes'

/** What is kept of each stream: enough for a reason or a JSON answer, not a flood. */
const OUTPUT_CAP_BYTES = 64 * 1024
/** How long output may still arrive after the hook exited (a grandchild holding its stdout). */
const OUTPUT_GRACE_MS = 500

/** Characters that make a command line the shell's to read rather than a list of words. */
const SHELL_SYNTAX = /[|&;<>()$`*?[\]{}~!\n]/

export interface HookCommandRun {
  command: string
  /** The event's input, sent as JSON on stdin. */
  input: unknown
  cwd: string
  env: NodeJS.ProcessEnv
  timeoutMs: number
  signal: AbortSignal
}

export interface HookProcessResult {
  exitCode: number | null
  stdout: string
  stderr: string
  /** Killed at its timeout. */
  timedOut: boolean
  /** It could not be started, or was stopped: in words. */
  failure?: string
  durationMs: number
}

/** The program and its arguments a command line runs as. */
export function argvOf(command: string): { file: string; args: string[] } {
  if (SHELL_SYNTAX.test(command)) return { file: '/bin/sh', args: ['-c', command] }
  const [file = '', ...args] = splitWords(command)
  return { file, args }
}

export function runHookCommand(run: HookCommandRun): Promise<HookProcessResult> {
  const started = performance.now()
  const { file, args } = argvOf(run.command)
  return new Promise((resolve) => {
    let child: ChildProcess
    try {
      child = spawn(file, args, {
        cwd: run.cwd,
        env: run.env,
        // Its own process group, so a timeout kills what it started too.
        detached: process.platform !== 'win32',
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      })
    } catch (error) {
      resolve(ended(null, '', '', false, started, `It could not be started: ${(error as Error).message}`))
      return
    }
    const forget = killWithAtelier(child)
    const stdout = capped()
    const stderr = capped()
    child.stdout?.on('data', stdout.push)
    child.stderr?.on('data', stderr.push)
    let timedOut = false
    let stopped = false
    let failure: string | undefined
    const timer = setTimeout(() => {
      timedOut = true
      killProcessGroup(child)
    }, run.timeoutMs)
    const onStop = () => {
      stopped = true
      killProcessGroup(child)
    }
    if (run.signal.aborted) onStop()
    run.signal.addEventListener('abort', onStop, { once: true })
    let grace: NodeJS.Timeout | undefined
    let settled = false
    const finish = (code: number | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      clearTimeout(grace)
      forget()
      run.signal.removeEventListener('abort', onStop)
      child.stdout?.destroy()
      child.stderr?.destroy()
      const why = timedOut
        ? `It was killed at its timeout of ${run.timeoutMs / 1000} s.`
        : stopped
          ? 'It was stopped with its call.'
          : failure
      resolve(ended(code, stdout.text(), stderr.text(), timedOut, started, why))
    }
    child.once('error', (error) => {
      failure = `It could not be started: ${error.message}`
      finish(null)
    })
    child.once('exit', (code) => {
      grace = setTimeout(() => finish(code), OUTPUT_GRACE_MS)
    })
    child.once('close', (code) => finish(code))
    // A hook that does not read its input closes stdin early: that is its right, not an error.
    child.stdin?.on('error', () => {})
    child.stdin?.end(`${JSON.stringify(run.input)}\n`)
  })
}

function ended(
  exitCode: number | null,
  stdout: string,
  stderr: string,
  timedOut: boolean,
  started: number,
  failure: string | undefined,
): HookProcessResult {
  const durationMs = Math.round(performance.now() - started)
  return { exitCode, stdout, stderr, timedOut, durationMs, ...(failure && { failure }) }
}

function capped() {
  const chunks: Buffer[] = []
  let size = 0
  return {
    push: (chunk: Buffer) => {
      if (size >= OUTPUT_CAP_BYTES) return
      chunks.push(chunk.subarray(0, OUTPUT_CAP_BYTES - size))
      size += chunk.length
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  }
}
