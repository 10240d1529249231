/**
 * Issue 29, cases 1–4: shell commands an allow rule let through that ran something else, each with
 * the rules that let it through and the folder it needs. Each leaves a marker file when it runs what
 * it hides. The approvals' test puts the marker in the folder (the policy alone must refuse them);
 * the sandbox's puts it outside (the commands run, and the OS must refuse what they hide).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { findOnPath } from '../../src-main/tools/processes'

const TOUCH = findOnPath('touch', process.env.PATH ?? '') ?? '/usr/bin/touch'

export interface Bypass {
  command: string
  /** The allow rules in force. */
  rules: string[]
  /** Sets the folder up before the turn. */
  prepare?: (project: string) => void
}

/** A repository with one commit, as the git cases need (`git log` has nothing to show in an empty one). */
export function gitRepository(project: string): void {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project, stdio: 'ignore' })
  git('init', '-q')
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'init')
}

/**
 * The bypasses, by what each does, leaving `marker` (a path relative to the folder, or absolute) when
 * it runs what it hides. The path must need no quoting in a shell word.
 */
export function approvalBypasses(marker: string): Record<string, Bypass> {
  /** A repository whose own config runs the marker on a `git status` (an injected core.fsmonitor). */
  const repositoryWithMonitor = (project: string) => {
    gitRepository(project)
    execFileSync('git', ['config', 'core.fsmonitor', `touch ${marker}; false`], { cwd: project })
  }
  /**
   * A folder with a `bin/git` of its own, which leaves the marker when it runs instead of git. It
   * names touch by its path: PATH is that folder alone when it runs.
   */
  const folderWithOwnGit = (project: string) => {
    mkdirSync(join(project, 'bin'))
    writeFileSync(join(project, 'bin', 'git'), `#!/bin/sh\n${TOUCH} ${resolve(project, marker)}\n`, {
      mode: 0o755,
    })
  }
  return {
    // 1. A wrapper's own options
    'env -S runs its string, even past an exact rule': {
      command: `env -S'touch ${marker}' npm run test`,
      rules: ['bash(npm run test)'],
    },
    'time --output writes any text to any file, unseen by the path checks': {
      command: `/usr/bin/time --output=${marker} --format='[core] fsmonitor = touch x' git status`,
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
      command: `git status 'a[$(touch ${marker})]'; git status $((_))`,
      rules: ['bash(git status*)'],
    },
    '${_@P} expands the last word as a prompt': {
      command: `git status '$(touch ${marker})'; git status \${_@P}`,
      rules: ['bash(git status*)'],
    },
    '${!_} names a variable by the last word': {
      command: `git status 'a[$(touch ${marker})]'; git status \${!_}`,
      rules: ['bash(git status*)'],
    },
    'a for variable evaluated as arithmetic': {
      command: `for x in 'a[$(touch ${marker})]'; do git status $((x)); done`,
      rules: ['bash(git status*)'],
    },
    'arithmetic in an option of ls': {
      command: `ls 'a[$(touch ${marker})]'; ls --color=$((_))`,
      rules: ['bash(ls *)'],
    },
    // 3. Backticks in an unquoted heredoc body
    'backticks in a heredoc body': {
      command: `git status <<EOF\n\`touch ${marker}\`\nEOF`,
      rules: ['bash(git status*)'],
    },
    // 4. Options of "read-only" programs that write or execute
    'git log --output writes .git/config, whose fsmonitor git status runs': {
      command: `git log -1 --format='[core]%n fsmonitor = touch ${marker}' --output=.git/config && git status`,
      rules: ['bash(git log *)', 'bash(git status*)'],
      prepare: gitRepository,
    },
    'git grep --open-files-in-pager runs every matching file': {
      command: 'git grep --open-files-in-pager=sh -e x',
      rules: ['bash(git grep *)'],
      prepare: (project) => {
        gitRepository(project)
        writeFileSync(join(project, 'run.sh'), `touch ${marker} # x\n`)
        execFileSync('git', ['add', 'run.sh'], { cwd: project })
      },
    },
  }
}
