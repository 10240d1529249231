/**
 * Serving a tool service over stdio, for a service Atelier starts itself (no broker): one NDJSON
 * line per request on stdin, `{"id","user","config","arguments"}`, or `{"id","cancel":true}`; one
 * line per response on stdout, `{"id","error","response","end_of_stream"}`. Nothing else is ever
 * written to stdout: the SDK logs to stderr, and while serving on process.stdout it points
 * console.log/info/debug/dir/table at stderr too, so a stray log cannot corrupt the channel.
 *
 * When stdin ends, the calls in flight are finished (their responses written), then `done`
 * settles, and the process exits by itself if nothing else keeps it alive.
 */
import { Console } from 'node:console'
import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import type { ServiceResponse, StdioResponseLine } from '../src-shared/tool-services'
import { CallTable, type InvokeFunction, type Log, stderrLog } from './calls'
import { parseRequestBody } from './envelope'

export interface ServeStdioOptions {
  /** Where request lines come from. Default: process.stdin. */
  input?: Readable
  /** Where response lines go. Default: process.stdout. */
  output?: Writable
  /** Where the SDK's messages go. Default: stderr. */
  log?: Log
  /** Point console.log/info/debug/dir/table at stderr while serving. Default: when output is process.stdout. */
  redirectConsole?: boolean
}

export interface StdioServiceHandle {
  /** Settles when the input has ended and every call in flight has finished, or after `close()`. */
  done: Promise<void>
  /**
   * Stops reading, lets calls in flight finish for up to `graceMs` (default 5000), answers the rest
   * with an `unavailable` error. Idempotent.
   */
  close(options?: { graceMs?: number }): Promise<void>
}

const REDIRECTED = ['log', 'info', 'debug', 'dir', 'table'] as const

function redirectConsoleToStderr(): () => void {
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr })
  const saved = REDIRECTED.map((method) => [method, console[method]] as const)
  for (const method of REDIRECTED) (console as unknown as Record<string, unknown>)[method] = toStderr[method]
  return () => {
    for (const [method, original] of saved) (console as unknown as Record<string, unknown>)[method] = original
  }
}

export function serveStdio(invoke: InvokeFunction, options: ServeStdioOptions = {}): StdioServiceHandle {
  const input = options.input ?? process.stdin
  const output = options.output ?? process.stdout
  const log = options.log ?? stderrLog
  const restoreConsole =
    (options.redirectConsole ?? output === process.stdout) ? redirectConsoleToStderr() : () => {}
  const calls = new CallTable(invoke, log)
  let writable = true

  const write = (id: string, response: ServiceResponse) => {
    if (!writable) throw new Error('stdout is closed')
    const line: StdioResponseLine = { id, ...response }
    output.write(`${JSON.stringify(line)}\n`)
  }

  const onLine = (raw: string) => {
    const text = raw.trim()
    if (!text) return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      log(`Ignored a line that is not JSON: ${text.slice(0, 200)}`)
      return
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      log(`Ignored a line that is not a JSON object: ${text.slice(0, 200)}`)
      return
    }
    const { id, cancel, ...body } = value as Record<string, unknown>
    if (typeof id !== 'string' || !id) {
      log(`Ignored a line without a string \`id\` (it cannot be answered): ${text.slice(0, 200)}`)
      return
    }
    if (cancel === true) {
      calls.cancel(id)
      return
    }
    calls.start(id, parseRequestBody(body), (response) => write(id, response))
  }

  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY, terminal: false })
  lines.on('line', (line) => {
    try {
      onLine(line)
    } catch (error) {
      log(`A line failed: ${String(error)}`)
    }
  })
  input.on('error', (error) => log(`stdin failed: ${error.message}`))

  let finishing: Promise<void> | undefined
  const finish = (graceMs: number | undefined) => {
    finishing ??= (async () => {
      // After a tick, so that readline's synchronous `close` finds this promise already set.
      await null
      lines.close()
      if (graceMs === undefined) await calls.idle()
      else await calls.close(graceMs)
      restoreConsole()
    })()
    return finishing
  }

  output.on('error', (error) => {
    // The reader is gone (EPIPE): nobody hears the answers, so stop working on them.
    log(`stdout failed: ${error.message}`)
    writable = false
    void finish(0)
  })

  let resolveDone: () => void = () => {}
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve
  })
  // readline's close comes when the input ends (or on lines.close()): finish what is in flight.
  lines.on('close', () => {
    void finish(undefined).then(resolveDone)
  })

  return {
    done,
    close: async (closeOptions = {}) => {
      await finish(closeOptions.graceMs ?? 5000)
      resolveDone()
    },
  }
}
