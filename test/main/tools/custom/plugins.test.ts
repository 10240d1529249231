import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fileOf, toolSource, useCustomToolApps, writeFile } from '../../../support/custom-tools'

describe('tool modules from plugins, and configured paths left out', { timeout: 60_000 }, () => {
  const app = useCustomToolApps()

  it('loads the modules an installed plugin package names in its package.json, and only those', async () => {
    const tools = app()
    const packages = join(tools.home, '.atelier', 'plugins', 'node_modules')
    const plain = join(packages, 'atelier-weather')
    writeFile(
      join(plain, 'package.json'),
      JSON.stringify({ name: 'atelier-weather', atelier: { tools: ['./dist/tool.js', '../elsewhere.js'] } }),
    )
    writeFile(join(plain, 'dist', 'tool.js'), toolSource('weather'))
    writeFile(join(plain, 'dist', 'other.js'), toolSource('not_named'))
    const scoped = join(packages, '@acme', 'tides')
    writeFile(
      join(scoped, 'package.json'),
      JSON.stringify({ name: '@acme/tides', atelier: { tools: ['tides.ts'] } }),
    )
    writeFile(join(scoped, 'tides.ts'), toolSource('tides'))
    // A package with no manifest of tools is no plugin of Atelier's.
    writeFile(join(packages, 'left-pad', 'package.json'), JSON.stringify({ name: 'left-pad' }))
    writeFile(join(packages, 'left-pad', 'index.js'), toolSource('left_pad'))

    const info = await tools.list()
    const plugins = info.folders.filter((folder) => folder.origin === 'plugin')
    expect(plugins.map((folder) => folder.path)).toEqual([scoped, plain])
    expect(plugins.flatMap((folder) => folder.files.map((file) => file.path))).toEqual([
      join(scoped, 'tides.ts'),
      join(plain, 'dist', 'tool.js'),
    ])
    expect(fileOf(info, join(plain, 'dist', 'tool.js'))).toMatchObject({
      status: 'loaded',
      tools: [{ name: 'weather' }],
    })
    expect((await tools.call('tides', {})).content).toBe('tides ran')
    expect(tools.atelier.tools.registry.get('not_named')).toBeUndefined()
    expect(tools.atelier.tools.registry.get('left_pad')).toBeUndefined()
  })

  it('loads the tools folders of the plugins Claude Code installed, as its registry lists them', async () => {
    const tools = app()
    const cache = join(tools.home, '.claude', 'plugins', 'cache', 'market')
    const mine = join(cache, 'mine', '1.0.0')
    const theirs = join(cache, 'theirs', '2.0.0')
    writeFile(join(mine, 'tools', 'mine.ts'), toolSource('from_claude_plugin'))
    writeFile(join(theirs, 'tools', 'theirs.ts'), toolSource('other_project_plugin'))
    writeFile(
      join(tools.home, '.claude', 'plugins', 'installed_plugins.json'),
      JSON.stringify({
        version: 2,
        plugins: {
          'mine@market': [{ scope: 'user', installPath: mine, version: '1.0.0' }],
          'theirs@market': [{ scope: 'project', projectPath: '/somewhere/else', installPath: theirs }],
        },
      }),
    )
    const info = await tools.list()
    expect(info.folders.filter((folder) => folder.origin === 'plugin').map((folder) => folder.path)).toEqual([
      join(mine, 'tools'),
    ])
    expect((await tools.call('from_claude_plugin', {})).content).toBe('from_claude_plugin ran')
  })

  it('lists a relative configured path as skipped, with why, when no folder is bound', async () => {
    const tools = app()
    tools.atelier.preferences.update({ customToolPaths: ['tools/mine.ts', '~/elsewhere'] })
    expect((await tools.list(null)).skippedPaths).toEqual([
      {
        path: 'tools/mine.ts',
        reason: 'A relative path is read against the chat’s project folder, and no folder is bound.',
      },
    ])
    expect((await tools.list()).skippedPaths).toEqual([])
  })
})
