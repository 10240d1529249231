/**
 * Attacks on containment, run through the executor of a real Atelier against a real folder tree:
 * every path-taking tool must refuse each one with the right errorType and leave no trace.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { type Atelier, createAtelier, LOCAL_USER } from '../../../src-main/app/create-atelier'
import '../../../src-main/tools/builtin'
import type { ToolCallScope, ToolExecutionResult } from '../../../src-main/tools/executor'
import { useTempDirs } from '../../support/temp-dir'

/** Content of every file outside the project: seeing it in a result means something leaked. */
const MARKER = 'OUTSIDE_SECRET_7f3a9c'
/** A file only a listing of the outside folder could name. */
const HIDDEN = 'hidden-entry-4b1e.txt'
const DENIED_MARKER = 'DENIED_SECRET_d41c'
const PLANTED = 'PLANTED_BY_ATTACK'
const ETC_HOSTNAME_SHA = createHash('sha256').update(readFileSync('/etc/hostname')).digest('hex')

const TOOL_NAMES = ['read_file', 'write_file', 'edit_file', 'list_directory', 'glob', 'grep'] as const
type ToolName = (typeof TOOL_NAMES)[number]

/** Where an attack aims: an existing file, an existing folder, and a file that does not exist yet. */
interface Targets {
  file: string
  dir: string
  fresh: string
}

/** The calls each tool makes at an attack's targets; the argument carrying the path differs. */
const CALLS: Record<ToolName, (t: Targets) => Record<string, unknown>[]> = {
  read_file: (t) => [{ path: t.file }],
  write_file: (t) => [
    { path: t.file, content: PLANTED },
    { path: t.fresh, content: PLANTED },
  ],
  edit_file: (t) => [{ path: t.file, old_string: 'SECRET', new_string: PLANTED }],
  list_directory: (t) => [{ path: t.dir }],
  glob: (t) => [{ pattern: '**/*', cwd: t.dir }],
  grep: (t) => [
    { pattern: 'SECRET', path: t.dir },
    { pattern: 'SECRET', path: t.file },
  ],
}

interface Fixture {
  atelier: Atelier
  /** Real path of the folder holding everything below. */
  root: string
  /** root/proj: the chat's folder. */
  project: string
  /** root/home: $HOME while the suite runs, so `~` attacks never touch the real home. */
  home: string
  dataDir: string
}

interface Attack {
  name: string
  errorType: 'path_denied' | 'invalid_path'
  targets: (fx: Fixture) => Targets
  scope?: Partial<ToolCallScope>
  /** The deniedPaths setting saved for the tool before the attack. */
  deniedPaths?: (fx: Fixture) => string[]
}

