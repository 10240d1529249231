import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach } from 'vitest'
import type { TurnEvent } from '../../../src-shared/agent'
import { type FakeProvider, startFakeProvider } from '../../support/fake-provider'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
/** The CLI under test is the built one, exactly as `npm install` leaves it (npm test builds first). */
export const BIN = join(ROOT, 'bin', 'atelier.js')
const exec = promisify(execFile)

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs the built CLI on a data folder; a non-zero exit is a result to check, not a failure. */
export function atelier(dataDir: string, ...args: string[]): Promise<CliResult> {
  return atelierWith({}, dataDir, ...args)
}

/** The same, with variables added to the environment (a home folder of its own: `HOME`). */
export function atelierWith(env: NodeJS.ProcessEnv, dataDir: string, ...args: string[]): Promise<CliResult> {
  return runAs([], env, dataDir, args)
}

/**
 * How to run a command as a user whom file modes bind: root writes through any mode, so under root
 * the CLI runs as `nobody` (uid and gid 65534); undefined where that is not possible (no setpriv).
 */
export const UNPRIVILEGED: readonly string[] | undefined =
  process.getuid?.() !== 0
    ? []
    : existsSync('/usr/bin/setpriv')
      ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']
      : undefined

/** Runs the built CLI as UNPRIVILEGED says; its folders must be reachable by uid 65534 when the tests run as root. */
export function atelierUnprivileged(dataDir: string, ...args: string[]): Promise<CliResult> {
  if (!UNPRIVILEGED)
    throw new Error('No unprivileged user to run as: skip this test where UNPRIVILEGED is undefined.')
  return runAs(UNPRIVILEGED, {}, dataDir, args)
}

async function runAs(
  prefix: readonly string[],
  env: NodeJS.ProcessEnv,
  dataDir: string,
  args: string[],
): Promise<CliResult> {
  const [command, ...rest] = [...prefix, process.execPath, BIN, '--data-dir', dataDir, ...args]
  try {
    const { stdout, stderr } = await exec(command as string, rest, {
      timeout: 60_000,
      // `run --json` prints every event, tool results with their display payloads: megabytes for a long turn.
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, ...env },
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: unknown; stdout?: string; stderr?: string }
    if (typeof code !== 'number') throw error
    return { code, stdout: stdout ?? '', stderr: stderr ?? '' }
  }
}

/** `run PROMPT` against the fake provider's Chat Completions endpoint with model `m`, in `project`. */
export function fakeRunArgs(
  fake: FakeProvider,
  project: string,
  prompt: string,
  ...extra: string[]
): string[] {
  return [
    'run',
    prompt,
    '--provider',
    'openai-chat',
    '--base-url',
    fake.baseUrlFor('openai-chat'),
    '--model',
    'm',
    '--cwd',
    project,
    ...extra,
  ]
}

/** The events a `run --json` printed, one NDJSON line each. */
export function runEvents({ stdout }: CliResult): TurnEvent[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as TurnEvent)
}

/** Starts fake providers for a test file's tests, each closed after its test. */
export function useFakeProviders(): () => Promise<FakeProvider> {
  const fakes: FakeProvider[] = []
  afterEach(async () => {
    for (const fake of fakes.splice(0)) await fake.close()
  })
  return async () => {
    const fake = await startFakeProvider()
    fakes.push(fake)
    return fake
  }
}
