import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { CustomToolsInfo } from '../../../src-shared/custom-tools'
import type { ToolSettingsDescriptor } from '../../../src-shared/tools'
import { useTempDirs } from '../../support/temp-dir'
import { atelierWith } from './built-cli'

const EXAMPLE = fileURLToPath(new URL('../../../examples/custom-tools/repo-stats.ts', import.meta.url))

const echoTool = (name: string) => `
export default (api) => ({
  name: '${name}',
  label: '${name}',
  description: 'Says where it runs',
  parameters: api.typebox.Type.Object({}),
  execute: async () => ({ content: [{ type: 'text', text: '${name} in ' + api.cwd }] }),
})
`

describe('atelier custom-tools and folders (built CLI)', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs()

  /** A home with the spec's example and a broken file, and a git project with its own tool, untrusted. */
  function setUp() {
    const home = tempDir()
    const userTools = join(home, '.atelier', 'tools')
    mkdirSync(userTools, { recursive: true })
    copyFileSync(EXAMPLE, join(userTools, 'repo-stats.ts'))
    writeFileSync(join(userTools, 'broken.ts'), 'export default (api) => ({\n  name: "broken",\n  label: \n')
    const project = tempDir()
    mkdirSync(join(project, 'src'))
    for (const file of ['a.ts', 'b.ts', 'c.ts']) writeFileSync(join(project, 'src', file), '')
    execFileSync('git', ['init', '-q'], { cwd: project })
    execFileSync('git', ['add', '.'], { cwd: project })
    mkdirSync(join(project, '.atelier', 'tools'), { recursive: true })
    writeFileSync(join(project, '.atelier', 'tools', 'where.ts'), echoTool('where_am_i'))
    const dataDir = tempDir()
    const cli = (...args: string[]) => atelierWith({ HOME: home }, dataDir, ...args)
    return { home, project, cli }
  }

  it('lists what loaded and what did not, and loads a project’s own tools only once the folder is trusted', async () => {
    const { home, project, cli } = setUp()
    const before = JSON.parse(
      (await cli('custom-tools', 'list', '--json', '--cwd', project)).stdout,
    ) as CustomToolsInfo
    const user = before.folders.find((folder) => folder.origin === 'user')
    expect(user?.path).toBe(join(home, '.atelier', 'tools'))
    expect(user?.files).toEqual([
      expect.objectContaining({
        path: join(home, '.atelier', 'tools', 'broken.ts'),
        status: 'failed',
        error: expect.objectContaining({ line: 4 }),
      }),
      expect.objectContaining({ status: 'loaded', tools: [expect.objectContaining({ name: 'repo_stats' })] }),
    ])
    expect(before.folders.find((folder) => folder.origin === 'project')).toMatchObject({
      trusted: false,
      files: [{ path: join(project, '.atelier', 'tools', 'where.ts'), status: 'untrusted', tools: [] }],
    })
    expect(before.trustNeeded).toEqual({
      folder: project,
      files: [join(project, '.atelier', 'tools', 'where.ts')],
      changedSinceTrusted: false,
    })

    const text = await cli('custom-tools', 'list', '--cwd', project)
    expect(text.stdout).toContain(`failed     ${join(home, '.atelier', 'tools', 'broken.ts')}:4:`)
    expect(text.stdout).toContain(`atelier folders trust ${project}`)
    const refused = await cli('tool', 'where_am_i', '{}', '--cwd', project)
    expect(refused.code).toBe(1)
    expect(JSON.parse(refused.stdout).error.type).toBe('unknown_tool')

    expect((await cli('folders', 'trust', project)).stdout).toMatch(/^trusted \//)
    expect((await cli('folders', 'list')).stdout.trim()).toMatch(/\S/)
    expect(await cli('tool', 'where_am_i', '{}', '--cwd', project)).toMatchObject({
      code: 0,
      stdout: `where_am_i in ${project}\n`,
    })
    const tools = JSON.parse((await cli('tools', '--json', '--cwd', project)).stdout) as {
      tools: (ToolSettingsDescriptor & { path?: string })[]
    }
    expect(tools.tools.filter((tool) => tool.source.kind === 'custom')).toEqual([
      expect.objectContaining({ name: 'repo_stats', path: join(home, '.atelier', 'tools', 'repo-stats.ts') }),
      expect.objectContaining({ name: 'where_am_i', path: join(project, '.atelier', 'tools', 'where.ts') }),
    ])

    await cli('folders', 'untrust', project)
    expect((await cli('tool', 'where_am_i', '{}', '--cwd', project)).code).toBe(1)
  })

  it('holds back a module added after `folders trust` until the folder is trusted again, and passes only the variables named for a folder', async () => {
    const { home, project, cli } = setUp()
    await cli('folders', 'trust', project)
    writeFileSync(join(project, '.atelier', 'tools', 'later.ts'), echoTool('pulled_later'))

    const listed = await cli('custom-tools', 'list', '--cwd', project)
    expect(listed.stdout).toContain(`changed    ${join(project, '.atelier', 'tools', 'later.ts')}`)
    expect(listed.stdout).toContain(`trust it again: atelier folders trust ${project}`)
    expect((await cli('tool', 'where_am_i', '{}', '--cwd', project)).code).toBe(0)
    expect((await cli('tool', 'pulled_later', '{}', '--cwd', project)).code).toBe(1)
    await cli('folders', 'trust', project)
    expect((await cli('tool', 'pulled_later', '{}', '--cwd', project)).stdout).toBe(
      `pulled_later in ${project}\n`,
    )

    const userTools = join(home, '.atelier', 'tools')
    expect((await cli('custom-tools', 'env', userTools)).stdout).toBe('passed: the allowlist alone\n')
    expect((await cli('custom-tools', 'env', userTools, 'JAVA_*', 'GRADLE_HOME')).stdout).toBe(
      'passed: JAVA_* GRADLE_HOME\n',
    )
    expect((await cli('custom-tools', 'env', userTools)).stdout).toBe('passed: JAVA_* GRADLE_HOME\n')
    const wrong = await cli('custom-tools', 'env', userTools, '*')
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain('"*" is not a variable name')
    expect((await cli('custom-tools', 'env', userTools, '--clear')).stdout).toBe(
      'passed: the allowlist alone\n',
    )
  })

  it('runs the spec’s repo_stats example in a git repository, its progress on stderr', async () => {
    const { project, cli } = setUp()
    const result = await cli('tool', 'repo_stats', JSON.stringify({ glob: 'src/*.ts' }), '--cwd', project)
    expect(result).toMatchObject({ code: 0, stdout: 'Found 3 files\n' })
    expect(result.stderr).toContain('Scanning files...')
  })
})
