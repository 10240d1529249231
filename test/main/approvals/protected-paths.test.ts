import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../src-main/app/create-atelier'
import { nobodyToAsk } from '../../../src-main/approvals/askers'
import type { ApprovalMode } from '../../../src-shared/approvals'
import { useAgentFixture } from '../../support/agent-harness'
import { toolResult } from '../../support/turn-events'

const NOT_APPROVED = 'The user has not approved this call (non-interactive run).'

const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  name,
  arguments: JSON.stringify(args),
})
const read = (id: string, path: string) => call(id, 'read_file', { path })
const write = (id: string, path: string, content: string) => call(id, 'write_file', { path, content })
const bash = (id: string, command: string, cwd?: string) => call(id, 'bash', { command, ...(cwd && { cwd }) })

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' })

describe('protected paths and the git the agent runs, in a turn', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()

  /** A chat in `mode` that nobody watches: whatever asks is refused. */
  async function inMode(mode: ApprovalMode) {
    const setup = await fixture()
    setup.atelier.chats.configure({ id: setup.chat.id, approvalMode: mode })
    const run = async (...calls: ReturnType<typeof call>[]) => {
      setup.fake.enqueue({ toolCalls: calls }, { text: 'Done.' })
      const { events } = await setup.run('go', { asker: nobodyToAsk })
      return (id: string) => toolResult(events, id)
    }
    return { ...setup, run }
  }

  /** An `ask` chat with bash on and `git status` allowed by a rule, as "Always allow" saves it. */
  async function withGitStatusAllowed() {
    const setup = await inMode('ask')
    setup.atelier.tools.settings.update(LOCAL_USER, 'bash', { enabled: true })
    setup.atelier.approvals.add({ rule: 'bash(git status*)', action: 'allow', scope: 'global' }, 'cli')
    return setup
  }

  describe('in accept-edits', () => {
    it("refuses a write to a nested repository's .git/config: the file is unchanged", async () => {
      const { project, run } = await inMode('accept-edits')
      mkdirSync(join(project, 'sub'))
      git(join(project, 'sub'), 'init', '-q')
      const config = readFileSync(join(project, 'sub', '.git', 'config'), 'utf8')

      const result = await run(
        read('read', 'sub/.git/config'),
        write('write', 'sub/.git/config', `${config}[core]\n\tfsmonitor = touch pwned\n`),
      )

      expect(result('read')).toMatchObject({ isError: false })
      expect(result('write')).toMatchObject({ isError: true, errorType: 'denied', content: NOT_APPROVED })
      expect(readFileSync(join(project, 'sub', '.git', 'config'), 'utf8')).toBe(config)
    })

    it('refuses a write into a folder that looks like a bare repository', async () => {
      const { project, run } = await inMode('accept-edits')
      git(project, 'init', '-q', '--bare', 'evil')
      const config = readFileSync(join(project, 'evil', 'config'), 'utf8')

      const result = await run(
        read('read', 'evil/config'),
        write('write', 'evil/config', `${config}[core]\n\tfsmonitor = touch pwned\n`),
      )

      expect(result('write')).toMatchObject({ errorType: 'denied', content: NOT_APPROVED })
      expect(readFileSync(join(project, 'evil', 'config'), 'utf8')).toBe(config)
    })

    it.each([
      ['.npmrc', 'node-options=--require ./evil.cjs\n'],
      ['.yarnrc', 'yarn-path "./evil.cjs"\n'],
      ['.yarnrc.yml', 'yarnPath: ./evil.cjs\n'],
      ['.pnpmfile.cjs', "require('./evil.cjs')\n"],
      ['.cargo/config.toml', '[build]\nrustc-wrapper = "./evil.sh"\n'],
      ['crates/core/.cargo/config', '[build]\nrustc-wrapper = "./evil.sh"\n'],
      ['project.code-workspace', '{"tasks": {"tasks": [{"command": "./evil.sh"}]}}\n'],
      ['.github/workflows/ci.yml', 'on: push\n'],
      ['.github/actions/setup/action.yml', "runs:\n  using: node20\n  main: '../../../evil.cjs'\n"],
      ['.pre-commit-config.yaml', 'repos: []\n'],
      ['.gitattributes', '* filter=evil\n'],
      ['.gitmodules', '[submodule "x"]\n\tpath = x\n\turl = ../evil\n'],
      ['.devcontainer/devcontainer.json', '{"postCreateCommand": "./evil.sh"}\n'],
      ['.devcontainer.json', '{"postCreateCommand": "./evil.sh"}\n'],
      ['sub/.envrc', './evil.sh\n'],
      ['packages/app/package.json', '{"scripts": {"test": "./evil.sh"}}\n'],
      ['packages/app/.npmrc', 'node-options=--require ./evil.cjs\n'],
    ])('refuses a write to %s', async (path, content) => {
      const { project, run } = await inMode('accept-edits')

      const result = await run(write('write', path, content))

      expect(result('write')).toMatchObject({ errorType: 'denied', content: NOT_APPROVED })
      expect(existsSync(join(project, path))).toBe(false)
    })

    it('refuses an .npmrc that loads a file the model wrote, so an allowed npm run test runs only the test', async () => {
      const { atelier, project, run } = await inMode('accept-edits')
      atelier.tools.settings.update(LOCAL_USER, 'bash', { enabled: true })
      atelier.approvals.add({ rule: 'bash(npm run test*)', action: 'allow', scope: 'global' }, 'cli')
      writeFileSync(join(project, 'package.json'), '{"name": "app", "scripts": {"test": "node -e 0"}}\n')
      const marker = join(project, 'pwned')

      const result = await run(
        write('evil', 'evil.cjs', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, '')\n`),
        write('npmrc', '.npmrc', 'node-options=--require ./evil.cjs\n'),
        bash('test', 'npm run test'),
      )

      expect(result('evil')).toMatchObject({ isError: false })
      expect(result('npmrc')).toMatchObject({ errorType: 'denied', content: NOT_APPROVED })
      expect(result('test')).toMatchObject({ isError: false })
      expect(existsSync(marker)).toBe(false)
    })
  })

  describe('an allowed git status', () => {
    it("does not run a nested repository's core.fsmonitor", async () => {
      const { project, run } = await withGitStatusAllowed()
      const sub = join(project, 'sub')
      mkdirSync(sub)
      git(sub, 'init', '-q')
      const marker = join(project, 'pwned')
      git(sub, 'config', 'core.fsmonitor', `touch ${marker}; false`)

      const result = await run(bash('status', 'git status', 'sub'))

      expect(result('status')).toMatchObject({
        isError: false,
        content: expect.stringContaining('No commits yet'),
      })
      expect(existsSync(marker)).toBe(false)
    })

    it('does not open a bare-looking folder the project ships as a repository, so its config never runs', async () => {
      const { project, run } = await withGitStatusAllowed()
      const evil = join(project, 'evil')
      git(project, 'init', '-q', '--bare', 'evil')
      const marker = join(project, 'pwned')
      // What a clone can carry as ordinary files: a repository whose work tree is the project.
      git(evil, 'config', 'core.bare', 'false')
      git(evil, 'config', 'core.worktree', '..')
      git(evil, 'config', 'core.fsmonitor', `touch ${marker}; false`)

      const result = await run(bash('status', 'git status', 'evil'))

      expect(result('status')).toMatchObject({
        isError: true,
        content: expect.stringContaining("safe.bareRepository is 'explicit'"),
      })
      expect(existsSync(marker)).toBe(false)
    })
  })
})
