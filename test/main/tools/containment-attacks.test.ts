/**
 * Attacks on containment, run through the executor of a real Atelier against a real folder tree:
 * every path-taking tool must refuse each one with the right errorType and leave no trace.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  closeSync,
  constants,
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
  writeFileSync,
} from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, createAtelier, LOCAL_USER } from '../../../src-main/app/create-atelier'
import '../../../src-main/tools/builtin'
// Redundant once builtin/index.ts imports them (the same module is loaded once); needed until then.
import '../../../src-main/tools/builtin/glob'
import '../../../src-main/tools/builtin/grep'
import type { ToolCallScope, ToolExecutionResult } from '../../../src-main/tools/executor'
import { defaultDeniedPaths } from '../../../src-main/tools/paths'
import { killHard, startFixture } from '../../support/fixture-process'
import { withMemorySampled } from '../../support/memory'
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
const DOTDOT_ESCAPE: Attack = {
  name: '../ escapes',
  errorType: denied,
  targets: () => ({ file: '../outside.txt', dir: '../outside-dir', fresh: '../planted.txt' }),
}
const ATTACKS: Attack[] = [
  DOTDOT_ESCAPE,
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
    targets: () => ({
      file: 'outside-link/note.txt',
      dir: 'outside-link',
      fresh: 'outside-link/planted.txt',
    }),
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
    name: 'a denied path named through its symlink alias, reached by its real name',
    errorType: denied,
    deniedPaths: (fx) => [join(fx.project, 'alias')],
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

/** A failure message short enough to read when the path is 5000 characters long. */
function describeCall(args: Record<string, unknown>, result: ToolExecutionResult): string {
  const short = (text: string) => (text.length > 160 ? `${text.slice(0, 160)}…` : text)
  return `${short(JSON.stringify(args))} → ${short(result.content)}`
}

