import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { McpServerInfo } from '../../../src-shared/mcp'
import { MASKED_VALUE } from '../../../src-shared/secrets'
import { EVERYTHING_SERVER } from '../../support/mcp-servers'
import { useTempDirs } from '../../support/temp-dir'
import { databaseFilesHolding } from '../tools/mcp/secret-probes'
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

    // `atelier tool` connects enabled servers when it does not know the tool, as inspect and turns do.
    const echoed = await atelier(dataDir, 'tool', 'everything__echo', '{"message":"over stdio"}')
    expect(echoed).toMatchObject({ code: 0, stdout: 'Echo: over stdio\n' })

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

  it('stores every --env value encrypted (--secret says so of one), and --public keeps one as typed', async () => {
    const dataDir = tempDir()
    const token = 'ghp_FromTheCommandLine_0123456789'
    const added = await atelier(
      dataDir,
      'mcp',
      'add',
      'github',
      '--env',
      `GITHUB_PERSONAL_ACCESS_TOKEN=${token}`,
      '--env',
      'KEYBOARD_LAYOUT=dvorak',
      '--public',
      'KEYBOARD_LAYOUT',
      '--env',
      'ORGANISATION=atelier-private',
      '--secret',
      'ORGANISATION',
      '--',
      process.execPath,
      EVERYTHING_SERVER,
      'stdio',
    )
    expect(added).toMatchObject({
      code: 0,
      stdout: `added github: ${process.execPath} ${EVERYTHING_SERVER} stdio (stored encrypted: GITHUB_PERSONAL_ACCESS_TOKEN, ORGANISATION)\n`,
    })
    const listed = await atelier(dataDir, 'mcp', 'list', '--json')
    const [server] = JSON.parse(listed.stdout) as McpServerInfo[]
    expect(server?.definition).toMatchObject({
      env: {
        GITHUB_PERSONAL_ACCESS_TOKEN: MASKED_VALUE,
        KEYBOARD_LAYOUT: 'dvorak',
        ORGANISATION: MASKED_VALUE,
      },
    })
    expect(listed.stdout).not.toMatch(/ghp_|atelier-private/)
    expect(databaseFilesHolding(dataDir, token)).toEqual([])
    expect(databaseFilesHolding(dataDir, 'atelier-private')).toEqual([])

    const unmatched = await atelier(dataDir, 'mcp', 'add', 'x', '--secret', 'API_TOKEN', '--', 'npx')
    expect(unmatched.code).toBe(1)
    expect(unmatched.stderr).toContain('API_TOKEN is marked secret or public, but has no value.')
    const both = await atelier(
      dataDir,
      'mcp',
      'add',
      'y',
      '--env',
      'A=1',
      '--secret',
      'A',
      '--public',
      'A',
      '--',
      'npx',
    )
    expect(both.code).toBe(1)
    expect(both.stderr).toContain('A is given as both --secret and --public. (invalid_secret)')
  }, 60_000)
})
