import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EVERYTHING_SERVER } from '../../support/mcp-servers'
import { useTempDirs } from '../../support/temp-dir'
import { atelier } from './built-cli'

// The built CLI, as `npm install` leaves it (npm test builds first).
describe('atelier mcp (built CLI)', () => {
  const tempDir = useTempDirs()

  it('adds, lists, disables, imports, enables and removes servers; inspect includes their tools', async () => {
    const dataDir = tempDir()
    const added = await atelier(
      dataDir,
      'mcp',
      'add',
      'everything',
      '--',
      process.execPath,
      EVERYTHING_SERVER,
      'stdio',
    )
    expect(added).toMatchObject({
      code: 0,
      stdout: `added everything: ${process.execPath} ${EVERYTHING_SERVER} stdio\n`,
    })

    const inspected = await atelier(dataDir, 'inspect', '--provider', 'anthropic')
    expect(inspected.code).toBe(0)
    const names = (JSON.parse(inspected.stdout) as { name: string }[]).map((tool) => tool.name)
    expect(names).toContain('everything__echo')
    expect(names).toContain('read_file')

    expect((await atelier(dataDir, 'mcp', 'disable', 'everything')).code).toBe(0)
    const withoutIt = await atelier(dataDir, 'inspect', '--provider', 'anthropic')
    expect(withoutIt.stdout).not.toContain('everything__')

    const file = join(tempDir(), 'claude_desktop_config.json')
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { docs: { command: 'npx', args: ['-y', 'docs-server'] } } }),
    )
    const imported = await atelier(dataDir, 'mcp', 'import', file)
    expect(imported.stdout).toContain(
      'added docs (run `atelier mcp enable docs` to approve): npx -y docs-server',
    )
    const listed = await atelier(dataDir, 'mcp', 'list')
    expect(listed.stdout).toMatch(/^off\s+everything\s/m)
    expect(listed.stdout).toMatch(/^needs approval\s+docs\s+npx -y docs-server$/m)

    expect((await atelier(dataDir, 'mcp', 'remove', 'docs')).stdout).toBe('removed docs\n')
    const missing = await atelier(dataDir, 'mcp', 'enable', 'docs')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('No MCP server named "docs". (not_found)')
  }, 60_000)
})
