import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { processStartTime } from '../../../src-main/core/process-owner'
import {
  commandIsRunning,
  findOnPath,
  runShellCommand,
  type ShellCommandOptions,
} from '../../../src-main/tools/processes'
import { useTempDirs } from '../../support/temp-dir'

const REPO = fileURLToPath(new URL('../../../', import.meta.url))
const PROCESSES = fileURLToPath(new URL('../../../src-main/tools/processes.ts', import.meta.url))
const CUT = /\n\[… (\d+) bytes of output cut here …\]\n/
const UNIT = 'é€😀' // 2 + 3 + 4 bytes

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A sleep duration no other process uses, so what a command left behind can be found and killed. */
const RUN = `999.${process.pid}${Date.now() % 100_000}`
let sleeps = 0
const uniqueSleep = () => `${RUN}${String(++sleeps).padStart(3, '0')}`

/** Live processes whose command line names `marker` (a zombie is dead, only not yet reaped). */
function liveWith(marker: string): number[] {
  return execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .flatMap((line) => {
      const match = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line)
      return match && !match[2]?.startsWith('Z') && match[3]?.includes(marker) ? [Number(match[1])] : []
    })
}

async function leftovers(marker: string): Promise<number[]> {
  const deadline = performance.now() + 1000
  for (;;) {
    const left = liveWith(marker)
    if (left.length === 0 || performance.now() > deadline) return left
    await delay(25)
  }
}

afterEach(() => {
  for (const pid of liveWith(RUN)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Gone in the meantime.
    }
  }
})

const bash = findOnPath('bash') ?? '/bin/bash'

function run(command: string, options: Partial<ShellCommandOptions> = {}) {
  return runShellCommand({
    file: bash,
    args: ['-c', command],
    cwd: process.cwd(),
    env: process.env,
    timeoutMs: 10_000,
    maxOutputBytes: 100 * 1024,
    signal: new AbortController().signal,
    ...options,
  })
}

