import { describe, expect, it } from 'vitest'
import type { AgentProfile } from '../../../src-shared/providers'
import { EVERYTHING_SERVER } from '../../support/mcp-servers'
import { useTempDirs } from '../../support/temp-dir'
import { atelier } from './built-cli'

// The built CLI, as `npm install` leaves it (npm test builds first).
describe('atelier agents (built CLI)', { timeout: 60_000 }, () => {
  const tempDir = useTempDirs()

  it('adds a profile, lists it after the built-in Default, and removes it', async () => {
    const dataDir = tempDir()
    const added = await atelier(dataDir, 'agents', 'add', 'reviewer', '--tools', 'read_file,grep')
    expect(added).toMatchObject({
      code: 0,
      stdout: 'added reviewer: agent mode, ask approvals, read_file, grep\n',
    })
    const talker = await atelier(
      dataDir,
      'agents',
      'add',
      'talker',
      '--mode',
      'chat',
      '--approval',
      'read-only',
      '--prompt',
      'Talk.',
    )
    expect(talker.code).toBe(0)

    const listed = await atelier(dataDir, 'agents', 'list', '--json')
    expect(listed.code).toBe(0)
    const profiles = JSON.parse(listed.stdout) as AgentProfile[]
    expect(
      profiles.map(({ name, tools, defaultMode, builtin }) => ({ name, tools, defaultMode, builtin })),
    ).toEqual([
      { name: 'Default', tools: null, defaultMode: 'agent', builtin: true },
      // The subagent profiles every data folder starts with: ordinary profiles, editable.
      {
        name: 'explore',
        tools: ['read_file', 'list_directory', 'glob', 'grep'],
        defaultMode: 'agent',
        builtin: false,
      },
      { name: 'general', tools: null, defaultMode: 'agent', builtin: false },
      { name: 'reviewer', tools: ['read_file', 'grep'], defaultMode: 'agent', builtin: false },
      { name: 'talker', tools: null, defaultMode: 'chat', builtin: false },
    ])
    // Without --prompt a profile speaks as the Default one does.
    expect(profiles[3]?.systemPrompt).toBe(profiles[0]?.systemPrompt)
    expect(profiles[4]?.systemPrompt).toBe('Talk.')
    expect((await atelier(dataDir, 'agents', 'list')).stdout).toBe(
      [
        'Default   agent  ask           every enabled tool  (built-in)',
        'explore   agent  ask           read_file, list_directory, glob, grep  (takes tasks)',
        'general   agent  ask           every enabled tool  (takes tasks)',
        'reviewer  agent  ask           read_file, grep',
        'talker    chat   read-only     every enabled tool',
        '',
      ].join('\n'),
    )

    expect(await atelier(dataDir, 'agents', 'remove', 'reviewer')).toMatchObject({
      code: 0,
      stdout: 'removed reviewer\n',
    })
    const remaining = JSON.parse(
      (await atelier(dataDir, 'agents', 'list', '--json')).stdout,
    ) as AgentProfile[]
    expect(remaining.map((profile) => profile.name)).toEqual(['Default', 'explore', 'general', 'talker'])
  })

  it('refuses a taken name, unknown tools and removing Default, with exit 1 and the reason', async () => {
    const dataDir = tempDir()
    expect((await atelier(dataDir, 'agents', 'add', 'reviewer')).code).toBe(0)

    expect(await atelier(dataDir, 'agents', 'add', 'reviewer', '--tools', 'grep')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'atelier: An agent profile named "reviewer" exists already; choose another name. (agent_exists)\n',
    })
    expect((await atelier(dataDir, 'agents', 'add', 'Default')).stderr).toContain('(agent_exists)')

    const unknown = await atelier(
      dataDir,
      'agents',
      'add',
      'typo',
      '--tools',
      'read_file,write_fil,docs__search',
    )
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^atelier: Unknown tools: write_fil, docs__search\. .*\(unknown_tool\)\n$/)

    // A configured MCP server's tools are registered only once it connects, so its names are taken on trust.
    const add = ['mcp', 'add', 'everything', '--', process.execPath, EVERYTHING_SERVER, 'stdio']
    expect((await atelier(dataDir, ...add)).code).toBe(0)
    expect((await atelier(dataDir, 'agents', 'add', 'echoer', '--tools', 'everything__echo')).code).toBe(0)

    const builtin = await atelier(dataDir, 'agents', 'remove', 'Default')
    expect(builtin.code).toBe(1)
    expect(builtin.stderr).toBe(
      'atelier: The built-in profile "Default" cannot be changed or removed; create your own instead. (builtin_profile)\n',
    )
    // Names match exactly.
    expect(await atelier(dataDir, 'agents', 'remove', 'Reviewer')).toMatchObject({
      code: 1,
      stderr:
        'atelier: No agent profile named "Reviewer". Profiles: Default, explore, general, reviewer, echoer. (not_found)\n',
    })

    const names = (
      JSON.parse((await atelier(dataDir, 'agents', 'list', '--json')).stdout) as AgentProfile[]
    ).map((profile) => profile.name)
    expect(names).toEqual(['Default', 'explore', 'general', 'reviewer', 'echoer'])
  })
})