const denied = 'path_denied' as const
const ATTACKS: Attack[] = [
  {
    name: '../ escapes',
    errorType: denied,
    targets: () => ({ file: '../outside.txt', dir: '../outside-dir', fresh: '../planted.txt' }),
  },
  {
    name: 'sub/../../ escapes',
    errorType: denied,
    targets: () => ({
      file: 'sub/../../outside.txt',
      dir: 'sub/../../outside-dir',
      fresh: 'sub/../../planted.txt',
    }),
  },
  {
    name: 'absolute paths outside',
    errorType: denied,
    targets: (fx) => ({
      file: join(fx.root, 'outside.txt'),
      dir: join(fx.root, 'outside-dir'),
      fresh: join(fx.root, 'planted.txt'),
    }),
  },
  {
    name: '~/ paths outside',
    errorType: denied,
    targets: () => ({ file: '~/outside-home.txt', dir: '~', fresh: '~/planted.txt' }),
  },
  {
    name: 'a sibling sharing the folder’s name as prefix (proj-evil)',
    errorType: denied,
    targets: (fx) => ({
      file: `${fx.project}-evil/evil.txt`,
      dir: `${fx.project}-evil`,
      fresh: `${fx.project}-evil/planted.txt`,
    }),
  },
  {
    name: 'a symlink inside to /etc',
    errorType: denied,
    targets: () => ({ file: 'etc-link/hostname', dir: 'etc-link', fresh: 'etc-link/hostname' }),
  },
  {
    name: 'a symlink inside to /etc/hostname',
    errorType: denied,
    targets: () => ({ file: 'hostname-link', dir: 'hostname-link', fresh: 'hostname-link' }),
  },
  {
    name: 'a symlink inside to an outside folder',
    errorType: denied,
    targets: () => ({ file: 'outside-link/note.txt', dir: 'outside-link', fresh: 'outside-link/planted.txt' }),
  },
  {
    name: 'a dangling symlink inside pointing outside',
    errorType: denied,
    targets: () => ({ file: 'dangling', dir: 'dangling', fresh: 'dangling' }),
  },
  {
    name: 'a symlink loop (loop-a → loop-b → loop-a)',
    errorType: 'invalid_path',
    targets: () => ({ file: 'loop-a', dir: 'loop-a', fresh: 'loop-a/planted.txt' }),
  },
  {
    name: 'a NUL byte',
    errorType: 'invalid_path',
    targets: () => ({
      file: 'inside.txt\0../../outside.txt',
      dir: 'sub\0../../outside-dir',
      fresh: 'planted.txt\0',
    }),
  },
  {
    name: 'a 5000-character path',
    errorType: 'invalid_path',
    targets: () => {
      const long = `sub/${'x'.repeat(4996)}`
      return { file: long, dir: long, fresh: long }
    },
  },
  {
    name: 'a denied folder reached through a symlink alias',
    errorType: denied,
    deniedPaths: (fx) => [join(fx.project, 'secret')],
    targets: () => ({ file: 'alias/key.txt', dir: 'alias', fresh: 'alias/planted.txt' }),
  },
  {
    name: 'a denied folder by its own name',
    errorType: denied,
    deniedPaths: (fx) => [join(fx.project, 'secret')],
    targets: () => ({ file: 'secret/key.txt', dir: 'secret', fresh: 'secret/planted.txt' }),
  },
  {
    name: 'the app’s data folder by absolute path, restriction off',
    errorType: denied,
    scope: { restrict: false },
    targets: (fx) => ({
      file: join(fx.dataDir, 'atelier.db'),
      dir: fx.dataDir,
      fresh: join(fx.dataDir, 'planted.txt'),
    }),
  },
  {
    name: '~/.ssh, denied by default, restriction off',
    errorType: denied,
    scope: { restrict: false },
    targets: () => ({ file: '~/.ssh/id_rsa', dir: '~/.ssh', fresh: '~/.ssh/planted' }),
  },
]

const realHome = process.env.HOME
afterAll(() => {
  process.env.HOME = realHome
})

/** Everything under `folder` without following symlinks: type, content or link target. */
function tree(folder: string, into: Record<string, string> = {}): Record<string, string> {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name)
    const stat = lstatSync(path)
    if (stat.isSymbolicLink()) into[path] = `link → ${readlinkSync(path)}`
    else if (stat.isDirectory()) {
      into[path] = 'dir'
      tree(path, into)
    } else if (stat.isFile()) into[path] = readFileSync(path, 'utf8')
    else into[path] = 'other'
  }
  return into
}

/** Everything an attack could change: the fixture tree, the data folder, /etc/hostname. */
function snapshot(fx: Fixture) {
  return {
    tree: tree(fx.root),
    // The database files change with every call; anything else appearing there is an effect.
    dataDir: readdirSync(fx.dataDir).filter((name) => !name.startsWith('atelier.db')),
    etcHostname: readFileSync('/etc/hostname', 'utf8'),
  }
}

/** What of the outside a result shows. */
function leaks(result: ToolExecutionResult): string[] {
  return [MARKER, HIDDEN, DENIED_MARKER, 'passwd', ETC_HOSTNAME_SHA].filter((text) =>
    result.content.includes(text),
  )
}

