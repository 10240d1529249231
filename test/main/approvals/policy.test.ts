import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type CallFacts, evaluateCall } from '../../../src-main/approvals/policy'
import {
  type ApprovalMode,
  DEFAULT_PROTECTED_PATHS,
  type PermissionRule,
  type RuleAction,
} from '../../../src-shared/approvals'
import { DEFAULT_SANDBOX_SETTINGS } from '../../../src-shared/sandbox'
import type { ToolCallDescription } from '../../../src-shared/tools'
import { useTempDirs } from '../../support/temp-dir'

function rule(text: string, action: RuleAction = 'allow'): PermissionRule {
  return {
    id: `${action}:${text}`,
    rule: text,
    action,
    scope: 'global',
    chatId: null,
    folder: null,
    source: 'settings',
    createdAt: 0,
    lastUsedAt: null,
  }
}

describe('the approval policy', () => {
  const tempDir = useTempDirs()

  function project() {
    const folder = realpathSync(tempDir())
    const facts = (
      tool: string,
      description: ToolCallDescription,
      mode: ApprovalMode = 'ask',
      rules: PermissionRule[] = [],
    ): CallFacts => ({
      tool,
      description,
      mode,
      folder,
      rules,
      protectedPaths: DEFAULT_PROTECTED_PATHS,
      sandbox: DEFAULT_SANDBOX_SETTINGS,
    })
    const file = (kind: 'read' | 'edit', path: string): ToolCallDescription => ({
      kind,
      summary: path,
      locations: [join(folder, path)],
    })
    const shell = (text: string): ToolCallDescription => ({
      kind: 'execute',
      summary: text,
      locations: [folder],
      command: { text, cwd: folder, syntax: 'posix' },
    })
    return { folder, facts, file, shell }
  }

  it("lets a hook's allow waive only the mode's question: never a deny rule, a protected path, the sandbox or plan mode", async () => {
    const { facts, file, shell } = project()
    const hooked = (call: CallFacts) => evaluateCall({ ...call, hookAllows: true })
    expect((await hooked(facts('bash', shell('ls')))).action).toBe('allow')
    expect((await hooked(facts('write_file', file('edit', 'src/a.ts')))).action).toBe('allow')
    expect(
      (await hooked(facts('bash', shell('git push'), 'ask', [rule('bash(git push*)', 'deny')]))).action,
    ).toBe('deny')
    expect((await hooked(facts('bash', shell('ls'), 'ask', [rule('bash(ls*)', 'ask')]))).action).toBe('ask')
    expect((await hooked(facts('write_file', file('edit', '.atelier/hooks.json')))).action).toBe('ask')
    expect((await hooked(facts('write_file', file('edit', 'a.txt'), 'plan'))).action).toBe('deny')
    const network = shell('curl example.com')
    network.command = {
      ...(network.command as NonNullable<ToolCallDescription['command']>),
      sandbox: { run: 'network', justification: 'download' },
    }
    expect((await hooked(facts('bash', network))).action).toBe('ask')
  })

  it('lets reads run, and asks for edits and commands, in ask mode', async () => {
    const { facts, file, shell } = project()
    expect((await evaluateCall(facts('read_file', file('read', 'a.txt')))).action).toBe('allow')
    const edit = await evaluateCall(facts('write_file', file('edit', 'a.txt')))
    expect(edit).toMatchObject({ action: 'ask', suggestedRules: ['write_file(a.txt)'] })
    expect(edit.reasons).toEqual(['Edits ask in Ask mode.'])
    expect((await evaluateCall(facts('bash', shell('ls')))).action).toBe('ask')
    const other = { kind: 'other' as const, summary: 'everything__echo', locations: [] }
    expect(await evaluateCall(facts('everything__echo', other))).toMatchObject({
      action: 'ask',
      suggestedRules: ['everything__echo'],
    })
  })

  it('runs edits inside the folder in accept-edits mode, but not outside it, and not commands', async () => {
    const { facts, file, shell } = project()
    expect((await evaluateCall(facts('write_file', file('edit', 'src/a.ts'), 'accept-edits'))).action).toBe(
      'allow',
    )
    const outside = { kind: 'edit' as const, summary: '/tmp/x', locations: ['/elsewhere/x'] }
    expect((await evaluateCall(facts('write_file', outside, 'accept-edits'))).action).toBe('ask')
    expect((await evaluateCall(facts('bash', shell('ls'), 'accept-edits'))).action).toBe('ask')
  })

  it('refuses everything but reads in read-only mode, and asks for nothing in full-auto', async () => {
    const { facts, file, shell } = project()
    expect((await evaluateCall(facts('read_file', file('read', 'a'), 'read-only'))).action).toBe('allow')
    expect((await evaluateCall(facts('write_file', file('edit', 'a'), 'read-only'))).action).toBe('deny')
    expect((await evaluateCall(facts('write_file', file('edit', 'a'), 'full-auto'))).action).toBe('allow')
    expect((await evaluateCall(facts('bash', shell('rm -rf build'), 'full-auto'))).action).toBe('allow')
  })

  it('asks for every file and shell call when no folder confines the chat, reads included', async () => {
    const { facts, file, shell } = project()
    const read = { ...facts('read_file', file('read', 'a')), folder: null }
    expect(await evaluateCall(read)).toMatchObject({ action: 'ask' })
    expect((await evaluateCall({ ...read, mode: 'accept-edits' })).action).toBe('ask')
    expect((await evaluateCall({ ...read, mode: 'full-auto' })).action).toBe('allow')
    expect((await evaluateCall({ ...facts('bash', shell('ls')), folder: null })).action).toBe('ask')
    const clock = { kind: 'read' as const, summary: 'get_current_datetime', locations: [] }
    expect((await evaluateCall({ ...facts('get_current_datetime', clock), folder: null })).action).toBe(
      'allow',
    )
  })

  it('asks before an edit of a protected path in every mode, unless a rule naming it allows', async () => {
    const { facts, file } = project()
    for (const path of ['.git/hooks/pre-commit', '.git/config', '.envrc', '.env.local', 'package.json']) {
      const verdict = await evaluateCall(facts('write_file', file('edit', path), 'full-auto'))
      expect(verdict.action, path).toBe('ask')
      expect(verdict.reasons.join(' '), path).toContain('protected path')
    }
    const hook = file('edit', '.git/hooks/pre-commit')
    // A rule for the whole tool (what "Allow for this chat" saves) does not open protected paths…
    expect((await evaluateCall(facts('write_file', hook, 'accept-edits', [rule('write_file')]))).action).toBe(
      'ask',
    )
    // …one that names them does.
    const named = await evaluateCall(
      facts('write_file', hook, 'accept-edits', [rule('write_file(.git/hooks/*)')]),
    )
    expect(named).toMatchObject({ action: 'allow', rulesUsed: ['allow:write_file(.git/hooks/*)'] })
    // Reads of them run: protection is about what changes.
    expect((await evaluateCall(facts('read_file', file('read', '.git/config')))).action).toBe('allow')
  })

  it('protects any file with an executable bit', async () => {
    const { folder, facts, file } = project()
    mkdirSync(join(folder, 'scripts'))
    writeFileSync(join(folder, 'scripts', 'deploy.sh'), '#!/bin/sh\n')
    chmodSync(join(folder, 'scripts', 'deploy.sh'), 0o755)
    const verdict = await evaluateCall(facts('edit_file', file('edit', 'scripts/deploy.sh'), 'accept-edits'))
    expect(verdict.action).toBe('ask')
    expect(verdict.reasons.join(' ')).toContain('executable')
  })

  it('matches a protected name without a slash at any depth, and one with a slash from the folder', async () => {
    const { facts, file } = project()
    const action = async (path: string) =>
      (await evaluateCall(facts('write_file', file('edit', path), 'accept-edits'))).action
    for (const path of ['sub/.envrc', 'packages/app/package.json', 'a/b/.env.local', 'sub/.git/config']) {
      expect(await action(path), path).toBe('ask')
    }
    // `.github/**` and `.vscode/**` are read where the folder starts, and nowhere else.
    for (const path of ['docs/.github/notes.md', 'examples/.vscode/settings.json', 'src/package.json.ts']) {
      expect(await action(path), path).toBe('allow')
    }
    // A person's own glob follows the same rule.
    const own = {
      ...facts('write_file', file('edit', 'keys/deep/id.pem'), 'accept-edits'),
      protectedPaths: ['*.pem'],
    }
    expect((await evaluateCall(own)).action).toBe('ask')
  })

  it('protects every file of a folder git takes for a repository, whichever of HEAD, objects/ and refs/ comes last', async () => {
    const { folder, facts, file } = project()
    execFileSync('git', ['init', '-q', '--bare', 'shipped'], { cwd: folder })
    const shipped = await evaluateCall(facts('write_file', file('edit', 'shipped/config'), 'full-auto'))
    expect(shipped.action).toBe('ask')
    expect(shipped.reasons).toEqual([
      'shipped/config is inside shipped, which git takes for a repository: changing it can run code at a later git command. Only a rule naming it allows it.',
    ])

    // Built file by file: harmless until the last of the three would make it a repository.
    const action = async (path: string) =>
      (await evaluateCall(facts('write_file', file('edit', path), 'accept-edits'))).action
    const parts = ['HEAD', 'objects/pack/x', 'refs/heads/main', 'config']
    for (const last of parts.slice(0, 3)) {
      const built = `built-${last.split('/')[0]}`
      for (const part of parts.filter((part) => part !== last)) {
        expect(await action(`${built}/${part}`), part).toBe('allow')
        mkdirSync(dirname(join(folder, built, part)), { recursive: true })
        writeFileSync(join(folder, built, part), '')
      }
      expect(await action(`${built}/${last}`), last).toBe('ask')
    }

    // A folder holding only some of them is not one.
    mkdirSync(join(folder, 'notes', 'refs'), { recursive: true })
    writeFileSync(join(folder, 'notes', 'HEAD'), '')
    expect(await action('notes/todo.md')).toBe('allow')
  })

  it('takes the strictest matching rule: deny beats ask beats allow', async () => {
    const { facts, file } = project()
    const edit = file('edit', 'src/a.ts')
    const rules = [rule('edit_file(src/**)'), rule('edit_file(src/*.ts)', 'ask')]
    expect((await evaluateCall(facts('edit_file', edit, 'ask', rules))).action).toBe('ask')
    const denied = await evaluateCall(
      facts('edit_file', edit, 'full-auto', [...rules, rule('edit_*', 'deny')]),
    )
    expect(denied).toMatchObject({ action: 'deny', rulesUsed: ['deny:edit_*'] })
    expect((await evaluateCall(facts('edit_file', edit, 'ask', [rule('edit_file(src/**)')]))).action).toBe(
      'allow',
    )
    expect((await evaluateCall(facts('edit_file', file('edit', 'lib/a.ts'), 'ask', rules))).action).toBe(
      'ask',
    )
    expect(
      (await evaluateCall(facts('write_file', file('edit', 'a.md'), 'ask', [rule('write_file(**/*.md)')])))
        .action,
    ).toBe('allow')
  })

  it('matches MCP tools by name pattern', async () => {
    const { facts } = project()
    const call = { kind: 'other' as const, summary: 'everything__echo', locations: [] }
    expect((await evaluateCall(facts('everything__echo', call, 'ask', [rule('everything__*')]))).action).toBe(
      'allow',
    )
    expect((await evaluateCall(facts('other__echo', call, 'ask', [rule('everything__*')]))).action).toBe(
      'ask',
    )
  })

  describe('shell commands, sub-command by sub-command', () => {
    const gitStatus = [rule('bash(git status*)')]

    it('allows what the rules allow and asks for the rest, strictest sub-command first', async () => {
      const { facts, shell } = project()
      expect((await evaluateCall(facts('bash', shell('git status'), 'ask', gitStatus))).action).toBe('allow')
      expect((await evaluateCall(facts('bash', shell('git status --short'), 'ask', gitStatus))).action).toBe(
        'allow',
      )
      for (const command of [
        'git status && rm -rf x',
        'git status; rm x',
        'echo $(rm x)',
        'bash -c "rm x"',
        'sudo rm x',
        'cd .. && rm x',
        'git status > out.txt',
        'git status | tee log',
        'git-lfs status',
      ]) {
        expect((await evaluateCall(facts('bash', shell(command), 'ask', gitStatus))).action, command).toBe(
          'ask',
        )
      }
    })

    it('lists each sub-command with its verdict and the rule that decided it', async () => {
      const { facts, shell } = project()
      const verdict = await evaluateCall(facts('bash', shell('git status && rm -rf x'), 'ask', gitStatus))
      expect(verdict.commands).toEqual([
        { text: 'git status', verdict: 'allow', rule: 'bash(git status*)', reasons: [] },
        { text: 'rm -rf x', verdict: 'ask', reasons: ['Commands ask in Ask mode.'] },
      ])
      expect(verdict.suggestedRules).toEqual(['bash(rm -rf x)'])
    })

    it('asks for a redirect to a file even where a rule allows the command, unless the rule is exact', async () => {
      const { facts, shell } = project()
      const redirected = await evaluateCall(facts('bash', shell('git status > out.txt'), 'ask', gitStatus))
      expect(redirected.reasons.join(' ')).toContain('redirect')
      expect(redirected.suggestedRules).toEqual(['bash(git status > out.txt)'])
      const exact = [rule('bash(git status > out.txt)')]
      expect((await evaluateCall(facts('bash', shell('git status > out.txt'), 'ask', exact))).action).toBe(
        'allow',
      )
      expect((await evaluateCall(facts('bash', shell('git status > other.txt'), 'ask', exact))).action).toBe(
        'ask',
      )
      expect((await evaluateCall(facts('bash', shell('git status 2>&1'), 'ask', gitStatus))).action).toBe(
        'allow',
      )
      expect(
        (await evaluateCall(facts('bash', shell('git status > /dev/null'), 'ask', gitStatus))).action,
      ).toBe('allow')
    })

    it('asks for a path outside the folder, tracking cd through the chain', async () => {
      const { facts, shell } = project()
      const cats = [rule('bash(cat *)'), rule('bash(cd *)')]
      expect((await evaluateCall(facts('bash', shell('cat src/a.ts'), 'ask', cats))).action).toBe('allow')
      expect((await evaluateCall(facts('bash', shell('cat /etc/passwd'), 'ask', cats))).action).toBe('ask')
      expect((await evaluateCall(facts('bash', shell('cd src && cat ../a.ts'), 'ask', cats))).action).toBe(
        'allow',
      )
      const escaped = await evaluateCall(facts('bash', shell('cd .. && cat a.ts'), 'ask', cats))
      expect(escaped.action).toBe('ask')
      expect(escaped.reasons.join(' ')).toContain('outside the project folder')
    })

    it('strips wrappers, so a deny rule cannot be stepped around', async () => {
      const { facts, shell } = project()
      const rules = [rule('bash(rm *)', 'deny')]
      for (const command of [
        'sudo rm x',
        'env A=1 rm x',
        'timeout 5 rm x',
        'nice -n 5 rm x',
        'bash -c "rm x"',
      ]) {
        expect((await evaluateCall(facts('bash', shell(command), 'full-auto', rules))).action, command).toBe(
          'deny',
        )
      }
      const timed = [rule('bash(npm test *)')]
      expect((await evaluateCall(facts('bash', shell('timeout 60 npm test'), 'ask', timed))).action).toBe(
        'allow',
      )
    })

    it('matches words, not characters, and lets * cross /', async () => {
      const { facts, shell } = project()
      expect((await evaluateCall(facts('bash', shell('git'), 'ask', [rule('bash(git *)')]))).action).toBe(
        'allow',
      )
      expect(
        (await evaluateCall(facts('bash', shell('git-lfs pull'), 'ask', [rule('bash(git *)')]))).action,
      ).toBe('ask')
      expect(
        (await evaluateCall(facts('bash', shell('cat src/deep/a.ts'), 'ask', [rule('bash(cat src/*)')])))
          .action,
      ).toBe('allow')
      // Quotes group words: the message is one argument, the && inside it is not an operator.
      const commit = shell('git commit -m "fix: a && b"')
      expect(
        (await evaluateCall(facts('bash', commit, 'ask', [rule("bash(git commit -m 'fix: a && b')")])))
          .action,
      ).toBe('allow')
    })

    it('asks when the command line sets a variable that can change what an allowed command runs', async () => {
      const { facts, shell } = project()
      for (const command of [
        'PATH=.:$PATH; git status',
        'export GIT_DIR=/tmp/x && git status',
        'LD_PRELOAD=./x.so git status',
      ]) {
        const verdict = await evaluateCall(facts('bash', shell(command), 'ask', gitStatus))
        expect(verdict.action, command).toBe('ask')
        expect(verdict.reasons.join(' '), command).toMatch(
          /It sets (PATH|GIT_DIR|LD_PRELOAD), which can change/,
        )
      }
      expect(
        (await evaluateCall(facts('bash', shell('NO_COLOR=1 git status'), 'ask', gitStatus))).action,
      ).toBe('allow')
    })

    it('offers a rule per sub-command, prefix rules for known programs, exact ones otherwise', async () => {
      const { facts, shell } = project()
      expect((await evaluateCall(facts('bash', shell('yarn run test'), 'ask'))).suggestedRules).toEqual([
        'bash(yarn run test *)',
      ])
      expect(
        (await evaluateCall(facts('bash', shell('cargo build --release && ./build.sh --fast'), 'ask')))
          .suggestedRules,
      ).toEqual(['bash(cargo build *)', 'bash(./build.sh --fast)'])
      expect((await evaluateCall(facts('bash', shell('echo $(date)'), 'ask'))).suggestedRules).toEqual([
        "bash(echo '$(date)')",
        'bash(date)',
      ])
    })

    it('does not let a rule saved for yarn run test allow yarn run build', async () => {
      const { facts, shell } = project()
      const [saved = ''] = (await evaluateCall(facts('bash', shell('yarn run test'), 'ask'))).suggestedRules
      const rules = [rule(saved)]
      expect((await evaluateCall(facts('bash', shell('yarn run test'), 'ask', rules))).action).toBe('allow')
      expect(
        (await evaluateCall(facts('bash', shell('yarn run test -- --watch'), 'ask', rules))).action,
      ).toBe('allow')
      expect((await evaluateCall(facts('bash', shell('yarn run build'), 'ask', rules))).action).toBe('ask')
      expect((await evaluateCall(facts('bash', shell('yarn run test-e2e'), 'ask', rules))).action).toBe('ask')
    })

    it('offers only exact rules for a program with options that write or run code', async () => {
      const { facts, shell } = project()
      for (const [command, offered] of [
        ['git diff src/a.ts', 'bash(git diff src/a.ts)'],
        ['git log -1', 'bash(git log -1)'],
        ['npm run test', 'bash(npm run test)'],
        ['sed -n 1p a.txt', 'bash(sed -n 1p a.txt)'],
        ['/usr/bin/find . -name x', 'bash(/usr/bin/find . -name x)'],
      ]) {
        expect((await evaluateCall(facts('bash', shell(command), 'ask'))).suggestedRules, command).toEqual([
          offered,
        ])
      }
    })

    it('asks for an option that writes or runs code whatever a rule for its program says, unless the rule is exact', async () => {
      const { facts, shell } = project()
      const programs = ['git log *', 'git grep *', 'sed *', 'find *', 'rg *', 'npm run test *'].map((text) =>
        rule(`bash(${text})`),
      )
      for (const command of [
        'git log --output=out.txt',
        'git log --out=out.txt',
        'git grep -O sh -e x',
        'git grep $(echo -Osh) -e x',
        'sed -i s/a/b/ a.txt',
        "sed '1e touch x' a.txt",
        'find . -delete',
        'rg --pre=./x y',
        'npm run test --script-shell=./x',
      ]) {
        const verdict = await evaluateCall(facts('bash', shell(command), 'ask', programs))
        expect(verdict.commands?.at(-1)?.verdict, command).toBe('ask')
        expect(verdict.reasons.join(' '), command).toMatch(/can write files or run code through .*vouch/)
      }
      const exact = [rule('bash(git log --output=out.txt)')]
      expect(
        (await evaluateCall(facts('bash', shell('git log --output=out.txt'), 'ask', exact))).action,
      ).toBe('allow')
      for (const command of [
        'git log --oneline',
        'git grep -o x',
        'sed -n 1p a.txt',
        "find . -name '*.ts'",
      ]) {
        expect((await evaluateCall(facts('bash', shell(command), 'ask', programs))).action, command).toBe(
          'allow',
        )
      }
    })

    it('checks the files that options and wrappers write as it checks a redirect target', async () => {
      const { facts, shell } = project()
      // A protected path asks in full-auto too, whether a redirect, an option or a wrapper writes it.
      for (const command of [
        'git log -1 --output=.git/config',
        'echo x > .envrc',
        'time -o package.json git status',
        'sed -i s/a/b/ Makefile',
      ]) {
        const verdict = await evaluateCall(facts('bash', shell(command), 'full-auto'))
        expect(verdict.action, command).toBe('ask')
        expect(verdict.reasons.join(' '), command).toContain('protected path')
      }
      const outside = await evaluateCall(
        facts('bash', shell('git log --output=/tmp/log.txt'), 'ask', [
          rule('bash(git log --output=/tmp/log.txt)'),
        ]),
      )
      expect(outside.reasons.join(' ')).toContain('outside the project folder: /tmp/log.txt')
      const timed = await evaluateCall(facts('bash', shell('time -o log.txt git status'), 'ask', gitStatus))
      expect(timed).toMatchObject({ action: 'ask', suggestedRules: ['bash(git status time -o log.txt)'] })
      expect(timed.reasons.join(' ')).toContain('redirect (time -o log.txt)')
    })

    it("asks for what a wrapper's own options run, even past an exact rule, and for an option it does not know", async () => {
      const { facts, shell } = project()
      const exact = [rule('bash(npm run test)')]
      const split = await evaluateCall(facts('bash', shell("env -S'touch x' npm run test"), 'ask', exact))
      expect(split.commands).toEqual([
        { text: 'env touch x npm run test', verdict: 'ask', reasons: ['Commands ask in Ask mode.'] },
      ])
      const unknown = shell('timeout --frobnicate 5 git status')
      expect((await evaluateCall(facts('bash', unknown, 'ask', gitStatus))).reasons.join(' ')).toContain(
        'timeout has the option --frobnicate, which this check does not know.',
      )
      // Like a command that does not parse: in full-auto it asks only where a deny rule might have applied.
      expect((await evaluateCall(facts('bash', unknown, 'full-auto'))).action).toBe('allow')
      expect(
        (await evaluateCall(facts('bash', unknown, 'full-auto', [rule('bash(rm *)', 'deny')]))).action,
      ).toBe('ask')
    })

    it('asks where bash evaluates text it was not shown: arithmetic on a variable, ${!x}, ${x@P}, $_, heredoc backticks', async () => {
      const { facts, shell } = project()
      for (const command of [
        "git status 'a[$(touch x)]'; git status $((_))",
        'git status ${!x}',
        'git status ${_@P}',
        'git status "$_"',
        'for x in a; do git status $((x)); done',
        'git status <<EOF\n`touch x`\nEOF',
      ]) {
        const verdict = await evaluateCall(facts('bash', shell(command), 'ask', gitStatus))
        expect(verdict.action, command).toBe('ask')
        expect(verdict.reasons[0], command).toMatch(
          /^What the command runs cannot be checked sub-command by sub-command: /,
        )
      }
      const echo = [rule('bash(echo *)')]
      expect((await evaluateCall(facts('bash', shell('echo $((1 + 2))'), 'ask', echo))).action).toBe('allow')
      const loop = await evaluateCall(
        facts('bash', shell('for PATH in .; do git status; done'), 'ask', gitStatus),
      )
      expect(loop.reasons.join(' ')).toContain('It sets PATH, which can change what the command runs.')
    })

    it('asks when the command does not parse, even in full-auto where a deny rule might have applied', async () => {
      const { facts, shell } = project()
      const broken = shell('echo "unterminated')
      expect((await evaluateCall(facts('bash', broken, 'ask', [rule('bash(echo *)')]))).action).toBe('ask')
      expect((await evaluateCall(facts('bash', broken, 'full-auto'))).action).toBe('allow')
      expect(
        (await evaluateCall(facts('bash', broken, 'full-auto', [rule('bash(rm *)', 'deny')]))).action,
      ).toBe('ask')
    })
  })

  describe('network calls, by domain', () => {
    const fetchOf = (url: string): ToolCallDescription => ({
      kind: 'network',
      summary: url,
      locations: [],
      host: new URL(url).hostname,
    })

    it('asks in ask and accept-edits modes, and offers the domain as the rule to save', async () => {
      const { facts } = project()
      for (const mode of ['ask', 'accept-edits'] as const) {
        const verdict = await evaluateCall(facts('web_fetch', fetchOf('https://docs.python.org/3/'), mode))
        expect(verdict, mode).toMatchObject({
          action: 'ask',
          reasons: [expect.stringMatching(/^Calls that reach the network ask in/)],
          suggestedRules: ['web_fetch(domain:docs.python.org)'],
        })
      }
      const readOnly = await evaluateCall(
        facts('web_fetch', fetchOf('https://docs.python.org/'), 'read-only'),
      )
      expect(readOnly.action).toBe('deny')
    })

    it('lets a domain rule allow that domain only', async () => {
      const { facts } = project()
      const rules = [rule('web_fetch(domain:docs.python.org)')]
      const action = async (url: string, tool = 'web_fetch') =>
        (await evaluateCall(facts(tool, fetchOf(url), 'ask', rules))).action
      expect(await action('https://docs.python.org/3/library/json.html')).toBe('allow')
      expect(await action('http://DOCS.python.org:8080/')).toBe('allow')
      for (const url of [
        'https://python.org/',
        'https://www.docs.python.org/',
        'https://docs.python.org.evil.example/',
        'https://evil.example/?docs.python.org',
      ]) {
        expect(await action(url), url).toBe('ask')
      }
      // A domain rule names hosts: it allows no other tool, and no call without a host.
      expect(await action('https://docs.python.org/', 'other_fetch')).toBe('ask')
      const hostless = await evaluateCall(
        facts('web_fetch', { kind: 'network', summary: 'docs.python.org', locations: [] }, 'ask', rules),
      )
      expect(hostless.action).toBe('ask')
    })

    it('lets *.domain allow the names below it, not the domain itself nor a look-alike', async () => {
      const { facts } = project()
      const rules = [rule('web_fetch(domain:*.mozilla.org)')]
      const action = async (url: string) =>
        (await evaluateCall(facts('web_fetch', fetchOf(url), 'ask', rules))).action
      expect(await action('https://developer.mozilla.org/en-US/docs/Web')).toBe('allow')
      expect(await action('https://a.b.mozilla.org/')).toBe('allow')
      expect(await action('https://mozilla.org/')).toBe('ask')
      expect(await action('https://evilmozilla.org/')).toBe('ask')
      expect(await action('https://mozilla.org.evil.example/')).toBe('ask')
    })

    it('lets a deny rule for a domain refuse it whatever the mode', async () => {
      const { facts } = project()
      const rules = [rule('web_fetch(domain:*.internal.example)', 'deny')]
      const verdict = await evaluateCall(
        facts('web_fetch', fetchOf('https://wiki.internal.example/'), 'full-auto', rules),
      )
      expect(verdict.action).toBe('deny')
    })
  })
})
