/**
 * A real NATS server for a test: the machine's `nats-server` on a random loopback port. It can be
 * stopped and started again on the same port (a broker restart), and is ended after the test.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach } from 'vitest'
import { requirePrerequisite } from './prerequisites'

/** The nats-server `npm test`'s first step found or installed ($NATS_SERVER, PATH, Debian's). */
export function natsServerBinary(): string {
  return requirePrerequisite('nats-server')
}

export interface NatsServer {
  url: string
  port: number
  /** The HTTP monitoring endpoint (`/connz`, `/varz`), when started with `-m -1` (a free port). */
  monitoring: string | undefined
  /** Stops the server (SIGTERM) and waits until it has exited. */
  stop(): Promise<void>
  /** Starts it again on the same port. */
  start(): Promise<void>
}

/** Starts a server per call; every one is stopped after the test. */
export function useNatsServers(): (args?: string[]) => Promise<NatsServer> {
  const running: NatsServer[] = []
  afterEach(async () => {
    for (const server of running.splice(0)) await server.stop()
  })
  return async (args = []) => {
    const server = await startNatsServer(args)
    running.push(server)
    return server
  }
}

export async function startNatsServer(args: string[] = []): Promise<NatsServer> {
  const binary = natsServerBinary()
  let child: ChildProcess | undefined
  let port = -1
  let monitoring: string | undefined
  const launch = async () => {
    const portsDir = mkdtempSync(join(tmpdir(), 'atelier-nats-'))
    child = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '--ports_file_dir', portsDir, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr?.on('data', (chunk) => {
      stderr += chunk
    })
    const deadline = Date.now() + 10_000
    for (;;) {
      const file = readdirSync(portsDir).find((name) => name.endsWith('.ports'))
      // The server may be midway through writing the file: read it again until it parses.
      const written = file && parsePorts(readFileSync(join(portsDir, file), 'utf8'))
      if (written) {
        port = written.port
        monitoring = written.monitoring
        break
      }
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`nats-server did not start: ${stderr}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    rmSync(portsDir, { recursive: true, force: true })
  }
  await launch()
  const server: NatsServer = {
    get url() {
      return `nats://127.0.0.1:${port}`
    },
    get port() {
      return port
    },
    get monitoring() {
      return monitoring
    },
    stop: async () => {
      const current = child
      child = undefined
      if (!current || current.exitCode !== null) return
      const exited = new Promise((resolve) => current.once('exit', resolve))
      current.kill('SIGTERM')
      await exited
    },
    start: async () => {
      if (child && child.exitCode === null) return
      await launch()
    },
  }
  return server
}

function parsePorts(text: string): { port: number; monitoring: string | undefined } | undefined {
  try {
    const { nats, monitoring } = JSON.parse(text) as { nats: string[]; monitoring?: string[] }
    const port = Number(new URL(nats[0] ?? '').port)
    return port ? { port, monitoring: monitoring?.[0] } : undefined
  } catch {
    return undefined
  }
}