describe('containment attacks', () => {
  const tempDir = useTempDirs()
  const opened: Atelier[] = []
  const children: ChildProcess[] = []
  afterEach(() => {
    for (const atelier of opened.splice(0)) atelier.close()
    for (const child of children.splice(0)) child.kill('SIGKILL')
  })

  /**
   * root/
   *   proj/                    the chat's folder
   *     inside.txt, sub/keep.txt, secret/key.txt
   *     alias → secret, etc-link → /etc, hostname-link → /etc/hostname,
   *     outside-link → ../outside-dir, dangling → ../ghost.txt, loop-a ⇄ loop-b
   *   proj-evil/evil.txt, outside.txt, outside-dir/{note.txt, HIDDEN}
   *   home/outside-home.txt, home/.ssh/id_rsa
   */
  function setup(): Fixture {
    const root = realpathSync(tempDir())
    const project = join(root, 'proj')
    const home = join(root, 'home')
    mkdirSync(join(project, 'sub'), { recursive: true })
    mkdirSync(join(project, 'secret'))
    mkdirSync(join(root, 'proj-evil'))
    mkdirSync(join(root, 'outside-dir'))
    mkdirSync(join(home, '.ssh'), { recursive: true })
    writeFileSync(join(project, 'inside.txt'), 'INSIDE_SECRET ok\n')
    writeFileSync(join(project, 'sub', 'keep.txt'), 'kept\n')
    writeFileSync(join(project, 'secret', 'key.txt'), `${DENIED_MARKER}\n`)
    for (const file of [
      join(root, 'outside.txt'),
      join(root, 'proj-evil', 'evil.txt'),
      join(root, 'outside-dir', 'note.txt'),
      join(root, 'outside-dir', HIDDEN),
      join(home, 'outside-home.txt'),
      join(home, '.ssh', 'id_rsa'),
    ])
      writeFileSync(file, `${MARKER}\n`)
    symlinkSync('secret', join(project, 'alias'))
    symlinkSync('/etc', join(project, 'etc-link'))
    symlinkSync('/etc/hostname', join(project, 'hostname-link'))
    symlinkSync('../outside-dir', join(project, 'outside-link'))
    symlinkSync(join(root, 'ghost.txt'), join(project, 'dangling'))
    symlinkSync('loop-b', join(project, 'loop-a'))
    symlinkSync('loop-a', join(project, 'loop-b'))
    process.env.HOME = home
    const dataDir = realpathSync(tempDir())
    const atelier = createAtelier({ dataDir })
    opened.push(atelier)
    return { atelier, root, project, home, dataDir }
  }

  function run(
    fx: Fixture,
    name: string,
    args: Record<string, unknown>,
    scope: Partial<ToolCallScope> = {},
  ): Promise<ToolExecutionResult> {
    return fx.atelier.tools.executor.execute(
      { name, arguments: args },
      { user: LOCAL_USER, workingDirectory: fx.project, mode: 'agent', restrict: true, ...scope },
    )
  }

  function chat(fx: Fixture, id = 'attack-chat'): string {
    fx.atelier.chats.ensure(id, { workingDir: fx.project, mode: 'agent' })
    return id
  }

  it('runs against every tool it attacks', () => {
    const { atelier } = setup()
    expect(TOOL_NAMES.filter((name) => !atelier.tools.registry.get(name))).toEqual([])
  })

  describe.each(TOOL_NAMES)('%s', (tool) => {
    it.each(ATTACKS)('refuses $name with $errorType and leaves no trace', async (attack) => {
      const fx = setup()
      if (attack.deniedPaths) {
        fx.atelier.tools.settings.update(LOCAL_USER, tool, {
          parameters: { deniedPaths: attack.deniedPaths(fx) },
        })
      }
      const before = snapshot(fx)
      for (const args of CALLS[tool](attack.targets(fx))) {
        const result = await run(fx, tool, args, attack.scope)
        expect(result, JSON.stringify(args)).toMatchObject({ isError: true, errorType: attack.errorType })
        expect(leaks(result), JSON.stringify(args)).toEqual([])
      }
      expect(snapshot(fx)).toEqual(before)
      expect(existsSync(join(fx.root, 'ghost.txt'))).toBe(false)
    })

    it('reaches the same outside targets with restriction off, so the refusals come from it', async () => {
      const fx = setup()
      const chatId = chat(fx)
      // The guard on overwriting wants the file read in this chat first.
      await run(fx, 'read_file', { path: '../outside.txt' }, { restrict: false, chatId })
      for (const args of CALLS[tool](ATTACKS[0]?.targets(fx) as Targets)) {
        const before = snapshot(fx)
        const result = await run(fx, tool, args, { restrict: false, chatId })
        expect(result, JSON.stringify(args)).toMatchObject({ isError: false })
        const effect = leaks(result).length > 0 || !isDeepStrictEqual(snapshot(fx), before)
        expect(effect, `${JSON.stringify(args)} → ${result.content}`).toBe(true)
      }
    })
  })

  describe('controls for the denied paths', () => {
    it('reads the folder behind the alias when it is not denied', async () => {
      const fx = setup()
      const result = await run(fx, 'read_file', { path: 'alias/key.txt' })
      expect(result.isError).toBe(false)
      expect(result.content).toContain(DENIED_MARKER)
    })

    it('reads ~/.ssh once the user empties deniedPaths', async () => {
      const fx = setup()
      fx.atelier.tools.settings.update(LOCAL_USER, 'read_file', { parameters: { deniedPaths: [] } })
      const result = await run(fx, 'read_file', { path: '~/.ssh/id_rsa' }, { restrict: false })
      expect(result.isError).toBe(false)
      expect(result.content).toContain(MARKER)
    })

    it('refuses the data folder even after the user empties deniedPaths', async () => {
      const fx = setup()
      fx.atelier.tools.settings.update(LOCAL_USER, 'list_directory', { parameters: { deniedPaths: [] } })
      const result = await run(fx, 'list_directory', { path: fx.dataDir }, { restrict: false })
      expect(result).toMatchObject({ isError: true, errorType: 'path_denied' })
    })
  })

  describe('chat mode', () => {
    it('resolves relative paths against the process’s folder, not the chat’s', async () => {
      const fx = setup()
      const scope = { mode: 'chat' as const }
      const fromCwd = await run(fx, 'read_file', { path: 'package.json' }, scope)
      expect(fromCwd.isError).toBe(false)
      expect(JSON.parse(fromCwd.content).path).toBe(realpathSync(join(process.cwd(), 'package.json')))
      expect(await run(fx, 'read_file', { path: 'inside.txt' }, scope)).toMatchObject({
        isError: true,
        errorType: 'not_found',
      })
    })
  })

  describe('glob and grep walking the project', () => {
    function withSecretDenied(fx: Fixture) {
      for (const tool of ['glob', 'grep']) {
        fx.atelier.tools.settings.update(LOCAL_USER, tool, {
          parameters: { deniedPaths: [join(fx.project, 'secret')] },
        })
      }
    }

    it('glob never lists what lies behind links to outside or denied folders', async () => {
      const fx = setup()
      withSecretDenied(fx)
      const result = await run(fx, 'glob', { pattern: '**/*' })
      expect(result.isError, result.content).toBe(false)
      const matches = JSON.parse(result.content).matches as string[]
      expect(matches).toContain('inside.txt')
      expect(matches).toContain('sub/keep.txt')
      const behind = matches.filter((m) =>
        /^(etc-link|hostname-link|outside-link|alias|secret|dangling|loop-a|loop-b)\//.test(m),
      )
      expect(behind).toEqual([])
      expect(leaks(result)).toEqual([])
    })

    it('grep never searches what lies behind links to outside or denied folders', async () => {
      const fx = setup()
      withSecretDenied(fx)
      const secrets = await run(fx, 'grep', { pattern: 'SECRET', path: '.' })
      expect(secrets.isError, secrets.content).toBe(false)
      const files = (JSON.parse(secrets.content).matches as { file: string }[]).map((m) => m.file)
      expect([...new Set(files)]).toEqual(['inside.txt'])
      expect(leaks(secrets)).toEqual([])
      // /etc/passwd starts with root's entry: found only if grep followed etc-link.
      const etc = await run(fx, 'grep', { pattern: 'root:', path: '.' })
      expect(etc.isError, etc.content).toBe(false)
      expect(JSON.parse(etc.content).matches).toEqual([])
    })
  })

  describe('glob and grep results fed into read_file', () => {
    const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

    async function readsSameFiles(fx: Fixture, paths: string[], scope: Partial<ToolCallScope>) {
      expect(paths.length).toBeGreaterThan(0)
      for (const path of paths) {
        const read = await run(fx, 'read_file', { path }, scope)
        expect(read.isError, read.content).toBe(false)
        const expected = isAbsolute(path) ? path : join(fx.project, path)
        expect(JSON.parse(read.content).sha256, path).toBe(sha(expected))
      }
    }

    it.each([
      ['agent', { mode: 'agent' as const }, false],
      ['chat', { mode: 'chat' as const }, true],
    ])('glob matches read the same files (%s mode)', async (mode, scope, absolute) => {
      const fx = setup()
      const args = absolute ? { pattern: '**/*.txt', cwd: fx.project } : { pattern: '**/*.txt' }
      const result = await run(fx, 'glob', args, scope)
      expect(result.isError, result.content).toBe(false)
      const matches = JSON.parse(result.content).matches as string[]
      expect(matches).toContain(absolute ? join(fx.project, 'inside.txt') : 'inside.txt')
      await readsSameFiles(fx, matches, scope)
    })

    it.each([
      ['agent', { mode: 'agent' as const }, false],
      ['chat', { mode: 'chat' as const }, true],
    ])('grep matches read the same files (%s mode)', async (mode, scope, absolute) => {
      const fx = setup()
      const result = await run(fx, 'grep', { pattern: 'kept|INSIDE', path: absolute ? fx.project : '.' }, scope)
      expect(result.isError, result.content).toBe(false)
      const files = [...new Set((JSON.parse(result.content).matches as { file: string }[]).map((m) => m.file))]
      expect(files.sort()).toEqual(
        mode === 'agent'
          ? ['inside.txt', 'sub/keep.txt']
          : [join(fx.project, 'inside.txt'), join(fx.project, 'sub', 'keep.txt')],
      )
      await readsSameFiles(fx, files, scope)
    })
  })

  describe('read_file on hostile files', () => {
    it('refuses a FIFO with no writer within a second', async () => {
      const fx = setup()
      const fifo = join(fx.project, 'pipe')
      execFileSync('mkfifo', [fifo])
      const started = performance.now()
      const hang = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 2000))
      const outcome = await Promise.race([run(fx, 'read_file', { path: 'pipe' }), hang])
      if (outcome === 'hung') {
        // Release the reader blocked in open() so the worker thread is not lost.
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
      }
      expect(performance.now() - started).toBeLessThan(1000)
      expect(outcome).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect((outcome as ToolExecutionResult).content).toContain('FIFO')
    })

    it('refuses /dev/zero with restriction off', async () => {
      const fx = setup()
      const result = await run(fx, 'read_file', { path: '/dev/zero' }, { restrict: false })
      expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(result.content).toContain('not a regular file')
    })

    /** Runs a read while sampling the resident set, so a read that buffers the whole file shows. */
    async function readMeasuringMemory(fx: Fixture, path: string) {
      const baseline = process.memoryUsage().rss
      let peak = baseline
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss)
      }, 2)
      try {
        const result = await run(fx, 'read_file', { path })
        peak = Math.max(peak, process.memoryUsage().rss)
        return { result, growth: peak - baseline }
      } finally {
        clearInterval(sampler)
      }
    }

    it('refuses a huge sparse file at the 10 MiB ceiling without filling memory', async () => {
      const fx = setup()
      const file = join(fx.project, 'sparse.bin')
      writeFileSync(file, '')
      truncateSync(file, 8 * 1024 ** 3)
      const { result, growth } = await readMeasuringMemory(fx, 'sparse.bin')
      expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(result.content).toContain('larger than 10 MiB')
      expect(growth).toBeLessThan(200 * 1024 ** 2)
    })

    it('refuses a file another process keeps appending to at the 10 MiB ceiling', async () => {
      const fx = setup()
      const file = join(fx.project, 'growing.log')
      writeFileSync(file, '')
      // 1 MiB every few milliseconds, stopping on its own at 1 GiB should the test not kill it.
      const appender = spawn(process.execPath, [
        '-e',
        `const fs = require('node:fs'); const fd = fs.openSync(${JSON.stringify(file)}, 'a');
         const chunk = Buffer.alloc(1 << 20, 0x61); const pause = new Int32Array(new SharedArrayBuffer(4));
         for (let i = 0; i < 1024; i++) { fs.writeSync(fd, chunk); Atomics.wait(pause, 0, 0, 3) }`,
      ])
      children.push(appender)
      while (statSync(file).size <= 11 * 1024 ** 2) await new Promise((r) => setTimeout(r, 5))
      const { result, growth } = await readMeasuringMemory(fx, 'growing.log')
      expect(appender.exitCode, 'the file must still be growing during the read').toBeNull()
      expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
      expect(result.content).toContain('larger than 10 MiB')
      expect(growth).toBeLessThan(200 * 1024 ** 2)
    })
  })

  describe('write_file and edit_file after an external change', () => {
    it.each([
      ['write_file', { path: 'doc.txt', content: 'mine\n' }],
      ['edit_file', { path: 'doc.txt', old_string: 'theirs', new_string: 'mine' }],
    ])('%s refuses with not_read even when the mtime was put back', async (tool, args) => {
      const fx = setup()
      const chatId = chat(fx)
      const doc = join(fx.project, 'doc.txt')
      writeFileSync(doc, 'original\n')
      const read = await run(fx, 'read_file', { path: 'doc.txt' }, { chatId })
      expect(read.isError).toBe(false)
      const { atime, mtime } = statSync(doc)
      writeFileSync(doc, 'theirs!!\n')
      utimesSync(doc, atime, mtime)
      expect(statSync(doc).mtimeMs).toBe(mtime.getTime())
      expect(statSync(doc).size).toBe(Buffer.byteLength('original\n'))

      const result = await run(fx, tool, args, { chatId })
      expect(result).toMatchObject({ isError: true, errorType: 'not_read' })
      expect(readFileSync(doc, 'utf8')).toBe('theirs!!\n')
    })
  })

  describe('write_file killed mid-write', () => {
    const WRITER = fileURLToPath(new URL('../../fixtures/file-writer.ts', import.meta.url))
    const ROUNDS = 15
    const TEMPORARY = /\.atelier-[0-9a-f]+\.tmp$/
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

    function startWriter(args: string[]) {
      const child = spawn(process.execPath, ['--import', 'tsx', WRITER, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      children.push(child)
      let output = ''
      let stderr = ''
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk
      })
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk
      })
      const ready = new Promise<void>((resolve, reject) => {
        const poll = setInterval(() => {
          if (output.startsWith('ready\n')) resolve()
          else if (child.exitCode !== null) reject(new Error(`writer exited early: ${stderr}`))
          else return
          clearInterval(poll)
        }, 5)
      })
      const writes = () => output.split('\n').filter((line) => line === 'wrote').length
      const failure = () => stderr
      return { child, ready, writes, failure }
    }

    function killHard(child: ChildProcess): Promise<void> {
      return new Promise((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      })
    }

    it('leaves the old content or the new, never a mix, and at most one temporary file per kill', async () => {
      const project = realpathSync(tempDir())
      const dataDir = tempDir()
      const contentsDir = tempDir()
      const a = `${'A'.repeat(63)}\n`.repeat(64 * 1024)
      const b = `${'B'.repeat(47)}\n`.repeat(48 * 1024)
      writeFileSync(join(contentsDir, 'a'), a)
      writeFileSync(join(contentsDir, 'b'), b)
      const target = join(project, 'big.txt')
      writeFileSync(target, a)

      let writes = 0
      let temporaries = 0
      for (let round = 0; round < ROUNDS; round++) {
        const writer = startWriter([dataDir, project, 'big.txt', join(contentsDir, 'a'), join(contentsDir, 'b')])
        await writer.ready
        await sleep(50 + Math.random() * 250)
        expect(writer.child.exitCode, writer.failure()).toBeNull()
        await killHard(writer.child)
        writes += writer.writes()

        const content = readFileSync(target, 'utf8')
        expect(content === a || content === b, `round ${round}: a mix of ${content.length} chars`).toBe(true)
        const others = readdirSync(project).filter((name) => name !== 'big.txt')
        expect(others.filter((name) => !TEMPORARY.test(name)), `round ${round}`).toEqual([])
        expect(others.length - temporaries, `round ${round}: temporaries left by one kill`).toBeLessThanOrEqual(1)
        temporaries = others.length
      }
      // The test means nothing unless the writer really overwrote the file before dying.
      expect(writes).toBeGreaterThan(ROUNDS)
    }, 60_000)
  })
})
