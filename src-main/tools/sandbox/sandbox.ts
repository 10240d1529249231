/**
 * The sandbox: one job — turn a command and a policy into the command that runs it confined by the
 * operating system, on this platform (Linux: bubblewrap; macOS: Seatbelt; Windows: none). Which one
 * works is found once, by a probe run, and said plainly when none does: nothing runs "sandboxed"
 * unless it is.
 */
import { execFile } from 'node:child_process'
import { findOnPath } from '../processes'
import { bubblewrapArgs } from './bubblewrap'
import type { SandboxCommand, SandboxPolicy } from './policy'
import { seatbeltProfile } from './seatbelt'

/** What the probe found: the sandbox this machine has, or why it has none and what to do. */
export type SandboxStatus =
  | { available: true; kind: 'bubblewrap' | 'seatbelt'; executable: string; probeMs: number }
  | { available: false; kind: 'bubblewrap' | 'seatbelt' | 'none'; reason: string; fix?: string }

/** How long the probe may take before the sandbox counts as broken. */
const PROBE_TIMEOUT_MS = 5000

const SEATBELT = '/usr/bin/sandbox-exec'

export class Sandbox {
  private constructor(readonly status: SandboxStatus) {}

  /** Probes this machine once: the sandbox runs `true` confined, or says why it cannot. */
  static async detect(
    platform: NodeJS.Platform = process.platform,
    path = process.env.PATH,
  ): Promise<Sandbox> {
    return new Sandbox(await probe(platform, path))
  }

  /** A sandbox known to be unavailable, for why. */
  static unavailable(reason: string): Sandbox {
    return new Sandbox({ available: false, kind: 'none', reason })
  }

  get available(): boolean {
    return this.status.available
  }

  /** The command that runs `command` confined by `policy`; refuses when there is no sandbox here. */
  confine(command: SandboxCommand, policy: SandboxPolicy): SandboxCommand {
    const { status } = this
    if (!status.available) throw new Error(`The sandbox is not available: ${status.reason}`)
    if (status.kind === 'bubblewrap') {
      // A private /tmp is the command's temp folder.
      return {
        file: status.executable,
        args: bubblewrapArgs(policy, command),
        cwd: command.cwd,
        env: inTemp(command.env, '/tmp'),
      }
    }
    return {
      file: status.executable,
      args: ['-p', seatbeltProfile(policy), command.file, ...command.args],
      cwd: command.cwd,
      env: inTemp(command.env, policy.tempDir),
    }
  }
}

/**
 * The environment with the temp folder, and the caches tools keep in the home folder (read-only in
 * the sandbox), moved into it: `npm`, `pip` and the tools that follow XDG still run, with a cache
 * that lasts the call. A cache the person set in the environment is kept.
 */
function inTemp(env: NodeJS.ProcessEnv, temp: string): NodeJS.ProcessEnv {
  return {
    XDG_CACHE_HOME: `${temp}/.cache`,
    npm_config_cache: `${temp}/.npm`,
    ...env,
    TMPDIR: temp,
  }
}

async function probe(platform: NodeJS.Platform, path: string | undefined): Promise<SandboxStatus> {
  if (platform === 'linux') {
    const executable = findOnPath('bwrap', path ?? '')
    if (!executable) {
      return {
        available: false,
        kind: 'bubblewrap',
        reason: 'bubblewrap (bwrap) is not installed.',
        fix: 'Install it: `sudo apt-get install bubblewrap` (Debian, Ubuntu), `sudo dnf install bubblewrap` (Fedora), `sudo pacman -S bubblewrap` (Arch).',
      }
    }
    const ran = await tryRun(executable, [
      ...['--ro-bind', '/', '/'],
      ...['--dev', '/dev'],
      ...['--proc', '/proc'],
      '--unshare-all',
      '--die-with-parent',
      '--new-session',
      'true',
    ])
    if (ran.ok) return { available: true, kind: 'bubblewrap', executable, probeMs: ran.ms }
    return {
      available: false,
      kind: 'bubblewrap',
      reason: `bwrap cannot start a sandbox: ${ran.error}`,
      ...namespaceFix(ran.error),
    }
  }
  if (platform === 'darwin') {
    const ran = await tryRun(SEATBELT, ['-p', '(version 1)(allow default)', '/usr/bin/true'])
    if (ran.ok) return { available: true, kind: 'seatbelt', executable: SEATBELT, probeMs: ran.ms }
    return { available: false, kind: 'seatbelt', reason: `sandbox-exec cannot start a sandbox: ${ran.error}` }
  }
  return {
    available: false,
    kind: 'none',
    reason: `There is no sandbox for ${platform === 'win32' ? 'Windows' : platform} yet: commands run as they would in your own terminal, and the approvals decide what runs.`,
  }
}

/** What to do when user namespaces are refused: Ubuntu's AppArmor restriction, or a kernel setting. */
function namespaceFix(error: string): { fix: string } | Record<string, never> {
  if (!/uid map|Permission denied|Operation not permitted|No space left/i.test(error)) return {}
  return {
    fix: 'Unprivileged user namespaces are refused on this machine. On Ubuntu 23.10 and later, allow them for bwrap with an AppArmor profile (see https://ubuntu.com/blog/ubuntu-23-10-restricted-unprivileged-user-namespaces), or run `sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0`; elsewhere check `sysctl user.max_user_namespaces` and `kernel.unprivileged_userns_clone`.',
  }
}

function tryRun(
  file: string,
  args: string[],
): Promise<{ ok: true; ms: number } | { ok: false; error: string }> {
  const started = performance.now()
  return new Promise((resolve) => {
    execFile(file, args, { timeout: PROBE_TIMEOUT_MS }, (error, _stdout, stderr) => {
      if (!error) return resolve({ ok: true, ms: performance.now() - started })
      resolve({ ok: false, error: (stderr || error.message).trim().split('\n')[0] ?? error.message })
    })
  })
}
