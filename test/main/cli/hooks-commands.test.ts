import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir'
import { atelierWith } from './built-cli'

const CLAUDE_SETTINGS = fileURLToPath(new URL('../../fixtures/hooks/claude-settings.json', import.meta.url))

describe('atelier hooks', { timeout: 60_000 }, () => {
  const tempDir = useTempDirs()

  function cli() {
    const home = realpathSync(tempDir())
    const dataDir = tempDir()
    return (...args: string[]) => atelierWith({ HOME: home }, dataDir, ...args)
  }

  it('adds a hook to ~/.atelier/hooks.json, lists it, tests it and removes it', async () => {
    const hooks = cli()
    const added = await hooks('hooks', 'add', 'PreToolUse', 'node -e "process.exit(2)"', '--matcher', 'bash')
    expect(added).toMatchObject({ code: 0 })
    expect(added.stdout).toContain('added user:PreToolUse:0:0  PreToolUse [bash]')

    expect((await hooks('hooks', 'list')).stdout).toContain('user:PreToolUse:0:0  PreToolUse [bash]  node -e')
    const tested = await hooks('hooks', 'test', 'user:PreToolUse:0:0')
    expect(tested.stdout).toContain('decision: block')
    expect(tested.stdout).toContain('exit code: 2')

    expect((await hooks('hooks', 'remove', 'user:PreToolUse:0:0')).stdout).toBe(
      'removed user:PreToolUse:0:0\n',
    )
    expect((await hooks('hooks', 'list')).stdout).toBe('no hooks\n')
  })

  it("lists an untrusted project's hooks as not run, and imports a Claude Code settings file", async () => {
    const hooks = cli()
    const project = realpathSync(tempDir())
    mkdirSync(join(project, '.atelier'))
    writeFileSync(
      join(project, '.atelier', 'hooks.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] } }),
    )
    const listed = await hooks('hooks', 'list', '--cwd', project)
    expect(listed.stdout).toContain(
      'project:Stop:0:0  Stop  true  (60 s)  (not run: the folder is not trusted)',
    )
    expect((await hooks('hooks', 'test', 'project:Stop:0:0', '--cwd', project)).stderr).toContain('trusted')

    const imported = await hooks('hooks', 'import', CLAUDE_SETTINGS)
    expect(imported.stdout.match(/^added /gm)).toHaveLength(4)
    expect(imported.stdout).toContain(
      'not mapped: SessionEnd (1 group): Atelier has no event like SessionEnd.',
    )
  })
})
