/**
 * `npm test`'s first step (scripts/test-prerequisites.ts), run for real as a child process in
 * environments the test controls: an empty PATH, Playwright's browsers folder and Debian's `/` moved
 * into temp folders, and a stand-in apt-get that records its calls. The machine itself is never
 * changed: no real apt-get runs, and Playwright's download goes to a closed loopback port.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../support/temp-dir'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** A machine with nothing: no browser anywhere, an empty PATH, no way to download. */
function bareEnvironment(home: string): Record<string, string> {
  const bin = join(home, 'bin')
  mkdirSync(bin)
  return {
    HOME: home,
    PATH: bin,
    PLAYWRIGHT_BROWSERS_PATH: join(home, 'ms-playwright'),
    // Nothing listens on port 9 (discard) here: Playwright's download fails at once, and never fetches.
    PLAYWRIGHT_DOWNLOAD_HOST: 'http://127.0.0.1:9',
    ATELIER_TEST_SYSTEM_ROOT: join(home, 'system-root'),
  }
}

function runStep(env: Record<string, string>, ...prerequisites: string[]) {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'scripts', 'test-prerequisites.ts'), ...prerequisites],
    { cwd: ROOT, env, encoding: 'utf8', timeout: 90_000 },
  )
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

/** Where Playwright looks for its own Chromium in `env` (its browsers folder is the env's). */
function playwrightsPath(env: Record<string, string>): string {
  const script = "import { chromium } from 'playwright-core'; console.log(chromium.executablePath())"
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
  })
  return run.stdout.trim()
}

function fakeExecutable(path: string, body = ''): string {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, `#!/bin/sh\n${body}`)
  chmodSync(path, 0o755)
  return path
}

