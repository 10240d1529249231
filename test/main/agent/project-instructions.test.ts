import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  instructionsFor,
  instructionsText,
  startingInstructions,
} from '../../../src-main/agent/project-instructions'
import { DEFAULT_INSTRUCTION_SETTINGS } from '../../../src-shared/instructions'
import { useAgentFixture } from '../../support/agent-harness'
import { useTempDirs } from '../../support/temp-dir'
import { toolResult } from '../../support/turn-events'

describe('project instructions', () => {
  const tempDir = useTempDirs()
  const fixture = useAgentFixture()

  function project(files: Record<string, string>) {
    const root = realpathSync(tempDir())
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true })
      writeFileSync(join(root, path), text)
    }
    const home = realpathSync(tempDir())
    return { root, home, options: { names: DEFAULT_INSTRUCTION_SETTINGS.names, capBytes: 32 * 1024, home } }
  }

  it('reads the repository top down to the folder, with imports, and a subfolder’s when worked in', () => {
    const { root, options } = project({
      '.git/HEAD': 'ref: refs/heads/main\n',
      'AGENTS.md': 'Root rules.\n@docs/style.md\n',
      'docs/style.md': 'Use tabs.\n',
      'app/AGENTS.md': 'App rules.\n',
      'app/pkg/AGENTS.md': 'Package rules.\n',
      'app/pkg/x.ts': 'export {}\n',
    })
    const folder = join(root, 'app')
    const files = startingInstructions(folder, options)
    expect(files.map((file) => file.label)).toEqual(['AGENTS.md', 'app/AGENTS.md'])
    expect(files[0]?.text).toContain('Use tabs.')
    const loaded = new Set(files.map((file) => file.path))
    const added = instructionsFor(folder, join(folder, 'pkg/x.ts'), loaded, options)
    expect(added.map((file) => file.label)).toEqual(['app/pkg/AGENTS.md'])
    const again = new Set([...loaded, ...added.map((file) => file.path)])
    expect(instructionsFor(folder, join(folder, 'pkg/x.ts'), again, options)).toEqual([])
    expect(instructionsText(files)).toMatch(/## AGENTS.md[\s\S]*Root rules[\s\S]*## app\/AGENTS.md/)
  })

  it('brings in every subfolder file between the folder and the path, shallowest first, also through a linked folder', () => {
    const { root, options } = project({
      'AGENTS.md': 'Root.\n',
      'pkg/AGENTS.md': 'Package.\n',
      'pkg/sub/AGENTS.md': 'Sub.\n',
      'pkg/sub/x.ts': 'export {}\n',
    })
    const linked = join(realpathSync(tempDir()), 'link')
    symlinkSync(root, linked)
    const loaded = new Set([join(root, 'AGENTS.md')])
    for (const folder of [root, linked]) {
      const added = instructionsFor(folder, join(root, 'pkg/sub/x.ts'), loaded, options)
      expect(added.map((file) => file.label)).toEqual(['pkg/AGENTS.md', 'pkg/sub/AGENTS.md'])
    }
  })

  it('does not read an instruction file that links out of the folder', () => {
    const secret = join(realpathSync(tempDir()), 'id_rsa')
    writeFileSync(secret, 'PRIVATE KEY\n')
    const { root, options } = project({ 'pkg/x.ts': 'export {}\n' })
    symlinkSync(secret, join(root, 'AGENTS.md'))
    symlinkSync(secret, join(root, 'pkg', 'AGENTS.md'))
    expect(startingInstructions(root, options)).toEqual([])
    expect(instructionsFor(root, join(root, 'pkg/x.ts'), new Set(), options)).toEqual([])
  })

  it('confines the bound folder’s imports to it, even inside a repository', () => {
    const { root, options } = project({
      '.git/HEAD': 'ref: refs/heads/main\n',
      'secret.txt': 'Not for the model.\n',
      'app/AGENTS.md': '@../secret.txt\n',
    })
    const [file] = startingInstructions(join(root, 'app'), options)
    expect(file?.refused).toEqual(['@../secret.txt: outside the folder'])
    expect(file?.text).not.toContain('Not for the model.')
  })

  it('refuses an import outside the project and a cycle, and says so in place', () => {
    const { root, options } = project({
      'AGENTS.md': '@a.md\n@../../etc/passwd\n',
      'a.md': 'A\n@b.md\n',
      'b.md': 'B\n@a.md\n',
    })
    const [file] = startingInstructions(root, options)
    expect(file?.text).toContain('A\nB\n[import @a.md refused: a cycle]')
    expect(file?.refused).toEqual(['@a.md: a cycle', '@../../etc/passwd: outside the folder'])
    expect(file?.text).not.toContain('root:')
  })

  it('cuts at the cap and says where, and takes CLAUDE.md where there is no AGENTS.md', () => {
    const { root, home, options } = project({ 'CLAUDE.md': `${'x'.repeat(100 * 1024)}\n` })
    mkdirSync(join(home, '.atelier'))
    writeFileSync(join(home, '.atelier', 'AGENTS.md'), 'Mine everywhere.\n')
    const files = startingInstructions(root, options)
    expect(files.map((file) => file.label)).toEqual(['~/.atelier/AGENTS.md', 'CLAUDE.md'])
    expect(files[1]?.cut).toBe(true)
    expect(files[1]?.text).toContain('[… cut here: the project instructions passed 32 KiB]')
    expect(files.reduce((bytes, file) => bytes + Buffer.byteLength(file.text), 0)).toBeLessThan(33 * 1024)
  })

  it('lists a file past the cap as left out, rather than dropping it unsaid', () => {
    const { root, options } = project({
      '.git/HEAD': 'ref: refs/heads/main\n',
      'AGENTS.md': `${'x'.repeat(40 * 1024)}\n`,
      'app/AGENTS.md': 'App rules.\n',
    })
    const files = startingInstructions(join(root, 'app'), options)
    expect(files.map(({ label, cut }) => ({ label, cut }))).toEqual([
      { label: 'AGENTS.md', cut: true },
      { label: 'app/AGENTS.md', cut: true },
    ])
    expect(files[1]?.text).toBe('[… left out: the project instructions passed 32 KiB]')
  })

  it('reach the model: the first request of a turn carries the folder’s AGENTS.md', async () => {
    const { atelier, chat, fake, project, run } = await fixture()
    writeFileSync(join(project, 'AGENTS.md'), 'Always answer in French.\n')
    expect(atelier.projection.instructions(chat)).toEqual([{ label: 'AGENTS.md', tokens: 7, cut: false }])
    expect((await atelier.projection.capabilities({ id: chat.id })).instructions).toEqual([
      { label: 'AGENTS.md', tokens: 7, cut: false },
    ])
    fake.enqueue({ text: 'Bonjour.' })
    await run('hello')
    expect(JSON.stringify(fake.requests.at(-1))).toContain('Always answer in French.')
    atelier.chats.configure({ id: chat.id, mode: 'chat' })
    fake.enqueue({ text: 'Hello.' })
    await run('again')
    expect(JSON.stringify(fake.requests.at(-1))).not.toContain('Always answer in French.')
  })

  it('takes in a subfolder’s AGENTS.md when the agent first reads under it, in the result and the next turns', async () => {
    const { fake, project, run } = await fixture()
    writeFileSync(join(project, 'AGENTS.md'), 'Root rules.\n')
    mkdirSync(join(project, 'pkg'))
    writeFileSync(join(project, 'pkg', 'AGENTS.md'), 'Package rules: no semicolons.\n')
    writeFileSync(join(project, 'pkg', 'x.ts'), 'export const x = 1\n')
    fake.enqueue(
      { toolCalls: [{ id: 'r', name: 'read_file', arguments: JSON.stringify({ path: 'pkg/x.ts' }) }] },
      { text: 'Read.' },
    )
    const first = await run('read pkg/x.ts')
    const result = toolResult(first.events, 'r')
    expect(result?.content).toContain('Package rules: no semicolons.')
    expect(result?.content).toContain('were added to the project instructions')
    const firstRequest = JSON.stringify(fake.requests.at(-2))
    expect(firstRequest).toContain('Root rules.')
    expect(firstRequest).not.toContain('no semicolons')
    fake.enqueue({ text: 'Noted.' })
    await run('go on')
    const system = JSON.stringify(fake.requests.at(-1)).split('Today is')[0] ?? ''
    expect(system).toMatch(/Root rules\.[\s\S]*no semicolons/)
  })
})
