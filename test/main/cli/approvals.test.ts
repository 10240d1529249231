import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir'
import { atelier, useFakeProviders } from './built-cli'

interface ToolMessage {
  role: string
  tool_call_id?: string
  content: string
}

const NOT_APPROVED = 'The user has not approved this call (non-interactive run).'

describe('atelier run --approval (built CLI, no terminal)', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs()
  const startFake = useFakeProviders()

  async function setup() {
    const fake = await startFake()
    const dataDir = tempDir()
    const project = realpathSync(tempDir())
    const run = (calls: { id: string; name: string; arguments: unknown }[], ...flags: string[]) => {
      fake.enqueue(
        { toolCalls: calls.map((call) => ({ ...call, arguments: JSON.stringify(call.arguments) })) },
        { text: 'Done.' },
      )
      const provider = [
        '--provider',
        'openai-chat',
        '--base-url',
        fake.baseUrlFor('openai-chat'),
        '--model',
        'm',
      ]
      return atelier(dataDir, 'run', 'go', ...provider, '--cwd', project, ...flags)
    }
    /** What the model read back for each call, by call id, in its next request. */
    const results = () => {
      const body = fake.requestsOf('openai-chat').at(-1)?.body as { messages: ToolMessage[] }
      return Object.fromEntries(
        body.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]),
      )
    }
    return { fake, dataDir, project, run, results }
  }

  it('refuses a write in ask mode (the default) and tells the model; accept-edits writes it', async () => {
    const { project, run, results } = await setup()
    const call = { id: 'call_w', name: 'write_file', arguments: { path: 'notes.md', content: 'hello\n' } }

    const asked = await run([call])
    expect(asked.code).toBe(0)
    expect(asked.stderr).toContain('needs approval, and this run cannot ask')
    expect(existsSync(join(project, 'notes.md'))).toBe(false)
    expect(results()).toEqual({ call_w: NOT_APPROVED })

    const accepted = await run([call], '--approval', 'accept-edits')
    expect(accepted.code).toBe(0)
    expect(readFileSync(join(project, 'notes.md'), 'utf8')).toBe('hello\n')
    expect(results().call_w).toContain('"created": true')
  })

  it('still asks in accept-edits for git hooks and config, .envrc and executables — so an injected core.fsmonitor never runs', async () => {
    const { project, run, results } = await setup()
    execFileSync('git', ['init', '-q', project])
    const config = readFileSync(join(project, '.git', 'config'), 'utf8')
    writeFileSync(join(project, 'deploy.sh'), '#!/bin/sh\necho deploy\n')
    chmodSync(join(project, 'deploy.sh'), 0o755)
    const marker = join(project, 'pwned')
    const injected = `${config}[core]\n\tfsmonitor = "touch ${marker}; false"\n`

    const { code } = await run(
      [
        // Read first, as a model must before it changes a file: only the protected paths stand in the way.
        { id: 'read_config', name: 'read_file', arguments: { path: '.git/config' } },
        { id: 'read_script', name: 'read_file', arguments: { path: 'deploy.sh' } },
        {
          id: 'hook',
          name: 'write_file',
          arguments: { path: '.git/hooks/pre-commit', content: `#!/bin/sh\ntouch ${marker}\n` },
        },
        { id: 'config', name: 'write_file', arguments: { path: '.git/config', content: injected } },
        { id: 'envrc', name: 'write_file', arguments: { path: '.envrc', content: `touch ${marker}\n` } },
        {
          id: 'script',
          name: 'edit_file',
          arguments: { path: 'deploy.sh', old_string: 'echo deploy', new_string: `touch ${marker}` },
        },
      ],
      '--approval',
      'accept-edits',
    )
    expect(code).toBe(0)
    expect(results()).toMatchObject({
      hook: NOT_APPROVED,
      config: NOT_APPROVED,
      envrc: NOT_APPROVED,
      script: NOT_APPROVED,
    })
    expect(readFileSync(join(project, '.git', 'config'), 'utf8')).toBe(config)
    expect(existsSync(join(project, '.git', 'hooks', 'pre-commit'))).toBe(false)
    expect(existsSync(join(project, '.envrc'))).toBe(false)
    expect(readFileSync(join(project, 'deploy.sh'), 'utf8')).toContain('echo deploy')
    // The person's next `git status` runs nothing the model wrote.
    execFileSync('git', ['status'], { cwd: project })
    expect(existsSync(marker)).toBe(false)
  })

  it('asks before a read outside any folder in chat mode, even in accept-edits', async () => {
    const { run, results } = await setup()
    const elsewhere = join(realpathSync(tempDir()), 'secret.txt')
    writeFileSync(elsewhere, 'secret\n')
    const { code } = await run(
      [{ id: 'read', name: 'read_file', arguments: { path: elsewhere } }],
      '--mode',
      'chat',
      '--approval',
      'accept-edits',
    )
    expect(code).toBe(0)
    expect(results()).toEqual({ read: NOT_APPROVED })
  })

  it('runs what a rule allows and asks for every chained, substituted, wrapped or redirected command', async () => {
    const { dataDir, project, run, results } = await setup()
    execFileSync('git', ['init', '-q', project])
    writeFileSync(join(project, 'x'), 'keep me\n')
    expect((await atelier(dataDir, 'settings', 'set', 'bash', 'enabled=true')).code).toBe(0)
    // What asks, by the policy alone: sandboxed commands would otherwise run unasked.
    expect((await atelier(dataDir, 'sandbox', 'set', 'runUnasked=false')).code).toBe(0)
    const added = await atelier(dataDir, 'permissions', 'add', 'bash(git status*)', 'allow')
    expect(added.code).toBe(0)
    expect(added.stdout).toMatch(
      /^added \S+ {2}allow {2}bash\(git status\*\) {2}\(everywhere; from cli; never used\)$/m,
    )

    const commands = {
      plain: 'git status',
      and: 'git status && rm -rf x',
      semicolon: 'git status; rm x',
      substitution: 'echo $(rm x)',
      nested: 'bash -c "rm x"',
      sudo: 'sudo rm x',
      cd: 'cd .. && rm x',
      redirect: 'git status > out.txt',
    }
    const { code } = await run(
      Object.entries(commands).map(([id, command]) => ({ id, name: 'bash', arguments: { command } })),
    )
    expect(code).toBe(0)
    const { plain, ...rest } = results()
    expect(plain).toMatch(/^exit code 0, exited/)
    expect(rest).toEqual(
      Object.fromEntries(
        Object.keys(commands)
          .slice(1)
          .map((id) => [id, NOT_APPROVED]),
      ),
    )
    expect(readFileSync(join(project, 'x'), 'utf8')).toBe('keep me\n')
    expect(existsSync(join(project, 'out.txt'))).toBe(false)

    const listed = JSON.parse((await atelier(dataDir, 'permissions', 'list', '--json')).stdout)
    expect(listed).toEqual([
      expect.objectContaining({ rule: 'bash(git status*)', lastUsedAt: expect.any(Number) }),
    ])
    expect((await atelier(dataDir, 'permissions', 'remove', listed[0].id)).code).toBe(0)
    expect((await atelier(dataDir, 'permissions', 'list')).stdout).toBe('no rules saved\n')
  })

  it('refuses a rule that is not one, and a project rule for a folder it keeps', async () => {
    const { dataDir, project } = await setup()
    const bad = await atelier(dataDir, 'permissions', 'add', 'bash(git status', 'allow')
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/is not a rule.*\(invalid_rule\)/)
    mkdirSync(join(project, 'sub'))
    const scoped = await atelier(
      dataDir,
      'permissions',
      'add',
      'edit_file(src/**)',
      'deny',
      '--scope',
      'project',
      '--cwd',
      join(project, 'sub'),
    )
    expect(scoped.code).toBe(0)
    expect(scoped.stdout).toContain(`(in ${join(project, 'sub')}; from cli; never used)`)
  })
})
