/**
 * Which process owns a running turn, told apart from a later process that is given the same PID: a
 * PID alone is reused (after a crash, in a container where every start is PID 1), and a turn owned
 * by a PID that lives again would otherwise stay "running" for ever.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'

/** A process as a running turn records it. */
export interface ProcessOwner {
  pid: number
  /**
   * What tells this process apart from a later one with its PID. On Linux the boot and the
   * process's start time, `linux:<boot id>:<clock ticks since boot>` (field 22 of `/proc/<pid>/stat`),
   * which any process can check. Elsewhere a token drawn at start, `token:<uuid>`, which only this
   * process can check: another process then goes by the PID alone (see `ownerIsAlive`).
   */
  start: string
}

let current: ProcessOwner | undefined

/** This process, the same value for its whole life. */
export function thisProcess(): ProcessOwner {
  current ??= { pid: process.pid, start: linuxStart(process.pid) ?? `token:${randomUUID()}` }
  return current
}

/**
 * Whether the process that recorded `owner` still runs. This process owns only what it recorded
 * itself, so a turn with our PID and another start is an orphan (a PID reused, a container
 * restarted). `start` is null for a turn recorded before starts were kept. Where the start cannot
 * be read back (a token, a hidden `/proc`), a live PID counts as the owner: a limitation of the
 * platforms without `/proc`, where a reused PID keeps an orphan running until that process ends.
 */
export function ownerIsAlive(owner: { pid: number; start: string | null }): boolean {
  const self = thisProcess()
  if (owner.pid === self.pid) return owner.start === self.start
  if (!pidExists(owner.pid)) return false
  if (!owner.start?.startsWith('linux:')) return true
  const now = linuxStart(owner.pid)
  return now === undefined || now === owner.start
}

/** Where the platform has `/proc`: its boot and start time; undefined when they cannot be read. */
function linuxStart(pid: number): string | undefined {
  const ticks = processStartTime(pid)
  if (ticks === undefined) return undefined
  try {
    return `linux:${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}:${ticks}`
  } catch {
    return undefined
  }
}

/**
 * The fields of /proc/PID/stat after the process's name, from field 3: [0] its state, [2] its
 * process group, [19] when it started. Undefined where there is no such process, or no /proc.
 */
export function procStat(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The name in parentheses may hold spaces and parentheses; the fields after it are plain.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/**
 * When a process started, as the system counts it (Linux: clock ticks since boot), or undefined where
 * that cannot be read (no such process, no /proc). With the pid it names one process: a pid used
 * again by a later process has another start.
 */
export function processStartTime(pid: number): string | undefined {
  return procStat(pid)?.[19]
}

/** Whether a process exists, whoever's it is (a negative `pid` names a process group, as for kill). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