describe('runShellCommand', () => {
  describe('output cap', () => {
    it('cuts at whole UTF-8 characters however the halves fall', async () => {
      const units = UNIT.repeat(100)
      // Padding of 0–8 bytes before and after moves both cuts through every byte of a 9-byte unit.
      for (let pad = 0; pad < 9; pad++) {
        const before = 'a'.repeat(pad)
        const after = 'z'.repeat(pad)
        const result = await run(`printf '${before}'; printf '${UNIT}%.0s' {1..2000}; printf '${after}'`, {
          maxOutputBytes: 1024,
        })
        expect(result.truncated.stdout, `pad ${pad}`).toBe(true)
        expect(result.stdout, `pad ${pad}`).not.toContain('\uFFFD')
        const cut = CUT.exec(result.stdout)
        const head = result.stdout.slice(0, cut?.index)
        const tail = result.stdout.slice((cut?.index ?? 0) + (cut?.[0].length ?? 0))
        expect(head.startsWith(before) && units.startsWith(head.slice(pad)), `head, pad ${pad}`).toBe(true)
        expect(
          tail.endsWith(after) && units.endsWith(tail.slice(0, tail.length - pad)),
          `tail, pad ${pad}`,
        ).toBe(true)
        for (const half of [head, tail]) {
          expect(Buffer.byteLength(half), `pad ${pad}`).toBeGreaterThan(512 - 4)
          expect(Buffer.byteLength(half), `pad ${pad}`).toBeLessThanOrEqual(512)
        }
        const total = pad + 2000 * Buffer.byteLength(UNIT) + pad
        expect(Number(cut?.[1]) + Buffer.byteLength(head) + Buffer.byteLength(tail), `pad ${pad}`).toBe(total)
      }
    })

    it('keeps exactly the first and last half of the cap, whatever the output size and read sizes', async () => {
      const cap = 1001 // an odd cap: 501 bytes of head, 500 of tail
      const numbers = Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join('')
      for (const size of [500, 501, 502, 1000, 1001, 1002, 1501, 1502, 4096, 65_536 + 3, numbers.length]) {
        const result = await run(`seq 100000 | head -c ${size}`, { maxOutputBytes: cap })
        const expected = numbers.slice(0, size)
        if (size <= cap) {
          expect({ size, stdout: result.stdout, truncated: result.truncated.stdout }).toEqual({
            size,
            stdout: expected,
            truncated: false,
          })
        } else {
          expect({ size, stdout: result.stdout, truncated: result.truncated.stdout }).toEqual({
            size,
            stdout: `${expected.slice(0, 501)}\n[… ${size - 1001} bytes of output cut here …]\n${expected.slice(-500)}`,
            truncated: true,
          })
        }
      }
    })

    it('keeps exactly the last half of the default cap through many wraps of its ring', async () => {
      const numbers = Array.from({ length: 1_000_000 }, (_, i) => `${i + 1}\n`).join('')
      const result = await run('seq 1000000')
      expect(result.stdout.length).toBe(
        102_400 + `\n[… ${numbers.length - 102_400} bytes of output cut here …]\n`.length,
      )
      expect(result.stdout).toBe(
        `${numbers.slice(0, 51_200)}\n[… ${numbers.length - 102_400} bytes of output cut here …]\n${numbers.slice(-51_200)}`,
      )
    })

    it('keeps an output of exactly the cap whole', async () => {
      const result = await run('head -c 1024 /dev/zero | tr "\\0" x', { maxOutputBytes: 1024 })
      expect(result.stdout).toBe('x'.repeat(1024))
      expect(result.truncated.stdout).toBe(false)
    })
  })

  describe('live output', () => {
    it('never splits a UTF-8 character between two chunks', async () => {
      const texts: string[] = []
      const result = await run(`printf '${UNIT}%.0s' {1..10000}`, {
        onOutput: (_, text) => texts.push(text),
      })
      expect(result.truncated.stdout).toBe(false)
      expect(result.stdout).toBe(UNIT.repeat(10_000))
      const streamed = texts.join('')
      expect(
        { chunks: texts.length > 1, replacementCharacters: streamed.split('\uFFFD').length - 1 },
        'what the user watches live',
      ).toEqual({ chunks: true, replacementCharacters: 0 })
      expect(streamed === UNIT.repeat(10_000)).toBe(true)
    })

    it('keeps stdout and stderr in the order they were written when they go out together', async () => {
      const updates: { stream: string; text: string }[] = []
      await run('echo a; sleep 0.03; echo b >&2; sleep 0.03; echo c; echo d >&2', {
        onOutput: (stream, text) => {
          // As the card shows them: a stream's text joins the run before it when that run is the same stream.
          const last = updates.at(-1)
          if (last?.stream === stream) last.text += text
          else updates.push({ stream, text })
        },
      })
      expect(updates).toEqual([
        { stream: 'stdout', text: 'a\n' },
        { stream: 'stderr', text: 'b\n' },
        { stream: 'stdout', text: 'c\n' },
        { stream: 'stderr', text: 'd\n' },
      ])
    })

    it('sends only whole characters and nothing empty when a character arrives byte by byte', async () => {
      const texts: string[] = []
      const result = await run(
        `printf '\\xf0'; sleep 0.15; printf '\\x9f'; sleep 0.15; printf '\\x98\\x80!'`,
        {
          onOutput: (_, text) => texts.push(text),
        },
      )
      expect(result.stdout).toBe('😀!')
      expect(texts).toEqual(['😀!'])
    })

    it('stops streaming a stream soon after it passes its cap', async () => {
      let streamed = 0
      const result = await run('yes | head -c 10M', {
        maxOutputBytes: 1024,
        onOutput: (_, text) => {
          streamed += Buffer.byteLength(text)
        },
      })
      expect(result.truncated.stdout).toBe(true)
      // The chunk that crosses the cap still goes out; nothing after it.
      expect(streamed).toBeGreaterThanOrEqual(1024)
      expect(streamed).toBeLessThanOrEqual(1024 + 64 * 1024)
    })
  })

  describe('output pipes', () => {
    it('gives the command pipes, as a shell pipeline would', async () => {
      const result = await run(
        'test -p /dev/stdout && echo stdout is a pipe; test -p /dev/stderr && echo stderr is a pipe >&2',
      )
      expect(result).toMatchObject({
        stdout: 'stdout is a pipe\n',
        stderr: 'stderr is a pipe\n',
        exitCode: 0,
      })
    })

    it.skipIf(!existsSync('/proc/self/fd'))(
      'lets no pipe made ahead into the command: only its stdout and stderr are ours',
      async () => {
        await run('true')
        const result = await run('for fd in /proc/$$/fd/*; do echo "$fd $(readlink "$fd")"; done')
        const ours = result.stdout.split('\n').filter((line) => line.includes('atelier-pipes-'))
        expect(ours.map((line) => /\/fd\/(\d+) /.exec(line)?.[1])).toEqual(['1', '2'])
      },
    )

    it('leaves no FIFOs behind: removed at exit, and those of a killed process by the next one', () => {
      const leftBy = (pid: number) =>
        readdirSync(tmpdir()).filter((name) => name.startsWith(`atelier-pipes-${pid}-`))
      const runOnce = (then: string) =>
        spawnSync(
          process.execPath,
          [
            '--import',
            'tsx',
            '-e',
            `import(${JSON.stringify(pathToFileURL(PROCESSES).href)}).then(async ({ runShellCommand }) => {
              await runShellCommand({ file: ${JSON.stringify(bash)}, args: ['-c', 'true'], cwd: '/', env: {},
                timeoutMs: 10000, maxOutputBytes: 1024, signal: new AbortController().signal })
              process.stdout.write(String(process.pid))
              ${then}
            })`,
          ],
          { cwd: REPO, encoding: 'utf8' },
        )
      const killed = runOnce("process.kill(process.pid, 'SIGKILL')")
      expect(killed.signal).toBe('SIGKILL')
      expect(leftBy(Number(killed.stdout))).toHaveLength(1)
      const exited = runOnce('')
      expect(exited.status).toBe(0)
      expect({ killed: leftBy(Number(killed.stdout)), exited: leftBy(Number(exited.stdout)) }).toEqual({
        killed: [],
        exited: [],
      })
    })

    it('keeps each of many commands running at once to its own output', async () => {
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          run(`echo out ${i}; sleep 0.0$((${i} % 5)); echo err ${i} >&2; echo end ${i}`),
        ),
      )
      expect(results.map(({ stdout, stderr }) => ({ stdout, stderr }))).toEqual(
        Array.from({ length: 24 }, (_, i) => ({ stdout: `out ${i}\nend ${i}\n`, stderr: `err ${i}\n` })),
      )
    })

    it('falls back to Node’s pipes where no FIFO can be made (no mkfifo on PATH), with the same results', () => {
      const script = `import(${JSON.stringify(pathToFileURL(PROCESSES).href)}).then(async ({ runShellCommand }) => {
        const texts = []
        const run = (command) => runShellCommand({
          file: ${JSON.stringify(bash)}, args: ['-c', command], cwd: '/', env: { PATH: process.env.COMMAND_PATH },
          timeoutMs: 10000, maxOutputBytes: 1024, signal: new AbortController().signal,
          onOutput: (stream, text) => texts.push([stream, text]),
        })
        const kinds = await run('test -S /dev/stdout && echo socket; test -p /dev/stdout && echo pipe')
        const capped = await run('seq 100000')
        process.stdout.write(JSON.stringify({ kinds: kinds.stdout, capped: capped.stdout, truncated: capped.truncated, texts }))
      })`
      const output = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], {
        cwd: REPO,
        env: { ...process.env, PATH: '/nonexistent-bin', COMMAND_PATH: process.env.PATH },
        encoding: 'utf8',
      })
      const numbers = Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join('')
      const { kinds, capped, truncated, texts } = JSON.parse(output) as {
        kinds: string
        capped: string
        truncated: { stdout: boolean; stderr: boolean }
        texts: [string, string][]
      }
      expect(kinds).toBe('socket\n')
      expect(capped).toBe(
        `${numbers.slice(0, 512)}\n[… ${numbers.length - 1024} bytes of output cut here …]\n${numbers.slice(-512)}`,
      )
      expect(truncated).toEqual({ stdout: true, stderr: false })
      // Live: the first command's line, then the second's first 1024 bytes.
      expect(texts.map(([, text]) => text).join('')).toBe(`socket\n${numbers.slice(0, 1024)}`)
    })
  })

  describe('ending', () => {
    it('reports timed_out after timeoutMs and kills what the command started', async () => {
      const marker = uniqueSleep()
      const started = performance.now()
      const result = await run(`sleep ${marker} & sleep ${marker} & wait`, { timeoutMs: 500 })
      expect(performance.now() - started).toBeGreaterThanOrEqual(500)
      expect(performance.now() - started).toBeLessThan(1500)
      expect(result).toMatchObject({ termination: 'timed_out', exitCode: null, signal: 'SIGKILL' })
      expect(await leftovers(marker)).toEqual([])
    })

    it('reports aborted when the signal fires, and kills what the command started', async () => {
      const marker = uniqueSleep()
      const stop = new AbortController()
      const pending = run(`echo started; sleep ${marker} & wait`, { signal: stop.signal })
      await delay(300)
      expect(liveWith(`sleep ${marker}`).length).toBeGreaterThan(0)
      stop.abort()
      const result = await pending
      expect(result).toMatchObject({ termination: 'aborted', stdout: 'started\n', exitCode: null })
      expect(await leftovers(marker)).toEqual([])
    })

    it('reports aborted, without running on, when the signal has already fired', async () => {
      const stop = new AbortController()
      stop.abort()
      const started = performance.now()
      const result = await run(`sleep ${uniqueSleep()}`, { signal: stop.signal })
      expect(performance.now() - started).toBeLessThan(1000)
      expect(result.termination).toBe('aborted')
    })

    it('reports an interpreter that cannot start, instead of hanging or throwing', async () => {
      const result = await run('echo hi', { file: '/nonexistent/bash' })
      expect(result).toMatchObject({ stdout: '', exitCode: null })
      expect(result.stderr).toContain('ENOENT')
    })
  })
})

