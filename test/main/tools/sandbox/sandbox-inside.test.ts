/**
 * Issue 30: what a sandboxed command may still do — the work a coding task runs in its folder — and
 * what the model is told when the sandbox refused something; and, with no sandbox on the machine,
 * that nothing pretends to be confined. Real bubblewrap, a real bash, real turns with `bash(*)` allowed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Asker } from '../../../../src-main/approvals/askers'
import { Sandbox } from '../../../../src-main/tools/sandbox/sandbox'
import type { Question } from '../../../../src-shared/questions'
import { livingProcesses } from '../../../support/descendants'
import { requirePrerequisite } from '../../../support/prerequisites'
import { useSandboxedTurns } from '../../../support/sandboxed-turns'
import { OUTSIDE_TMP, useTempDirs } from '../../../support/temp-dir'
import { writeTree } from '../../../support/tool-harness'

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A name only this test file's processes and files carry. */
let names = 0
const uniqueName = (what: string) => `atelier-${what}-${process.pid}-${Date.now()}-${++names}`

async function waitFor(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = performance.now() + ms
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`)
    await delay(25)
  }
}

/**
 * A background process that writes the time to `beat` every 50 ms, named by `name`, and a
 * foreground that waits far longer than the test: the command ends only by a stop or its timeout.
 */
const heartbeat = (name: string) =>
  `sh -c 'while :; do date +%s%N > beat; sleep 0.05; done' ${name} & sleep 60`

/** That nothing of the command lives on: no process carries its name, and the heartbeat stopped. */
async function expectAllEnded(project: string, name: string): Promise<void> {
  await waitFor(() => livingProcesses((args) => args.includes(name)).length === 0, `the end of ${name}`, 2000)
  const last = readFileSync(join(project, 'beat'), 'utf8')
  await delay(300)
  expect(readFileSync(join(project, 'beat'), 'utf8')).toBe(last)
}

describe('the sandbox, inside the folder', { timeout: 60_000 }, () => {
  const sandboxed = useSandboxedTurns()
  const outside = useTempDirs(OUTSIDE_TMP)

  beforeAll(() => {
    requirePrerequisite('bubblewrap')
  })

  it('creates, edits, moves and deletes files and folders, and runs a build script, as in the person’s shell', async () => {
    const { bash, project } = await sandboxed()
    writeTree(project, {
      'src/old.js': 'gone\n',
      'old-dir/nested/file.txt': 'gone\n',
      'build.js':
        "require('fs').mkdirSync('dist', { recursive: true }); require('fs').writeFileSync('dist/out.js', 'built')\n",
    })
    const call = await bash(
      [
        'mkdir -p src/lib',
        "printf 'const a = 1\\n' > src/lib/a.js",
        "sed -i 's/1/2/' src/lib/a.js",
        'mv src/lib/a.js src/lib/b.js',
        'rm src/old.js',
        'rm -r old-dir',
        'node build.js',
      ].join(' && '),
    )
    expect(call).toMatchObject({ isError: false, shell: { exitCode: 0, sandbox: { state: 'sandboxed' } } })
    expect(readFileSync(join(project, 'src/lib/b.js'), 'utf8')).toBe('const a = 2\n')
    expect(existsSync(join(project, 'src/lib/a.js'))).toBe(false)
    expect(existsSync(join(project, 'src/old.js'))).toBe(false)
    expect(existsSync(join(project, 'old-dir'))).toBe(false)
    expect(readFileSync(join(project, 'dist/out.js'), 'utf8')).toBe('built')
  })

  it('runs a tree of subprocesses, each writing its own file', async () => {
    const { bash, project } = await sandboxed()
    const call = await bash(
      `mkdir out && (echo one > out/1.txt & sh -c 'echo two > out/2.txt; sh -c "echo three > out/3.txt" & wait' & wait)`,
    )
    expect(call).toMatchObject({ isError: false, shell: { sandbox: { state: 'sandboxed' } } })
    expect(readdirSync(join(project, 'out')).sort()).toEqual(['1.txt', '2.txt', '3.txt'])
    expect(readFileSync(join(project, 'out/3.txt'), 'utf8')).toBe('three\n')
  })

  it('ends a background process with the command when the person stops it: nothing is left running', async () => {
    const { atelier, bash, chat, project } = await sandboxed()
    const name = uniqueName('stopped')
    const pending = bash(heartbeat(name))
    await waitFor(() => existsSync(join(project, 'beat')), 'the first heartbeat')
    expect(livingProcesses((args) => args.includes(name))).not.toEqual([])

    atelier.agent.stop({ chatId: chat.id })
    const call = await pending
    expect(call).toMatchObject({ errorType: 'aborted', shell: { sandbox: { state: 'sandboxed' } } })
    await expectAllEnded(project, name)
  })

  it('ends a background process with the command at its timeout: nothing is left running', async () => {
    const { bash, project } = await sandboxed({ parameters: { timeoutSeconds: 5 } })
    const name = uniqueName('timed-out')
    const call = await bash(heartbeat(name))
    expect(call).toMatchObject({ errorType: 'timeout', shell: { sandbox: { state: 'sandboxed' } } })
    await expectAllEnded(project, name)
  })

  it('gives each call a temp folder of its own: the next call sees nothing of it, nor does the machine', async () => {
    const { bash } = await sandboxed()
    const name = uniqueName('temp')
    const first = await bash(
      `echo "$TMPDIR"; echo one > "$TMPDIR/${name}" && echo two > /tmp/${name}.2 && ls /tmp`,
    )
    expect(first).toMatchObject({ isError: false, shell: { sandbox: { state: 'sandboxed' } } })
    expect(first.shell.stdout).toMatch(new RegExp(`^/tmp\n(.*\n)*${name}\n${name}.2\n`))

    const second = await bash(`ls -A /tmp "$TMPDIR"; cat /tmp/${name}`)
    expect(second).toMatchObject({ isError: true, shell: { sandbox: { state: 'sandboxed' } } })
    expect(second.shell.stdout).not.toContain(name)
    expect(second.shell.stderr).toContain(`/tmp/${name}: No such file or directory`)
    expect(existsSync(join('/tmp', name))).toBe(false)
    expect(existsSync(join(tmpdir(), name))).toBe(false)
  })

  it('tells the model which path the sandbox refused, and how to ask to leave it', async () => {
    const { bash, home } = await sandboxed()
    const call = await bash('touch ~/notes.txt')
    expect(call).toMatchObject({ isError: true, shell: { sandbox: { state: 'sandboxed' } } })
    expect(call.content).toContain(`The sandbox refused writing ${join(home, 'notes.txt')} (`)
    expect(call.content).toContain('leave_sandbox')
    expect(existsSync(join(home, 'notes.txt'))).toBe(false)
  })

  it('names the path of a refused redirect, not the shell that reports it', async () => {
    const { bash, home } = await sandboxed()
    const call = await bash('echo note > ~/notes.txt')
    expect(call.shell.stderr).toContain(`${join(home, 'notes.txt')}: Read-only file system`)
    expect(call.content).toContain(`The sandbox refused writing ${join(home, 'notes.txt')} (`)
  })

  it('tells the model a connection was refused by the sandbox, which has no network', async () => {
    const { bash } = await sandboxed()
    const call = await bash('echo x > /dev/tcp/127.0.0.1/9')
    expect(call).toMatchObject({ isError: true, shell: { sandbox: { state: 'sandboxed', network: false } } })
    expect(call.content).toMatch(/The sandbox refused [^\n]*network/)
    expect(call.content).toContain('leave_sandbox')
  })

  describe('with no sandbox on this machine', () => {
    const REASON = 'bubblewrap (bwrap) is not installed.'
    const missing = async () => Sandbox.unavailable(REASON)

    /** Records what it was asked and allows it once. */
    function allowingOnce(): Asker & { asked: Question[] } {
      const asked: Question[] = []
      const ask: Asker['ask'] = async (question) => {
        asked.push(question)
        return { decision: 'allow-once' }
      }
      return { asked, ask }
    }

    it('asks in ask mode as without a sandbox, and the card says it ran unconfined, and why', async () => {
      const { bash } = await sandboxed({ rules: [], detectSandbox: missing })
      const target = join(outside(), 'written.txt')
      const asker = allowingOnce()
      const call = await bash(`echo outside > ${target}`, asker)

      expect(asker.asked).toEqual([expect.objectContaining({ kind: 'approval' })])
      expect(call).toMatchObject({
        isError: false,
        shell: { sandbox: { state: 'unavailable', reason: REASON } },
      })
      // Nothing silently "sandboxed": the write outside the folder happened.
      expect(readFileSync(target, 'utf8')).toBe('outside\n')
    })

    it('where the same call, with the sandbox there, runs unasked and confined', async () => {
      const { bash } = await sandboxed({ rules: [] })
      const target = join(outside(), 'written.txt')
      const asker = allowingOnce()
      const call = await bash(`echo outside > ${target}`, asker)

      expect(asker.asked).toEqual([])
      expect(call).toMatchObject({ isError: true, shell: { sandbox: { state: 'sandboxed' } } })
      expect(existsSync(target)).toBe(false)
    })
  })
})