describe('containment attacks', () => {
  const tempDir = useTempDirs()
  const opened: Atelier[] = []
  const children: ChildProcess[] = []
  const realHome = process.env.HOME
  afterEach(() => {
    process.env.HOME = realHome
    for (const atelier of opened.splice(0)) atelier.close()
    for (const child of children.splice(0)) child.kill('SIGKILL')
  })

  /**
   * root/
   *   proj/                    the chat's folder
   *     inside.txt, sub/keep.txt, secret/key.txt
   *     alias → secret, etc-link → /etc, hostname-link → /etc/hostname,
   *     outside-link → ../outside-dir, outside-note.txt → ../outside.txt,
   *     dangling → ../ghost.txt, loop-a ⇄ loop-b
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
    symlinkSync('../outside.txt', join(project, 'outside-note.txt'))
    symlinkSync(join(root, 'ghost.txt'), join(project, 'dangling'))
    symlinkSync('loop-b', join(project, 'loop-a'))
    symlinkSync('loop-a', join(project, 'loop-b'))
    // `~` attacks then aim at a home of the test's own, never at the real one.
    process.env.HOME = home
    const dataDir = realpathSync(tempDir())
    const atelier = createAtelier({ dataDir })
    opened.push(atelier)
    return { atelier, root, project, dataDir }
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
        expect(result, describeCall(args, result)).toMatchObject({
          isError: true,
          errorType: attack.errorType,
        })
        expect(leaks(result), describeCall(args, result)).toEqual([])
      }
      expect(snapshot(fx)).toEqual(before)
    })

    it('reaches the same outside targets with restriction off, so the refusals come from it', async () => {
      const fx = setup()
      const chatId = chat(fx)
      // The guard on overwriting wants the file read in this chat first.
      await run(fx, 'read_file', { path: '../outside.txt' }, { restrict: false, chatId })
      for (const args of CALLS[tool](DOTDOT_ESCAPE.targets(fx))) {
        const before = snapshot(fx)
        const result = await run(fx, tool, args, { restrict: false, chatId })
        expect(result, describeCall(args, result)).toMatchObject({ isError: false })
        const effect = leaks(result).length > 0 || !isDeepStrictEqual(snapshot(fx), before)
        expect(effect, describeCall(args, result)).toBe(true)
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

  describe('the default denied paths', () => {
    /** Credentials under the home folder, Linux locations; each holds DENIED_MARKER. */
    const HOME_SECRETS = [
      '.git-credentials',
      '.npmrc',
      '.netrc',
      '.pypirc',
      '.config/gh/hosts.yml',
      '.docker/config.json',
      '.kube/config',
      '.config/google-chrome/Default/Cookies',
      '.config/chromium/Default/Login Data',
      '.mozilla/firefox/x1y2.default-release/logins.json',
      '.config/BraveSoftware/Brave-Browser/Default/Login Data',
      '.password-store/github.com.gpg',
      '.local/share/keyrings/login.keyring',
      '.config/Bitwarden/data.json',
    ]

    function withHomeSecrets(): Fixture & { home: string } {
      const fx = setup()
      const home = join(fx.root, 'home')
      for (const file of HOME_SECRETS) {
        mkdirSync(join(home, file, '..'), { recursive: true })
        writeFileSync(join(home, file), `${DENIED_MARKER}\n`)
      }
      return { ...fx, home }
    }

    it.each(HOME_SECRETS)(
      'refuses to read ~/%s, by ~ and by absolute path, restriction off',
      async (file) => {
        const fx = withHomeSecrets()
        for (const path of [`~/${file}`, join(fx.home, file)]) {
          const result = await run(fx, 'read_file', { path }, { restrict: false })
          expect(result, path).toMatchObject({ isError: true, errorType: 'path_denied' })
          expect(leaks(result)).toEqual([])
        }
      },
    )

    it('refuses them through a symlink in the project, and grep and glob over home never show them', async () => {
      const fx = withHomeSecrets()
      symlinkSync(join(fx.home, '.npmrc'), join(fx.project, 'npmrc-link'))
      expect(await run(fx, 'read_file', { path: 'npmrc-link' })).toMatchObject({ errorType: 'path_denied' })
      for (const tool of ['grep', 'glob']) {
        fx.atelier.tools.settings.update(LOCAL_USER, tool, { parameters: { includeDotfiles: true } })
      }
      const scope = { restrict: false }
      const grep = await run(fx, 'grep', { pattern: DENIED_MARKER, path: '~' }, scope)
      expect(grep.isError).toBe(false)
      expect(grep.content).not.toContain(DENIED_MARKER)
      const glob = await run(fx, 'glob', { pattern: '**/*', cwd: '~' }, scope)
      expect(glob.content).toContain('outside-home.txt')
      for (const file of HOME_SECRETS) expect(glob.content).not.toContain(file)
    })

    it.each(['darwin', 'win32'] as const)(
      'denies every %s default as a real folder under home, spaces in names included',
      async (platform) => {
        const fx = setup()
        const home = join(fx.root, 'home')
        const entries = defaultDeniedPaths(platform)
        fx.atelier.tools.settings.update(LOCAL_USER, 'read_file', { parameters: { deniedPaths: entries } })
        for (const entry of entries) {
          const file = join(home, entry.slice(2), 'secret')
          mkdirSync(join(file, '..'), { recursive: true })
          writeFileSync(file, `${DENIED_MARKER}\n`)
          const result = await run(fx, 'read_file', { path: file }, { restrict: false })
          expect(result, entry).toMatchObject({ errorType: 'path_denied' })
        }
      },
    )

    const STARTUP_FILE = 'export PATH="$HOME/bin:$PATH"\n'

    it('lets read_file read ~/.bashrc, but write_file and edit_file refuse it and every other start-up file', async () => {
      const fx = setup()
      const home = join(fx.root, 'home')
      writeFileSync(join(home, '.bashrc'), STARTUP_FILE)
      const scope = { restrict: false, chatId: chat(fx) }

      const read = await run(fx, 'read_file', { path: '~/.bashrc' }, scope)
      expect(read.isError).toBe(false)
      expect(read.content).toContain('export PATH=')
      for (const call of [
        { tool: 'write_file', args: { path: '~/.bashrc', content: PLANTED } },
        { tool: 'edit_file', args: { path: '~/.bashrc', old_string: 'export', new_string: PLANTED } },
        { tool: 'write_file', args: { path: '~/.zshrc', content: PLANTED } },
        { tool: 'write_file', args: { path: '~/.profile', content: PLANTED } },
        { tool: 'write_file', args: { path: '~/.config/fish/config.fish', content: PLANTED } },
        { tool: 'write_file', args: { path: '~/.config/powershell/profile.ps1', content: PLANTED } },
      ]) {
        const result = await run(fx, call.tool, call.args, scope)
        expect(result, `${call.tool} ${call.args.path}`).toMatchObject({
          isError: true,
          errorType: 'path_denied',
        })
      }
      expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe(STARTUP_FILE)
      expect(readdirSync(home).sort()).toEqual(['.bashrc', '.ssh', 'outside-home.txt'])
    })

    it('shows the start-up files in write_file’s own deniedPaths, where taking one off lets the write through', async () => {
      const fx = setup()
      const home = join(fx.root, 'home')
      writeFileSync(join(home, '.bashrc'), STARTUP_FILE)
      const deniedOf = (tool: string) =>
        fx.atelier.tools.settings.get(LOCAL_USER, tool).parameters.deniedPaths
      expect(deniedOf('write_file')).toContain('~/.bashrc')
      expect(deniedOf('edit_file')).toContain('~/.bashrc')
      expect(deniedOf('read_file')).not.toContain('~/.bashrc')

      const scope = { restrict: false, chatId: chat(fx) }
      const without = (deniedOf('write_file') as string[]).filter((entry) => entry !== '~/.bashrc')
      fx.atelier.tools.settings.update(LOCAL_USER, 'write_file', { parameters: { deniedPaths: without } })
      await run(fx, 'read_file', { path: '~/.bashrc' }, scope)
      expect(
        await run(fx, 'write_file', { path: '~/.bashrc', content: 'alias ll="ls -l"\n' }, scope),
      ).toMatchObject({
        isError: false,
      })
      expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('alias ll="ls -l"\n')
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

  describe('glob patterns and grep filters that climb out of the folder', () => {
    // <root> stands for the folder around the project, known only once the fixture exists.
    it.each([
      { tool: 'glob', name: 'pattern ../*', args: { pattern: '../*' } },
      { tool: 'glob', name: 'pattern ../outside-dir/**', args: { pattern: '../outside-dir/**' } },
      { tool: 'glob', name: 'pattern sub/../../*', args: { pattern: 'sub/../../*' } },
      { tool: 'glob', name: 'pattern <root>/outside-dir/*', args: { pattern: '<root>/outside-dir/*' } },
      { tool: 'glob', name: 'pattern outside-link/*', args: { pattern: 'outside-link/*' } },
      { tool: 'glob', name: 'pattern etc-link/pass*', args: { pattern: 'etc-link/pass*' } },
      { tool: 'glob', name: 'pattern /etc/pass*', args: { pattern: '/etc/pass*' } },
      {
        tool: 'glob',
        name: 'pattern {../outside.txt,../outside-dir/*,inside.txt}',
        args: { pattern: '{../outside.txt,../outside-dir/*,inside.txt}' },
      },
      {
        tool: 'grep',
        name: 'glob filter ../**',
        args: { pattern: 'SECRET|root:', path: '.', glob: '../**' },
      },
      {
        tool: 'grep',
        name: 'glob filter /etc/*',
        args: { pattern: 'SECRET|root:', path: '.', glob: '/etc/*' },
      },
    ])('$tool with $name is refused or finds nothing outside', async ({ tool, args }) => {
      const fx = setup()
      const result = await run(fx, tool, JSON.parse(JSON.stringify(args).replaceAll('<root>', fx.root)))
      if (result.isError) expect(result.errorType, result.content).toBe('path_denied')
      else {
        const { matches } = JSON.parse(result.content) as { matches: (string | { file: string })[] }
        const names = matches.map((match) => (typeof match === 'string' ? match : match.file))
        expect(names.filter((name) => isAbsolute(name) || name.startsWith('..'))).toEqual([])
      }
      expect(leaks(result)).toEqual([])
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

    // In chat mode no folder is in play: the folder is given absolute, and results come back absolute.
    // In agent mode outside-note.txt, a link to a file outside, must not be offered: read_file refuses it.
    it.each(['agent', 'chat'] as const)('glob matches read the same files (%s mode)', async (mode) => {
      const fx = setup()
      const named = (path: string) => (mode === 'agent' ? path : join(fx.project, path))
      const args = mode === 'agent' ? { pattern: '**/*.txt' } : { pattern: '**/*.txt', cwd: fx.project }
      const result = await run(fx, 'glob', args, { mode })
      expect(result.isError, result.content).toBe(false)
      const matches = JSON.parse(result.content).matches as string[]
      expect(matches).toEqual(expect.arrayContaining([named('inside.txt'), named('sub/keep.txt')]))
      await readsSameFiles(fx, matches, { mode })
    })

    it.each(['agent', 'chat'] as const)('grep matches read the same files (%s mode)', async (mode) => {
      const fx = setup()
      const named = (path: string) => (mode === 'agent' ? path : join(fx.project, path))
      const args = { pattern: 'kept|INSIDE', path: mode === 'agent' ? '.' : fx.project }
      const result = await run(fx, 'grep', args, { mode })
      expect(result.isError, result.content).toBe(false)
      const matches = JSON.parse(result.content).matches as { file: string }[]
      const files = [...new Set(matches.map((match) => match.file))].sort()
      expect(files).toEqual([named('inside.txt'), named('sub/keep.txt')])
      await readsSameFiles(fx, files, { mode })
    })
  })

  describe('a checked folder swapped for a symlink before it is used', () => {
    // Any process working in the project (a build, a watcher, a command the agent started) can
    // replace a folder that passed the check by a link to outside; what is opened must still be inside.
    it('never lets read_file, grep or write_file reach outside', async () => {
      const fx = setup()
      mkdirSync(join(fx.project, 'swap'))
      writeFileSync(join(fx.project, 'swap', 'note.txt'), 'inside\n')
      symlinkSync('../outside-dir', join(fx.project, 'swap-link'))
      const outsideDir = join(fx.root, 'outside-dir')
      const outsideBefore = readdirSync(outsideDir)
      const swapper = spawn(
        process.execPath,
        [
          '-e',
          `const fs = require('node:fs'); const step = (f) => { try { f() } catch {} };
           for (;;) { step(() => fs.renameSync('swap', 'swap-dir')); step(() => fs.renameSync('swap-link', 'swap'));
                      step(() => fs.renameSync('swap', 'swap-link')); step(() => fs.renameSync('swap-dir', 'swap')) }`,
        ],
        { cwd: fx.project },
      )
      children.push(swapper)
      const attempts: [string, (i: number) => Record<string, unknown>][] = [
        ['read_file', () => ({ path: 'swap/note.txt' })],
        ['grep', () => ({ pattern: MARKER, path: 'swap/note.txt' })],
        ['grep', () => ({ pattern: MARKER, path: '.' })],
        ['write_file', (i) => ({ path: `swap/planted-${i}.txt`, content: PLANTED })],
      ]
      const leaked: Record<string, number> = {}
      const outcomes = new Set<string>()
      for (const [tool, args] of attempts) {
        for (let i = 0; i < 250; i++) {
          const result = await run(fx, tool, args(i))
          outcomes.add(result.errorType ?? 'ok')
          const call = `${tool} ${JSON.stringify(args(0))}`
          if (leaks(result).length > 0) leaked[call] = (leaked[call] ?? 0) + 1
        }
      }
      // Stopped before looking, so the tree holds still.
      await killHard(swapper)
      const planted = readdirSync(outsideDir).filter((name) => !outsideBefore.includes(name))
      // The race really ran: some calls found the folder, others the link.
      expect([...outcomes]).toEqual(expect.arrayContaining(['ok', 'path_denied']))
      expect({ leaked, planted: planted.length }).toEqual({ leaked: {}, planted: 0 })
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
      const { value: result, growth } = await withMemorySampled(() => run(fx, 'read_file', { path }))
      return { result, growth }
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
      // touch -r keeps the nanoseconds that utimes' millisecond Dates would lose.
      const times = join(tempDir(), 'times')
      execFileSync('touch', ['-r', doc, times])
      const { mtimeNs } = statSync(doc, { bigint: true })
      writeFileSync(doc, 'theirs!!\n')
      execFileSync('touch', ['-r', times, doc])
      expect(statSync(doc, { bigint: true }).mtimeNs).toBe(mtimeNs)
      expect(statSync(doc).size).toBe(Buffer.byteLength('original\n'))

      const result = await run(fx, tool, args, { chatId })
      expect(result).toMatchObject({ isError: true, errorType: 'not_read' })
      expect(readFileSync(doc, 'utf8')).toBe('theirs!!\n')
    })
  })

  describe('write_file killed mid-write', () => {
    const WRITER = fileURLToPath(new URL('../../fixtures/file-writer.ts', import.meta.url))
    const ROUNDS = 15
    /** On a loaded machine kills may keep missing the writes: go on until one has landed mid-write. */
    const MAX_ROUNDS = 45
    const TEMPORARY = /\.atelier-[0-9a-f]+\.tmp$/
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

    function startWriter(args: string[]) {
      const writer = startFixture(WRITER, args)
      children.push(writer.child)
      return writer
    }

    it('leaves the old content or the new, never a mix, and no temporary file once Atelier starts again', async () => {
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
      let leftByKills = 0
      // Each round's writer is the restart after the kill before it.
      let leftByLastKill: string[] = []
      for (let round = 0; round < ROUNDS || (leftByKills === 0 && round < MAX_ROUNDS); round++) {
        const writer = startWriter([
          dataDir,
          project,
          'big.txt',
          join(contentsDir, 'a'),
          join(contentsDir, 'b'),
        ])
        await writer.ready
        const present = readdirSync(project)
        expect(
          leftByLastKill.filter((name) => present.includes(name)),
          `round ${round}: left by the last kill after the restart`,
        ).toEqual([])
        await sleep(50 + Math.random() * 250)
        expect(writer.child.exitCode, writer.stderr()).toBeNull()
        await killHard(writer.child)
        writes += writer.lines().filter((line) => line === 'wrote').length

        const content = readFileSync(target, 'utf8')
        expect(content === a || content === b, `round ${round}: a mix of ${content.length} chars`).toBe(true)
        leftByLastKill = readdirSync(project).filter((name) => name !== 'big.txt')
        expect(
          leftByLastKill.filter((name) => !TEMPORARY.test(name)),
          `round ${round}`,
        ).toEqual([])
        expect(leftByLastKill.length, `round ${round}: temporaries left by one kill`).toBeLessThanOrEqual(1)
        leftByKills += leftByLastKill.length
      }
      const content = readFileSync(target, 'utf8')
      await createAtelier({ dataDir }).close()
      expect(readdirSync(project), 'after the last restart').toEqual(['big.txt'])
      expect(readFileSync(target, 'utf8')).toBe(content)
      // The test means nothing unless kills really came mid-write and left temporary files behind.
      expect(leftByKills).toBeGreaterThan(0)
      // The test means nothing unless the writer really overwrote the file before dying (on a loaded
      // machine a round may see no whole write; the kills mid-write above are what it needs).
      expect(writes).toBeGreaterThan(0)
    }, 150_000)
  })
})
