import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, LOCAL_USER } from '../../../../src-main/app/create-atelier'
import { findInterpreter, shellEnvironment } from '../../../../src-main/tools/builtin/shell'
import type { ToolCallScope, ToolExecutionResult } from '../../../../src-main/tools/executor'
import { DEFAULT_DENIED_PATHS } from '../../../../src-main/tools/paths'
import { findOnPath, type ShellCommandResult } from '../../../../src-main/tools/processes'
import { useTempDirs } from '../../../support/temp-dir'
import { turnSandboxOff, useToolHarness } from '../../../support/tool-harness'

const REPO = fileURLToPath(new URL('../../../../', import.meta.url))
const BUILTIN_INDEX = fileURLToPath(new URL('../../../../src-main/tools/builtin/index.ts', import.meta.url))
const GiB = 1024 * 1024 * 1024
const MiB = 1024 * 1024
const CUT = /\n\[… (\d+) bytes of output cut here …\]\n/

/** A capped stream's text as head, the number of bytes dropped, and tail; undefined when not cut. */
function splitAtCut(text: string): { head: string; dropped: number; tail: string } | undefined {
  const cut = CUT.exec(text)
  if (!cut) return undefined
  return {
    head: text.slice(0, cut.index),
    dropped: Number(cut[1]),
    tail: text.slice(cut.index + cut[0].length),
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Every sleep this file starts has a duration no other process on the machine uses, so the
 * processes a command left behind can be found (and killed) by it.
 */
const RUN = `999.${process.pid}${Date.now() % 100_000}`
let sleeps = 0
const uniqueSleep = () => `${RUN}${String(++sleeps).padStart(3, '0')}`

interface ProcessRow {
  pid: number
  pgid: number
  stat: string
  args: string
}

/** Live processes: a zombie is already dead, only not yet reaped by whoever inherited it. */
function liveProcesses(): ProcessRow[] {
  return execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .flatMap((line) => {
      const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line)
      if (!match || match[3]?.startsWith('Z')) return []
      return [{ pid: Number(match[1]), pgid: Number(match[2]), stat: match[3] ?? '', args: match[4] ?? '' }]
    })
}

const sleepsOf = (marker: string) => liveProcesses().filter((row) => row.args === `sleep ${marker}`)

/** What is left of a command after it ended: its group, and anything naming its marker. */
async function leftovers(marker: string, pgid?: number): Promise<ProcessRow[]> {
  const deadline = performance.now() + 1000
  for (;;) {
    const left = liveProcesses().filter((row) => row.pgid === pgid || row.args.includes(marker))
    // SIGKILL is delivered at once, but a process can still show for a moment before it is gone.
    if (left.length === 0 || performance.now() > deadline) return left
    await delay(25)
  }
}

afterEach(() => {
  for (const row of liveProcesses().filter((row) => row.args.includes(RUN))) {
    try {
      process.kill(row.pid, 'SIGKILL')
    } catch {
      // Gone in the meantime.
    }
  }
})

describe('bash tool', () => {
  const harness = useToolHarness()
  const tempDir = useTempDirs()

  /** The harness with bash turned on (5 s budget unless said otherwise). */
  function setup(parameters: Record<string, unknown> = {}) {
    const fixture = harness()
    enable(fixture.atelier, parameters)
    const bash = async (args: unknown, overrides: Partial<ToolCallScope> = {}) => {
      const result = await fixture.run('bash', args, overrides)
      const shell = result.display?.kind === 'shell' ? result.display : undefined
      // The card's "cut" marker and the result's Truncated badge say the same thing.
      if (shell) expect(result.truncated).toBe(shell.truncated.stdout || shell.truncated.stderr)
      return { result, data: shell as ShellCommandResult }
    }
    return { ...fixture, bash }
  }

  function enable(atelier: Atelier, parameters: Record<string, unknown> = {}) {
    atelier.tools.settings.update(LOCAL_USER, 'bash', {
      enabled: true,
      parameters: { timeoutSeconds: 5, ...parameters },
    })
  }

  describe('settings', () => {
    it('is registered but off by default, and refuses calls until the user turns it on', async () => {
      const { atelier, project, run } = harness()
      const listed = atelier.tools.settings.list(LOCAL_USER).tools.find((tool) => tool.name === 'bash')
      expect(listed).toMatchObject({
        enabled: false,
        enabledByDefault: false,
        category: 'system',
        parameters: {
          timeoutSeconds: 30,
          maxOutputBytes: 102400,
          passEnvironment: [],
          passSecretsToShell: false,
          allowedPaths: [],
          deniedPaths: DEFAULT_DENIED_PATHS,
        },
      })

      const refused = await run('bash', { command: 'touch ran' })
      expect(refused).toMatchObject({ isError: true, errorType: 'not_enabled' })
      expect(refused.content).toContain('turned off')
      expect(existsSync(join(project, 'ran'))).toBe(false)

      enable(atelier)
      expect(await run('bash', { command: 'touch ran' })).toMatchObject({ isError: false })
      expect(existsSync(join(project, 'ran'))).toBe(true)
    })

    it('refuses a timeout outside 5–600 s and an output cap outside 1 KiB–1 MiB', () => {
      const { atelier } = harness()
      const update = (parameters: Record<string, unknown>) => () =>
        atelier.tools.settings.update(LOCAL_USER, 'bash', { parameters })
      for (const bad of [{ timeoutSeconds: 4 }, { timeoutSeconds: 601 }]) {
        expect(update(bad), JSON.stringify(bad)).toThrow(/timeoutSeconds/)
      }
      for (const bad of [{ maxOutputBytes: 1023 }, { maxOutputBytes: MiB + 1 }]) {
        expect(update(bad), JSON.stringify(bad)).toThrow(/maxOutputBytes/)
      }
      update({ timeoutSeconds: 600, maxOutputBytes: 1024 })()
      expect(atelier.tools.settings.get(LOCAL_USER, 'bash').parameters).toMatchObject({
        timeoutSeconds: 600,
        maxOutputBytes: 1024,
      })
    })
  })

  describe('availability', () => {
    /** The built-in tool names a fresh Node process registers when PATH is only `bin`. */
    function builtinNamesWithPath(bin: string): string[] {
      const script = `import(${JSON.stringify(pathToFileURL(BUILTIN_INDEX).href)}).then(({ builtinTools }) =>
        process.stdout.write(JSON.stringify(builtinTools.list().map((entry) => entry.tool.definition.name))))`
      const output = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], {
        cwd: REPO,
        env: { PATH: bin },
        encoding: 'utf8',
      })
      return JSON.parse(output) as string[]
    }

    it('registers only the shells whose interpreter is on PATH at import', () => {
      const bash = findOnPath('bash')
      if (!bash) throw new Error('these tests need bash on PATH')
      const bin = tempDir()
      symlinkSync(bash, join(bin, 'bash'))
      const names = builtinNamesWithPath(bin)
      expect(names).toContain('bash')
      expect(names).toContain('read_file')
      expect(names).not.toContain('zsh')
      expect(names).not.toContain('powershell')

      // The same import does offer zsh once something executable answers to the name.
      symlinkSync(bash, join(bin, 'zsh'))
      expect(builtinNamesWithPath(bin)).toContain('zsh')
    })

    describe('findInterpreter', () => {
      it('finds nothing where the shell is absent, and no powershell off Windows', () => {
        expect(findInterpreter('zsh', '/nonexistent')).toBeUndefined()
        expect(findInterpreter('bash', '/nonexistent')).toBeUndefined()
        if (process.platform !== 'win32') {
          expect(findInterpreter('powershell')).toBeUndefined()
          const bin = tempDir()
          symlinkSync(findOnPath('bash') ?? '/bin/bash', join(bin, 'pwsh'))
          expect(findInterpreter('powershell', bin)).toBeUndefined()
        }
      })

      it('takes an executable file of that name and runs commands with -c, skipping one not executable', () => {
        const notExecutable = tempDir()
        writeFileSync(join(notExecutable, 'zsh'), '#!/bin/sh\n')
        chmodSync(join(notExecutable, 'zsh'), 0o644)
        const executable = tempDir()
        writeFileSync(join(executable, 'zsh'), '#!/bin/sh\n')
        chmodSync(join(executable, 'zsh'), 0o755)

        expect(findInterpreter('zsh', notExecutable)).toBeUndefined()
        const found = findInterpreter('zsh', `${notExecutable}:${executable}`)
        expect(found?.file).toBe(join(executable, 'zsh'))
        expect(found?.args('echo hi')).toEqual(['-c', 'echo hi'])
      })
    })
  })

  describe('timeout', () => {
    async function expectTimedOutAndGroupKilled(command: (sleep: string) => string) {
      const { bash } = setup({ timeoutSeconds: 5 })
      const marker = uniqueSleep()
      const started = performance.now()
      const pending = bash({ command: command(marker) })
      await delay(1000)
      // Both sleeps really run before the deadline, so "none left" below means they were killed.
      expect(sleepsOf(marker)).toHaveLength(2)

      const { result, data } = await pending
      const elapsed = performance.now() - started
      expect(elapsed).toBeGreaterThanOrEqual(5000)
      expect(elapsed).toBeLessThan(6500)
      expect(result).toMatchObject({ isError: true, errorType: 'timeout' })
      expect(result.content.startsWith('The command timed out after 5s')).toBe(true)
      expect(data).toMatchObject({ termination: 'timed_out', exitCode: null })
      const pgid = Number.parseInt(data.stdout, 10)
      expect(pgid).toBeGreaterThan(1)
      expect(await leftovers(marker, pgid)).toEqual([])
    }

    it('kills the command and every process it started after timeoutSeconds', async () => {
      await expectTimedOutAndGroupKilled((sleep) => `echo $$; sleep ${sleep} & sleep ${sleep} & wait`)
    })

    it('kills them even when the shell and a subshell ignore SIGTERM', async () => {
      await expectTimedOutAndGroupKilled(
        (sleep) => `trap "" TERM; echo $$; (trap "" TERM; sleep ${sleep} & sleep ${sleep} & wait) & wait`,
      )
    })
  })

  it('returns as soon as the shell exits, even while a background grandchild holds its output pipe', async () => {
    const { atelier, bash } = setup()
    // Unsandboxed: in the sandbox's own process namespace the grandchild ends with the shell (below).
    turnSandboxOff(atelier)
    const marker = uniqueSleep()
    const started = performance.now()
    const { result, data } = await bash({ command: `(sleep ${marker} &); echo hi` })
    expect(performance.now() - started).toBeLessThan(1500)
    expect(result.isError).toBe(false)
    expect(data).toMatchObject({ stdout: 'hi\n', stderr: '', exitCode: 0, termination: 'exited' })
    // The grandchild is still there holding the pipe, so the prompt return is not by luck.
    expect(sleepsOf(marker)).toHaveLength(1)
  })

  it('ends a background process with the command when sandboxed: nothing it started outlives it', async () => {
    const { bash } = setup()
    const marker = uniqueSleep()
    const { result, data } = await bash({ command: `(sleep ${marker} &); echo hi` })
    expect(result.isError).toBe(false)
    expect(data).toMatchObject({ stdout: 'hi\n', exitCode: 0, sandbox: { state: 'sandboxed' } })
    expect(await leftovers(marker)).toEqual([])
  })

  describe('user stop', () => {
    it('kills the command group and reports aborted, not a timeout', async () => {
      const { bash } = setup({ timeoutSeconds: 30 })
      const marker = uniqueSleep()
      const stop = new AbortController()
      const pending = bash({ command: `echo started; sleep ${marker}; echo never` }, { signal: stop.signal })
      await delay(300)
      expect(sleepsOf(marker)).toHaveLength(1)

      const stoppedAt = performance.now()
      stop.abort()
      const { result, data } = await pending
      expect(performance.now() - stoppedAt).toBeLessThan(1000)
      expect(result).toMatchObject({ isError: true, errorType: 'aborted' })
      expect(result.content).not.toMatch(/timed out/i)
      expect(await leftovers(marker)).toEqual([])
      // What ran until the stop is what the user saw streaming; the result keeps it.
      expect(data).toMatchObject({ termination: 'aborted', stdout: 'started\n' })
    })
  })

  describe('output cap', () => {
    /** Runs a call while sampling this process's resident memory; returns the growth in bytes. */
    async function withMemorySampled<T>(call: () => Promise<T>): Promise<{ value: T; growth: number }> {
      const baseline = process.memoryUsage().rss
      let peak = baseline
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss)
      }, 20)
      try {
        const value = await call()
        return { value, growth: Math.max(peak, process.memoryUsage().rss) - baseline }
      } finally {
        clearInterval(sampler)
      }
    }

    it('keeps the first and last 50 KiB of 1 GiB of stdout, in bounded memory', async () => {
      const { bash } = setup({ timeoutSeconds: 60 })
      const { value, growth } = await withMemorySampled(() => bash({ command: 'yes | head -c 1G' }))
      const { result, data } = value
      expect(result.isError).toBe(false)
      expect(data).toMatchObject({
        exitCode: 0,
        termination: 'exited',
        truncated: { stdout: true, stderr: false },
      })

      const cut = splitAtCut(data.stdout)
      expect(cut?.head).toBe('y\n'.repeat(25_600))
      expect(cut?.tail).toBe('y\n'.repeat(25_600))
      expect(cut?.dropped).toBe(GiB - 102_400)
      const marker = `\n[… ${GiB - 102_400} bytes of output cut here …]\n`
      expect(data.stdout.length).toBeLessThanOrEqual(102_400 + marker.length)
      expect(growth).toBeLessThan(100 * MiB)
    })

    it('caps stderr the same way, flagging only stderr', async () => {
      const { bash } = setup({ timeoutSeconds: 60 })
      const { value, growth } = await withMemorySampled(() =>
        bash({ command: 'head -c 1G /dev/urandom >&2' }),
      )
      const { data } = value
      expect(data).toMatchObject({
        stdout: '',
        exitCode: 0,
        termination: 'exited',
        truncated: { stdout: false, stderr: true },
      })
      const dropped = splitAtCut(data.stderr)?.dropped
      // Random bytes: up to 3 more bytes on each side may go to keep whole characters.
      expect(dropped).toBeGreaterThanOrEqual(GiB - 102_400)
      expect(dropped).toBeLessThanOrEqual(GiB - 102_400 + 6)
      expect(growth).toBeLessThan(100 * MiB)
    })

    it('never splits a UTF-8 character where it cuts', async () => {
      const { bash } = setup({ maxOutputBytes: 1024 })
      // 9 bytes a unit, so neither 512-byte half ends on a character boundary.
      const { result, data } = await bash({ command: `printf 'é€😀%.0s' {1..20000}` })
      expect(result.isError).toBe(false)
      expect(data.truncated.stdout).toBe(true)
      expect(data.stdout).not.toContain('\uFFFD')
      expect(result.content).not.toContain('\uFFFD')
      const { head = '', tail = '' } = splitAtCut(data.stdout) ?? {}
      const units = 'é€😀'.repeat(100)
      expect(units.startsWith(head)).toBe(true)
      expect(units.endsWith(tail)).toBe(true)
      for (const half of [head, tail]) {
        expect(Buffer.byteLength(half)).toBeGreaterThan(512 - 4)
        expect(Buffer.byteLength(half)).toBeLessThanOrEqual(512)
      }
    })

    it('still shows the model the end of a capped output and the exit code', async () => {
      const { bash } = setup()
      const { result, data } = await bash({ command: 'yes | head -c 300000; echo THE-END; exit 4' })
      expect(data).toMatchObject({ exitCode: 4, truncated: { stdout: true } })
      expect(data.stdout.endsWith('THE-END\n')).toBe(true)
      // `content` is all the model reads of the call.
      expect({
        cutAgainByExecutor: result.content.includes('[Output truncated:'),
        showsTheEnd: result.content.includes('THE-END'),
        showsTheExitCode: result.content.startsWith('exit code 4, exited'),
      }).toEqual({ cutAgainByExecutor: false, showsTheEnd: true, showsTheExitCode: true })
    })
  })

  describe('exit status', () => {
    it('returns both streams and exit code 0 as a success', async () => {
      const { bash } = setup()
      const { result, data } = await bash({ command: 'echo out; echo err >&2' })
      expect(result.isError).toBe(false)
      expect(data).toMatchObject({
        stdout: 'out\n',
        stderr: 'err\n',
        exitCode: 0,
        signal: null,
        termination: 'exited',
        truncated: { stdout: false, stderr: false },
      })
      expect(result.content).toMatch(/^exit code 0, exited, \d+ ms\nstdout:\nout\n\nstderr:\nerr\n$/)
    })

    it('reports a non-zero exit code as an error result', async () => {
      const { bash } = setup()
      const { result, data } = await bash({ command: 'echo partial; exit 3' })
      expect(result).toMatchObject({ isError: true, errorType: 'execution_failed' })
      expect(data).toMatchObject({ stdout: 'partial\n', exitCode: 3, signal: null, termination: 'exited' })
    })

    it('reports a shell killed by a signal as signalled, with no exit code', async () => {
      const { bash } = setup()
      const { result, data } = await bash({ command: 'kill -TERM $$' })
      expect(result.isError).toBe(true)
      expect(data).toMatchObject({ exitCode: null, signal: 'SIGTERM', termination: 'signalled' })
    })
  })

  describe('live output', () => {
    it('streams stdout chunks while the command runs', async () => {
      const { bash } = setup()
      const updates: { at: number; progress: unknown }[] = []
      const { data } = await bash(
        { command: 'echo one; sleep 0.5; echo two' },
        { onUpdate: (progress) => updates.push({ at: performance.now(), progress }) },
      )
      const ended = performance.now()
      expect(data.stdout).toBe('one\ntwo\n')
      expect(updates[0]?.progress).toEqual({ kind: 'output', stream: 'stdout', text: 'one\n' })
      expect(ended - (updates[0]?.at ?? ended)).toBeGreaterThan(300)
      expect(updates.map(({ progress }) => (progress as { text: string }).text).join('')).toBe('one\ntwo\n')
    })

    it('sends a burst of small writes as a few updates, at most every 100 ms, all of them before the result', async () => {
      const { bash } = setup()
      const updates: { at: number; text: string }[] = []
      let resultIn = false
      let afterResult = 0
      const lines = 150
      // One write per line, about 4 ms apart (the sleep is a process of its own): far more chunks than updates.
      const { data } = await bash(
        { command: `for i in $(seq ${lines}); do echo "line $i"; sleep 0.002; done` },
        {
          onUpdate: (progress) => {
            if (resultIn) afterResult++
            if (progress.kind === 'output') updates.push({ at: performance.now(), text: progress.text })
          },
        },
      )
      resultIn = true
      await delay(250)
      const expected = Array.from({ length: lines }, (_, i) => `line ${i + 1}\n`).join('')
      expect(data.stdout).toBe(expected)
      // What the card shows live is the whole output (it is under the cap), and it was all there before the result.
      expect(updates.map((update) => update.text).join('')).toBe(expected)
      expect(afterResult).toBe(0)
      expect(updates.length).toBeGreaterThan(1)
      expect(updates.length).toBeLessThan(lines / 3)
      // While it runs, updates are 100 ms apart; what waits when it ends goes out at once (the last gap).
      const gaps = updates.slice(1, -1).map((update, i) => update.at - (updates[i]?.at ?? 0))
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(90)
    })

    it('streams stderr under its own name', async () => {
      const { bash } = setup()
      const updates: unknown[] = []
      await bash({ command: 'echo oops >&2' }, { onUpdate: (progress) => updates.push(progress) })
      expect(updates).toEqual([{ kind: 'output', stream: 'stderr', text: 'oops\n' }])
    })
  })

  it('gives the command an empty stdin', async () => {
    const { bash } = setup()
    const started = performance.now()
    const { data } = await bash({ command: 'cat' })
    expect(performance.now() - started).toBeLessThan(1500)
    expect(data).toMatchObject({ stdout: '', exitCode: 0, termination: 'exited' })
  })

  describe('cwd', () => {
    it("runs in the chat's folder by default in agent mode", async () => {
      const { bash, project } = setup()
      expect((await bash({ command: 'pwd' })).data.stdout).toBe(`${project}\n`)
    })

    it('runs in a folder given relative to the chat folder, or absolute inside it', async () => {
      const { bash, folder } = setup()
      const deep = folder('sub', 'deep')
      expect((await bash({ command: 'pwd', cwd: 'sub/deep' })).data.stdout).toBe(`${deep}\n`)
      expect((await bash({ command: 'pwd', cwd: deep })).data.stdout).toBe(`${deep}\n`)
    })

    it('refuses a cwd outside the chat folder, also through a symlink, and runs nothing', async () => {
      const { bash, project, outside } = setup()
      symlinkSync(outside, join(project, 'link'))
      for (const cwd of ['..', '/etc', outside, 'link']) {
        const { result } = await bash({ command: `touch "${project}/ran"`, cwd })
        expect(result, cwd).toMatchObject({ isError: true, errorType: 'path_denied' })
      }
      expect(existsSync(join(project, 'ran'))).toBe(false)
    })

    it('refuses a cwd that is a file or missing, and runs nothing', async () => {
      const { bash, project } = setup()
      writeFileSync(join(project, 'file.txt'), 'x')
      for (const cwd of ['file.txt', 'missing']) {
        const { result } = await bash({ command: `touch "${project}/ran"`, cwd })
        expect(result, cwd).toMatchObject({ isError: true, errorType: 'not_found' })
        expect(result.content).toContain('is not a folder')
      }
      expect(existsSync(join(project, 'ran'))).toBe(false)
    })
  })

  describe('secrets', () => {
    const SECRETS = {
      OPENAI_API_KEY: 'sk-test-openai',
      MY_SERVICE_TOKEN: 'token-value-1',
      DB_PASSWORD: 'password-value-2',
      GITHUB_TOKEN: 'github-value-3',
      // Named like nothing secret, and secrets all the same: a denylist of names let these through.
      DATABASE_URL: 'postgres://app:hunter2-db@db.internal:5432/app',
      GH_PAT: 'ghp_pat-value-5',
      NPM_CONFIG__AUTH: 'npm-auth-value-6',
      OPENAI_KEY: 'sk-openai-value-7',
      AWS_ACCESS_KEY_ID: 'AKIA-value-8',
      ATELIER_DATA_DIR: '/home/me/.config/Atelier-value-9',
    }
    const variables = { ...SECRETS, PLAIN: 'plain-value-4' }

    /** Sets the variables on this process for one test, as the user's environment would have them. */
    async function withEnvironment<T>(body: () => Promise<T>): Promise<T> {
      const before = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]))
      Object.assign(process.env, variables)
      try {
        return await body()
      } finally {
        for (const [name, value] of Object.entries(before)) {
          if (value === undefined) delete process.env[name]
          else process.env[name] = value
        }
      }
    }

    it('hides API keys, tokens, database URLs and every variable nobody named from commands by default', async () => {
      const { bash } = setup()
      const { data } = await withEnvironment(() => bash({ command: 'env' }))
      const lines = data.stdout.split('\n')
      // What a shell needs still comes through.
      expect(lines).toContain(`PATH=${process.env.PATH}`)
      expect(lines).toContain(`HOME=${process.env.HOME}`)
      for (const [name, value] of Object.entries(variables)) {
        expect(data.stdout, name).not.toContain(`${name}=`)
        expect(data.stdout, name).not.toContain(value)
      }
    })

    it('passes a variable the user names in passEnvironment, and still no other', async () => {
      const { bash } = setup({ passEnvironment: ['PLAIN', 'GH_*'] })
      const { data } = await withEnvironment(() => bash({ command: 'env' }))
      const lines = data.stdout.split('\n')
      expect(lines).toContain('PLAIN=plain-value-4')
      expect(lines).toContain(`GH_PAT=${SECRETS.GH_PAT}`)
      for (const [name, value] of Object.entries(SECRETS).filter(([name]) => name !== 'GH_PAT')) {
        expect(data.stdout, name).not.toContain(value)
      }
    })

    it('passes everything when the user allows secrets', async () => {
      const { bash } = setup({ passSecretsToShell: true })
      const { data } = await withEnvironment(() => bash({ command: 'env' }))
      const lines = data.stdout.split('\n')
      for (const [name, value] of Object.entries(variables)) expect(lines).toContain(`${name}=${value}`)
    })

    describe('shellEnvironment', () => {
      const env = {
        PATH: '/usr/bin',
        HOME: '/home/me',
        LANG: 'en_GB.UTF-8',
        LC_TIME: 'de_DE.UTF-8',
        TERM: 'xterm-256color',
        PLAIN: 'v',
        OPENAI_API_KEY: 'a',
        GITHUB_TOKEN: 'g',
        DATABASE_URL: 'postgres://u:pass@host/db',
        aws_secret_access_key: 'h',
      }
      const none = { passSecrets: false, passEnvironment: [], platform: 'linux' } as const

      it('keeps what a shell needs and nothing else', () => {
        expect(shellEnvironment(env, none)).toEqual({
          PATH: '/usr/bin',
          HOME: '/home/me',
          LANG: 'en_GB.UTF-8',
          LC_TIME: 'de_DE.UTF-8',
          TERM: 'xterm-256color',
        })
      })

      it('adds the names and prefixes the user lists, matching case exactly outside Windows', () => {
        expect(shellEnvironment(env, { ...none, passEnvironment: ['PLAIN', 'DATABASE_*', 'path'] })).toEqual({
          PATH: '/usr/bin',
          HOME: '/home/me',
          LANG: 'en_GB.UTF-8',
          LC_TIME: 'de_DE.UTF-8',
          TERM: 'xterm-256color',
          PLAIN: 'v',
          DATABASE_URL: 'postgres://u:pass@host/db',
        })
      })

      it('keeps the system variables Windows programs need, in whatever case they are spelled', () => {
        const windows = {
          Path: 'C:\\Windows\\system32',
          SystemRoot: 'C:\\Windows',
          COMSPEC: 'C:\\Windows\\system32\\cmd.exe',
          PATHEXT: '.COM;.EXE;.BAT',
          USERPROFILE: 'C:\\Users\\me',
          APPDATA: 'C:\\Users\\me\\AppData\\Roaming',
          'ProgramFiles(x86)': 'C:\\Program Files (x86)',
          GITHUB_TOKEN: 'g',
        }
        const { GITHUB_TOKEN: _, ...needed } = windows
        expect(shellEnvironment(windows, { ...none, platform: 'win32' })).toEqual(needed)
        expect(shellEnvironment({ SystemRoot: 'C:\\Windows' }, none)).toEqual({})
      })

      it('passes a copy of everything when secrets are allowed', () => {
        const passed = shellEnvironment(env, { ...none, passSecrets: true })
        expect(passed).toEqual(env)
        expect(passed).not.toBe(env)
      })
    })
  })

  describe('git settings', () => {
    const READ_BACK =
      'git config --get safe.bareRepository; git config --get core.fsmonitor; env | grep ^GIT_CONFIG | sort'

    it('gives every git a command runs safe.bareRepository=explicit and core.fsmonitor=false', async () => {
      const { bash } = setup()
      const { data } = await bash({ command: READ_BACK })
      expect(data.stdout).toBe(
        [
          'explicit',
          'false',
          'GIT_CONFIG_COUNT=2',
          'GIT_CONFIG_KEY_0=safe.bareRepository',
          'GIT_CONFIG_KEY_1=core.fsmonitor',
          'GIT_CONFIG_VALUE_0=explicit',
          'GIT_CONFIG_VALUE_1=false',
          '',
        ].join('\n'),
      )
    })

    it('adds them after the settings the person passes through, keeping theirs', async () => {
      const { bash } = setup({ passEnvironment: ['GIT_CONFIG_*'] })
      // Theirs try to turn core.fsmonitor back on; the enforced value comes later and wins.
      const theirs = {
        GIT_CONFIG_COUNT: '2',
        GIT_CONFIG_KEY_0: 'core.fsmonitor',
        GIT_CONFIG_VALUE_0: 'touch pwned',
        GIT_CONFIG_KEY_1: 'user.name',
        GIT_CONFIG_VALUE_1: 'Ada',
      }
      Object.assign(process.env, theirs)
      try {
        const { data } = await bash({
          command: 'git config --get user.name; git config --get core.fsmonitor',
        })
        expect(data.stdout).toBe('Ada\nfalse\n')
      } finally {
        for (const name of Object.keys(theirs)) delete process.env[name]
      }
    })
  })

  describe('arguments', () => {
    it('refuses malformed arguments with validation_failed and runs nothing', async () => {
      const { bash, project } = setup()
      const ran = `touch "${project}/ran"`
      const malformed: unknown[] = [
        '{"command": 42}',
        '{}',
        JSON.stringify({ command: ran, cwd: 5 }),
        { command: '' },
        { command: ran, extra: true },
        `{"command": "${ran}"`,
      ]
      for (const args of malformed) {
        const { result } = await bash(args)
        expect(result, JSON.stringify(args)).toMatchObject<Partial<ToolExecutionResult>>({
          isError: true,
          errorType: 'validation_failed',
        })
        expect(result.content).toContain('Invalid arguments for bash')
      }
      expect(existsSync(join(project, 'ran'))).toBe(false)
    })
  })
})
