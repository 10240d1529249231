/**
 * The programs the tests (and the benchmarks) need from the machine, and where each is looked for.
 * One ladder per program, used twice: `scripts/test-prerequisites.ts` (the first step of `npm test`)
 * climbs it to the end, installing what is missing where it can; the tests only look (`locate`), so
 * they use exactly what the step found or installed.
 */
import { spawnSync } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { chromium } from 'playwright-core'
import { findOnPath } from '../../src-main/tools/processes'

export type Prerequisite =
  | 'chromium'
  | 'nats-server'
  | 'ps'
  | 'ripgrep'
  | 'bubblewrap'
  | 'curl'
  | 'python3'
  | 'openssl'

/** One rung tried and what came of it, for the message when every rung failed. */
export interface Attempt {
  rung: string
  outcome: string
}

interface Ladder {
  /** Who needs it, in a failure message. */
  purpose: string
  /** The places looked in, in order; each gives the program or why not. */
  looks: Array<() => { found: string } | { rung: string; outcome: string }>
  /** Playwright downloads its own build of this (Chromium only). */
  playwright?: boolean
  /** Debian's package, installed with apt-get as a last resort. */
  debianPackage: string
  /** What a person can do instead, when every rung failed. */
  advice: string
}

/**
 * Where Debian puts packaged programs. Only the step's own tests change it (ATELIER_TEST_SYSTEM_ROOT
 * is a folder standing in for `/`), so they can check an install without touching the machine.
 */
function systemPath(path: string): string {
  const root = process.env.ATELIER_TEST_SYSTEM_ROOT
  return root ? join(root, path) : path
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function file(rung: string, path: string | undefined) {
  if (!path) return { rung, outcome: 'not set' }
  if (executable(path)) return { found: path }
  return { rung, outcome: `${rung === path ? '' : `${path} `}does not exist or is not executable` }
}

function onPath(...names: string[]) {
  return () => {
    for (const name of names) {
      const found = findOnPath(name)
      if (found) return { found }
    }
    return { rung: `${names.join(' or ')} on PATH`, outcome: 'not found' }
  }
}

/**
 * Playwright's build is its own download, without the system libraries it links against: one that is
 * there but cannot start (on a bare machine) is passed over, so Debian's package can still be tried.
 */
function playwrightsChromium() {
  const rung = "Playwright's own Chromium"
  let path: string
  try {
    path = chromium.executablePath()
  } catch (error) {
    return { rung, outcome: firstLine(error) }
  }
  const present = file(rung, path)
  if (!('found' in present)) return present
  const run = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 15_000 })
  if (run.status === 0) return present
  return { rung, outcome: `${path} is there but does not start: ${summary(run.stderr || run.error)}` }
}

const LADDERS: Record<Prerequisite, Ladder> = {
  chromium: {
    purpose: 'the end-to-end tests drive a Chromium',
    looks: [
      playwrightsChromium,
      () => file('CHROME_PATH', process.env.CHROME_PATH),
      () => file(systemPath('/usr/bin/chromium'), systemPath('/usr/bin/chromium')),
      onPath('chromium', 'chromium-browser'),
    ],
    playwright: true,
    debianPackage: 'chromium',
    advice:
      'point CHROME_PATH at a Chrome or Chromium binary, or install one (Debian/Ubuntu: ' +
      'sudo apt-get install -y chromium), or run `npx playwright-core install chromium` where downloads work.',
  },
  'nats-server': {
    purpose: 'the tool-service tests start real NATS brokers',
    looks: [
      () => file('NATS_SERVER', process.env.NATS_SERVER),
      onPath('nats-server'),
      // Debian's place, off the PATH of a user who is not root.
      () => file(systemPath('/usr/sbin/nats-server'), systemPath('/usr/sbin/nats-server')),
    ],
    debianPackage: 'nats-server',
    advice:
      'point NATS_SERVER at a nats-server binary, or install it (Debian/Ubuntu: sudo apt-get install -y nats-server).',
  },
  // Atelier and the tests run these by name, so only the PATH counts.
  ps: fromPath(
    'ps',
    'procps',
    "Atelier ends MCP servers' process trees with `ps`, and the MCP tests check it",
  ),
  ripgrep: fromPath(
    'rg',
    'ripgrep',
    'the search benchmark measures against ripgrep, and `npm test` runs every benchmark once',
  ),
  bubblewrap: fromPath(
    'bwrap',
    'bubblewrap',
    "Atelier confines the agent's commands with bubblewrap on Linux, and the sandbox tests run it",
  ),
  curl: fromPath(
    'curl',
    'curl',
    'the sandbox tests try to reach a loopback server with curl, as a script would',
  ),
  python3: fromPath(
    'python3',
    'python3',
    'the sandbox tests try to push keys into a terminal (TIOCSTI) with python3',
  ),
  openssl: fromPath(
    'openssl',
    'openssl',
    'the broker tests make a private CA and a server certificate with openssl, for NATS over TLS',
  ),
}

/** A program looked for on the PATH only, else Debian's package. */
function fromPath(program: string, debianPackage: string, purpose: string): Ladder {
  return {
    purpose,
    looks: [onPath(program)],
    debianPackage,
    advice: `install ${debianPackage} (Debian/Ubuntu: sudo apt-get install -y ${debianPackage}).`,
  }
}

/** The program if one of the ladder's places has it; what each place said otherwise. */
export function locate(prerequisite: Prerequisite, tried: Attempt[] = []): string | undefined {
  for (const look of LADDERS[prerequisite].looks) {
    const result = look()
    if ('found' in result) return result.found
    tried.push(result)
  }
  return undefined
}

