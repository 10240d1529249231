import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_ENTRIES } from '../../../../src-main/tools/builtin/list-directory'
import { useToolHarness } from '../../../support/tool-harness'

describe('list_directory', () => {
  const harness = useToolHarness()

  it('lists entries sorted by name with their types', async () => {
    const { project, ok, folder } = harness()
    folder('src')
    writeFileSync(join(project, 'b.txt'), '')
    writeFileSync(join(project, '.env'), '')
    symlinkSync('b.txt', join(project, 'a-link'))
    expect(await ok('list_directory', { path: '.' })).toEqual({
      path: '.',
      entries: [
        { name: '.env', type: 'file' },
        { name: 'a-link', type: 'symlink' },
        { name: 'b.txt', type: 'file' },
        { name: 'src', type: 'directory' },
      ],
    })
  })

  it('reports paths absolute in chat mode, where the folder is not injected', async () => {
    const { project, ok } = harness()
    expect(await ok('list_directory', { path: project }, { mode: 'chat' })).toMatchObject({ path: project })
  })

  it('leaves out denied entries and symlinks that are aliases of them', async () => {
    const { atelier, project, ok, folder } = harness()
    folder('secret')
    folder('public')
    symlinkSync(join(project, 'secret'), join(project, 'alias'))
    atelier.tools.settings.update('local', 'list_directory', {
      parameters: { deniedPaths: [join(project, 'secret')] },
    })
    expect(await ok('list_directory', { path: '.' })).toEqual({
      path: '.',
      entries: [{ name: 'public', type: 'directory' }],
    })
  })

  it('caps a huge folder and says so', async () => {
    const { project, ok } = harness()
    mkdirSync(join(project, 'many'))
    for (let i = 0; i < MAX_ENTRIES + 5; i++)
      writeFileSync(join(project, 'many', `f${String(i).padStart(5, '0')}`), '')
    const result = await ok<{ entries: unknown[]; truncated?: boolean }>('list_directory', { path: 'many' })
    expect(result.entries).toHaveLength(MAX_ENTRIES)
    expect(result.truncated).toBe(true)
  })

  it('refuses a file and a missing folder with typed errors', async () => {
    const { project, run } = harness()
    writeFileSync(join(project, 'a.txt'), '')
    expect(await run('list_directory', { path: 'a.txt' })).toMatchObject({ errorType: 'validation_failed' })
    expect(await run('list_directory', { path: 'missing' })).toMatchObject({ errorType: 'not_found' })
    expect(await run('list_directory', { path: 42 })).toMatchObject({ errorType: 'validation_failed' })
  })
})

describe('list_directory with relative denied paths', () => {
  const harness = useToolHarness()

  it('takes a relative deniedPaths entry from the chat’s folder', async () => {
    const { atelier, ok, run, folder } = harness()
    folder('secrets')
    folder('src')
    atelier.tools.settings.update('local', 'list_directory', { parameters: { deniedPaths: ['secrets'] } })
    expect(await ok('list_directory', { path: '.' })).toEqual({
      path: '.',
      entries: [{ name: 'src', type: 'directory' }],
    })
    expect(await run('list_directory', { path: 'secrets' })).toMatchObject({ errorType: 'path_denied' })
  })
})