describe('commandIsRunning', () => {
  it('is true while any process of the group lives, false once they have all ended or for another start', async () => {
    const sleep = uniqueSleep()
    // The leader exits first; what it started in the background keeps the group running.
    const leader = spawn('sh', ['-c', `sleep ${sleep} & sleep 0.2`], { detached: true, stdio: 'ignore' })
    const pid = leader.pid as number
    try {
      const started = processStartTime(pid)
      expect(commandIsRunning(pid, started)).toBe(true)
      // A later process that took the pid started at another time: not the command.
      expect(commandIsRunning(pid, `${started}1`)).toBe(false)
      await new Promise((resolve) => leader.once('exit', resolve))
      expect(commandIsRunning(pid, started)).toBe(true)
    } finally {
      process.kill(-pid, 'SIGKILL')
    }
    // Killed, the orphan may stay a zombie nobody reaps: ended all the same.
    await delay(100)
    expect(liveWith(sleep)).toEqual([])
    expect(commandIsRunning(pid, undefined)).toBe(false)
  })
})

describe('findOnPath', () => {
  const tempDir = useTempDirs()

  it('returns the first executable of that name along PATH, skipping empty entries and non-executables', () => {
    const plain = tempDir()
    writeFileSync(join(plain, 'tool'), '')
    chmodSync(join(plain, 'tool'), 0o644)
    const first = tempDir()
    symlinkSync(bash, join(first, 'tool'))
    const second = tempDir()
    symlinkSync(bash, join(second, 'tool'))

    expect(findOnPath('tool', `::${plain}:${first}:${second}`)).toBe(join(first, 'tool'))
    expect(findOnPath('tool', plain)).toBeUndefined()
    expect(findOnPath('tool', '')).toBeUndefined()
  })
})
