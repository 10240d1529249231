import { type ChildProcess, spawn } from 'node:child_process'

export interface FixtureProcess {
  child: ChildProcess
  /** Settles once the fixture has printed its `ready` line (rejects if it exits first). */
  ready: Promise<void>
  /** The whole lines printed after `ready`; a line cut short by a kill is not one. */
  lines(): string[]
  stderr(): string
}

/**
 * Runs a TypeScript fixture in a Node process of its own, the way a crash test needs to kill it;
 * `wrapper` is a command line it runs under (`unshare …`), the fixture's own appended.
 */
export function startFixture(file: string, args: string[], wrapper: string[] = []): FixtureProcess {
  const [command = process.execPath, ...before] = [...wrapper, process.execPath]
  const child = spawn(command, [...before, '--import', 'tsx', file, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  let errors = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    errors += chunk
  })
  const ready = new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (output.startsWith('ready\n')) resolve()
      else if (child.exitCode !== null) reject(new Error(`fixture exited early: ${errors}`))
      else return
      clearInterval(poll)
    }, 5)
  })
  return { child, ready, lines: () => output.split('\n').slice(1, -1), stderr: () => errors }
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })
}

/** Whether a process with this id still exists (ESRCH: gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
