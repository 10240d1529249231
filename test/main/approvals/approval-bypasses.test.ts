/**
 * Issue 29, cases 1–4: shell commands an allow rule let through that ran something else. Each runs
 * through a whole turn — a scripted model, the real parser and policy, a real bash — in `ask` mode with
 * only the named rules allowed and nobody to answer, so a command that asks is refused and one the
 * rules wrongly allow runs and leaves its marker file. The sandbox is off: this is the policy alone,
 * the only wall where no sandbox works (with it on, see sandbox-escapes.test.ts).
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type Asker, nobodyToAsk } from '../../../src-main/approvals/askers'
import type { ApprovalRequest } from '../../../src-shared/approvals'
import { useAgentFixture } from '../../support/agent-harness'
import { turnSandboxOff } from '../../support/tool-harness'
import { toolResult } from '../../support/turn-events'

/** What each command leaves behind when it runs what it hides. */
const MARKER = 'pwned'

/** A repository with one commit, as the git cases need (`git log` has nothing to show in an empty one). */
function gitRepository(project: string): void {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project, stdio: 'ignore' })
  git('init', '-q')
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'init')
}

/** A repository whose own config runs the marker on a `git status` (an injected core.fsmonitor). */
function repositoryWithMonitor(project: string): void {
  gitRepository(project)
  execFileSync('git', ['config', 'core.fsmonitor', `touch ${MARKER}; false`], { cwd: project })
}

/** A folder with a `bin/git` of its own, which leaves the marker when it runs instead of git. */
function folderWithOwnGit(project: string): void {
  mkdirSync(join(project, 'bin'))
  writeFileSync(join(project, 'bin', 'git'), `#!/bin/sh\ntouch ${join(project, MARKER)}\n`, { mode: 0o755 })
}

interface Bypass {
  command: string
  /** The allow rules in force. */
  rules: string[]
  /** Sets the folder up before the turn. */
  prepare?: (project: string) => void
}

const bypasses: Record<string, Bypass> = {
  // 1. A wrapper's own options
  'env -S runs its string, even past an exact rule': {
    command: `env -S'touch ${MARKER}' npm run test`,
    rules: ['bash(npm run test)'],
  },
  'time --output writes any text to any file, unseen by the path checks': {
    command: `/usr/bin/time --output=${MARKER} --format='[core] fsmonitor = touch x' git status`,
    rules: ['bash(git status*)'],
    prepare: gitRepository,
  },
  // env's -u and -i drop the git settings every agent command carries: the repository's fsmonitor runs.
  'env -u unsets the enforced git settings': {
    command: 'env -u GIT_CONFIG_COUNT git status',
    rules: ['bash(git status*)'],
    prepare: repositoryWithMonitor,
  },
  'env -i empties the environment, the enforced git settings with it': {
    command: 'env -i git status',
    rules: ['bash(git status*)'],
    prepare: repositoryWithMonitor,
  },
  // Builtins that set a variable by name, as an assignment does: PATH now finds the folder's own git.
  'read sets PATH from a here-string': {
    command: 'read PATH <<< "$PWD/bin"; git status',
    rules: ['bash(read *)', 'bash(git status*)'],
    prepare: folderWithOwnGit,
  },
  'printf -v sets PATH': {
    command: 'printf -v PATH %s "$PWD/bin"; git status',
    rules: ['bash(printf *)', 'bash(git status*)'],
    prepare: folderWithOwnGit,
  },
  // 2. Text evaluated later
  'arithmetic evaluates $_, whose array subscript runs a substitution': {
    command: `git status 'a[$(touch ${MARKER})]'; git status $((_))`,
    rules: ['bash(git status*)'],
  },
  '${_@P} expands the last word as a prompt': {
    command: `git status '$(touch ${MARKER})'; git status \${_@P}`,
    rules: ['bash(git status*)'],
  },
  '${!_} names a variable by the last word': {
    command: `git status 'a[$(touch ${MARKER})]'; git status \${!_}`,
    rules: ['bash(git status*)'],
  },
  'a for variable evaluated as arithmetic': {
    command: `for x in 'a[$(touch ${MARKER})]'; do git status $((x)); done`,
    rules: ['bash(git status*)'],
  },
  'arithmetic in an option of ls': {
    command: `ls 'a[$(touch ${MARKER})]'; ls --color=$((_))`,
    rules: ['bash(ls *)'],
  },
  // 3. Backticks in an unquoted heredoc body
  'backticks in a heredoc body': {
    command: `git status <<EOF\n\`touch ${MARKER}\`\nEOF`,
    rules: ['bash(git status*)'],
  },
  // 4. Options of "read-only" programs that write or execute
  'git log --output writes .git/config, whose fsmonitor git status runs': {
    command: `git log -1 --format='[core]%n fsmonitor = touch ${MARKER}' --output=.git/config && git status`,
    rules: ['bash(git log *)', 'bash(git status*)'],
    prepare: gitRepository,
  },
  'git grep --open-files-in-pager runs every matching file': {
    command: 'git grep --open-files-in-pager=sh -e x',
    rules: ['bash(git grep *)'],
    prepare: (project) => {
      gitRepository(project)
      writeFileSync(join(project, 'run.sh'), `touch ${MARKER} # x\n`)
      execFileSync('git', ['add', 'run.sh'], { cwd: project })
    },
  },
}