describe('the test prerequisites step', () => {
  const tempDir = useTempDirs()

  it('uses CHROME_PATH when it points at a browser', () => {
    const env = bareEnvironment(tempDir())
    const browser = fakeExecutable(join(env.HOME ?? '', 'my-chrome', 'chrome'))
    const run = runStep({ ...env, CHROME_PATH: browser }, 'chromium')
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    expect(run.stdout).toContain(`chromium ${browser}`)
  }, 60_000)

  it("uses Playwright's own Chromium first, and passes over one that cannot start", () => {
    const env = bareEnvironment(tempDir())
    const playwrights = playwrightsPath(env)
    expect(playwrights.startsWith(env.PLAYWRIGHT_BROWSERS_PATH ?? '')).toBe(true)
    const other = fakeExecutable(join(env.HOME ?? '', 'my-chrome', 'chrome'))
    fakeExecutable(playwrights, 'echo "Chromium 159.0"\n')
    expect(runStep({ ...env, CHROME_PATH: other }, 'chromium').stdout).toContain(`chromium ${playwrights}`)

    // Playwright's download on a bare machine: there, but missing the libraries it links against.
    fakeExecutable(
      playwrights,
      'echo "chrome: error while loading shared libraries: libnss3.so" >&2\nexit 127\n',
    )
    const run = runStep({ ...env, CHROME_PATH: other }, 'chromium')
    expect(run.status).toBe(0)
    expect(run.stdout).toContain(`chromium ${other}`)
  }, 60_000)

  it('uses NATS_SERVER, and a nats-server on PATH', () => {
    const env = bareEnvironment(tempDir())
    const named = fakeExecutable(join(env.HOME ?? '', 'nats', 'nats-server'))
    expect(runStep({ ...env, NATS_SERVER: named }, 'nats-server').stdout).toContain(`nats-server ${named}`)
    const onPath = fakeExecutable(join(env.PATH ?? '', 'nats-server'))
    expect(runStep(env, 'nats-server').stdout).toContain(`nats-server ${onPath}`)
  }, 60_000)

  it('uses an rg on PATH, and provisions ripgrep with the rest when none is named', () => {
    const env = bareEnvironment(tempDir())
    const rg = fakeExecutable(join(env.PATH ?? '', 'rg'))
    expect(runStep(env, 'ripgrep').stdout).toContain(`ripgrep ${rg}`)

    // Every other program where the step looks first, so the run passes only if it found ripgrep too.
    fakeExecutable(join(env.PATH ?? '', 'nats-server'))
    fakeExecutable(join(env.PATH ?? '', 'ps'))
    fakeExecutable(join(env.PATH ?? '', 'bwrap'))
    fakeExecutable(join(env.PATH ?? '', 'curl'))
    fakeExecutable(join(env.PATH ?? '', 'python3'))
    fakeExecutable(join(env.PATH ?? '', 'openssl'))
    const browser = fakeExecutable(join(env.HOME ?? '', 'my-chrome', 'chrome'))
    const run = runStep({ ...env, CHROME_PATH: browser })
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    expect(run.stdout).toContain(`ripgrep ${rg}`)
  }, 60_000)

  it('fails saying where it looked for rg and what to install', () => {
    const env = bareEnvironment(tempDir())
    const run = runStep(env, 'ripgrep')
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('No ripgrep found (the search benchmark measures against ripgrep')
    expect(run.stderr).toContain('1. rg on PATH: not found')
    expect(run.stderr).toMatch(/2\. apt-get install ripgrep: (not running as root|apt-get is not on PATH)/)
    expect(run.stderr).toContain(
      'What to do: install ripgrep (Debian/Ubuntu: sudo apt-get install -y ripgrep)',
    )
  }, 60_000)

  it('uses a bwrap on PATH for the sandbox, and says what to install when there is none', () => {
    const env = bareEnvironment(tempDir())
    const missing = runStep(env, 'bubblewrap')
    expect(missing.status).toBe(1)
    expect(missing.stderr).toContain("No bubblewrap found (Atelier confines the agent's commands")
    expect(missing.stderr).toContain('1. bwrap on PATH: not found')
    expect(missing.stderr).toContain(
      'What to do: install bubblewrap (Debian/Ubuntu: sudo apt-get install -y bubblewrap)',
    )
    const bwrap = fakeExecutable(join(env.PATH ?? '', 'bwrap'))
    expect(runStep(env, 'bubblewrap').stdout).toContain(`bubblewrap ${bwrap}`)
  }, 60_000)

  it('fails with every rung it tried when there is no browser and no apt-get', () => {
    const env = bareEnvironment(tempDir())
    const run = runStep({ ...env, CHROME_PATH: '/nowhere/chrome' }, 'chromium', 'nats-server')
    expect(run.status).toBe(1)
    const root = env.ATELIER_TEST_SYSTEM_ROOT
    const rungs = [
      `1. Playwright's own Chromium: ${env.PLAYWRIGHT_BROWSERS_PATH}`,
      '2. CHROME_PATH: /nowhere/chrome does not exist',
      `3. ${root}/usr/bin/chromium: does not exist`,
      '4. chromium or chromium-browser on PATH: not found',
      '5. playwright-core install chromium: failed (exit 1)',
      '6. apt-get install chromium: ',
    ]
    for (const rung of rungs) expect(run.stderr).toContain(rung)
    // Not root, or root without apt-get: either way it says which.
    expect(run.stderr).toMatch(/apt-get install chromium: (not running as root|apt-get is not on PATH)/)
    expect(run.stderr).toContain('What to do: point CHROME_PATH at a Chrome or Chromium binary')
    // Every prerequisite is reported, not just the first that failed.
    expect(run.stderr).toContain('No nats-server found')
    expect(run.stderr).toContain('1. NATS_SERVER: not set')
    expect(run.stderr).toContain('2. nats-server on PATH: not found')
    expect(run.stderr).toContain(`3. ${root}/usr/sbin/nats-server`)
    expect(run.stderr).toContain('What to do: point NATS_SERVER at a nats-server binary')
  }, 60_000)

  it("installs Debian's chromium with apt-get when running as root", () => {
    const env = bareEnvironment(tempDir())
    const root = env.ATELIER_TEST_SYSTEM_ROOT ?? ''
    const calls = join(env.HOME ?? '', 'apt-get-calls')
    // Records each call, and puts the program where Debian's package would (under the stand-in `/`).
    writeFileSync(
      join(env.PATH ?? '', 'apt-get'),
      [
        '#!/bin/sh',
        `echo "DEBIAN_FRONTEND=$DEBIAN_FRONTEND $*" >> '${calls}'`,
        'if [ "$1" = install ]; then',
        `  /bin/mkdir -p '${root}/usr/bin'`,
        `  printf '#!/bin/sh\\n' > '${root}/usr/bin/chromium'`,
        `  /bin/chmod 755 '${root}/usr/bin/chromium'`,
        'fi',
        '',
      ].join('\n'),
    )
    chmodSync(join(env.PATH ?? '', 'apt-get'), 0o755)
    const run = runStep(env, 'chromium')
    if (process.getuid?.() !== 0) {
      // Only root installs packages; anyone else is told so.
      expect(run.status).toBe(1)
      expect(run.stderr).toContain('apt-get install chromium: not running as root')
      expect(existsSync(calls)).toBe(false)
      return
    }
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual([
      'DEBIAN_FRONTEND=noninteractive update',
      'DEBIAN_FRONTEND=noninteractive install -y chromium',
    ])
    expect(run.stdout).toContain(`chromium ${root}/usr/bin/chromium (installed by apt-get)`)
  }, 60_000)
})