/** `locate`, or an error saying where it looked and that `npm test` provisions it. */
export function requirePrerequisite(prerequisite: Prerequisite): string {
  const tried: Attempt[] = []
  const found = locate(prerequisite, tried)
  if (found) return found
  throw new Error(
    `${failure(prerequisite, tried)}\n\`npm test\` provisions it first (scripts/test-prerequisites.ts).`,
  )
}

export interface Provisioned {
  path: string
  /** How it came to be there: found, or installed by which means. */
  how: 'found' | 'playwright' | 'apt-get'
}

export interface ProvisionOptions {
  /** Whether `apt-get update` already ran in this provisioning run (it runs once for all). */
  aptUpdated?: { done: boolean }
  log?: (line: string) => void
}

/** Each rung in turn: the places to look, then Playwright's download, then apt-get as root. */
export function provision(prerequisite: Prerequisite, options: ProvisionOptions = {}): Provisioned {
  const ladder = LADDERS[prerequisite]
  const log = options.log ?? (() => {})
  const tried: Attempt[] = []
  const found = locate(prerequisite, tried)
  if (found) return { path: found, how: 'found' }

  if (ladder.playwright) {
    log(`${prerequisite}: none found; trying Playwright's download (at most 60 s)…`)
    const outcome = playwrightInstall(prerequisite)
    const afterTried: Attempt[] = []
    const after = locate(prerequisite, afterTried)
    if (after) return { path: after, how: 'playwright' }
    // A download that worked yet left nothing usable says why in the first rung's words.
    const rung = `playwright-core install ${prerequisite}`
    tried.push({
      rung,
      outcome: outcome ?? `it succeeded, but ${afterTried[0]?.outcome ?? 'nothing usable came of it'}`,
    })
  }

  const apt = aptGet(ladder.debianPackage, options.aptUpdated ?? { done: false }, log)
  if (apt === undefined) {
    const after = locate(prerequisite)
    if (after) return { path: after, how: 'apt-get' }
    tried.push({
      rung: `apt-get install ${ladder.debianPackage}`,
      outcome: 'it succeeded, yet none of the places above has the program',
    })
  } else {
    tried.push({ rung: `apt-get install ${ladder.debianPackage}`, outcome: apt })
  }
  throw new Error(`${failure(prerequisite, tried)}\nWhat to do: ${ladder.advice}`)
}

function failure(prerequisite: Prerequisite, tried: Attempt[]): string {
  const lines = tried.map((attempt, index) => `  ${index + 1}. ${attempt.rung}: ${attempt.outcome}`)
  return `No ${prerequisite} found (${LADDERS[prerequisite].purpose}). Tried, in order:\n${lines.join('\n')}`
}

/**
 * Playwright's own download of its browser build, the one this playwright-core expects. Run through
 * the installed playwright-core (what `npx playwright install` would fetch first), bounded: offline
 * it fails within seconds, and a stalled download must not hold `npm test`. Undefined when it worked.
 */
function playwrightInstall(browser: string): string | undefined {
  const cli = join(dirname(createRequire(import.meta.url).resolve('playwright-core/package.json')), 'cli.js')
  const run = spawnSync(process.execPath, [cli, 'install', browser], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: LOG_BUFFER,
  })
  if (run.error) return `did not run: ${firstLine(run.error)}`
  if (run.signal) return 'gave up after 60 s'
  if (run.status !== 0) return `failed (exit ${run.status}): ${summary(run.stderr || run.stdout)}`
  return undefined
}

/** Installs a Debian package as root; undefined when it did, else why not. */
function aptGet(
  debianPackage: string,
  updated: { done: boolean },
  log: (line: string) => void,
): string | undefined {
  const uid = process.getuid?.()
  if (uid !== 0) return `not running as root (uid ${uid ?? 'unknown'}), so no packages are installed`
  const aptGetPath = findOnPath('apt-get')
  if (!aptGetPath) return 'apt-get is not on PATH (not a Debian/Ubuntu machine?)'
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  if (!updated.done) {
    log('apt-get update…')
    const update = spawnSync(aptGetPath, ['update'], {
      encoding: 'utf8',
      env,
      timeout: 300_000,
      maxBuffer: LOG_BUFFER,
    })
    if (update.signal) return 'apt-get update gave up after 5 minutes'
    if (update.status !== 0)
      return `apt-get update failed: ${summary(update.stderr || update.stdout || update.error)}`
    updated.done = true
  }
  log(`apt-get install -y ${debianPackage}…`)
  const install = spawnSync(aptGetPath, ['install', '-y', debianPackage], {
    encoding: 'utf8',
    env,
    timeout: 600_000,
    maxBuffer: LOG_BUFFER,
  })
  if (install.signal) return 'gave up after 10 minutes'
  if (install.status !== 0) return `failed: ${summary(install.stderr || install.stdout || install.error)}`
  return undefined
}

/** An install's whole log is kept in memory for its summary: more than spawnSync's 1 MiB default. */
const LOG_BUFFER = 64 * 1024 * 1024

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''
}

/** The lines that say why a command failed, enough to see why a command failed without its whole log. */
function summary(output: unknown): string {
  const lines = String(output ?? '')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes in a tool's output
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
  const errors = lines.filter((line) => /^(\w*error\b|E:)|fail|unable|denied|not found/i.test(line))
  // The first error says the cause (a host not found); the last, what gave up.
  const picked = errors.length > 0 ? [errors[0], errors.at(-1)] : lines.slice(-2)
  return [...new Set(picked)].join(' … ') || 'no output'
}