describe('shell commands an allow rule lets through that run something else', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()

  async function inAskMode(rules: string[]) {
    const setup = await fixture()
    const { atelier, chat } = setup
    atelier.tools.settings.update('local', 'bash', { enabled: true })
    atelier.chats.configure({ id: chat.id, approvalMode: 'ask' })
    turnSandboxOff(atelier)
    for (const rule of rules) atelier.approvals.add({ rule, action: 'allow', scope: 'global' })
    return setup
  }

  const bash = (id: string, command: string) => ({ id, name: 'bash', arguments: JSON.stringify({ command }) })

  it.each(Object.entries(bypasses))('asks, so nobody lets it run: %s', async (_, bypass) => {
    const { fake, project, run } = await inAskMode(bypass.rules)
    bypass.prepare?.(project)
    const gitConfig = join(project, '.git', 'config')
    const config = existsSync(gitConfig) ? readFileSync(gitConfig, 'utf8') : undefined
    fake.enqueue({ toolCalls: [bash('call_1', bypass.command)] }, { text: 'Done.' })
    const { events } = await run('run it', { asker: nobodyToAsk })

    expect(existsSync(join(project, MARKER))).toBe(false)
    if (config !== undefined) expect(readFileSync(gitConfig, 'utf8')).toBe(config)
    expect(toolResult(events, 'call_1')).toMatchObject({ isError: true, errorType: 'denied' })
  })

  it('saves only an exact rule on Always allow for git, so the next git log with --output still asks', async () => {
    const { atelier, fake, project, run } = await inAskMode([])
    gitRepository(project)
    const asked: ApprovalRequest[] = []
    const asker: Asker = {
      ask: async (request) => {
        if (request.kind !== 'approval') throw new Error(`Unexpected ${request.kind}`)
        asked.push(request)
        return asked.length === 1
          ? { decision: 'always', rules: request.suggestedRules, scope: 'project' }
          : { decision: 'deny' }
      },
    }
    fake.enqueue(
      { toolCalls: [bash('call_1', 'git log -1')] },
      { toolCalls: [bash('call_2', 'git log -1')] },
      { toolCalls: [bash('call_3', `git log -1 --output=${MARKER}`)] },
      { text: 'Done.' },
    )
    await run('look at the log', { asker })

    expect(atelier.approvals.list().map((rule) => rule.rule)).toEqual(['bash(git log -1)'])
    expect(asked.map((request) => request.callId)).toEqual(['call_1', 'call_3'])
    expect(existsSync(join(project, MARKER))).toBe(false)
  })
})
