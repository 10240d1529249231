import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Capabilities } from '../../../src-shared/contract'
import { useAgentFixture } from '../../support/agent-harness'

describe('desktop-experience contract methods', () => {
  const setup = useAgentFixture()

  it('chats.capabilities shows exactly the tools the next turn sends, with token estimates', async () => {
    const { atelier, fake, chat, run } = await setup('anthropic')
    const reviewer = atelier.profiles.create({
      name: 'Reviewer',
      systemPrompt: 'Review.',
      tools: ['read_file', 'grep'],
    })
    atelier.chats.configure({ id: chat.id, agent: reviewer.id })
    const answer = await atelier.dispatch('chats.capabilities', { id: chat.id })
    if (!answer.ok) throw new Error(answer.error.message)
    const shown = { value: answer.value as Capabilities }

    fake.enqueue({ text: 'ok' })
    await run('hi')
    const sent = fake.requestsOf('anthropic')[0]?.body.tools
    expect(shown.value.tools.map((tool) => tool.wire)).toEqual(sent)
    expect(shown.value).toMatchObject({ provider: { kind: 'anthropic' }, model: 'fake-model' })
    expect(shown.value.tools.map((tool) => tool.name)).toEqual(['grep', 'read_file'])
    const total = shown.value.tools.reduce((sum, tool) => sum + tool.tokens, 0)
    expect(shown.value.totalTokens).toBe(total)
    expect(total).toBeGreaterThan(JSON.stringify(sent).length / 5)
  })

  it('tools.run gives the playground exactly what the model would receive, errors included', async () => {
    const { atelier, project } = await setup()
    writeFileSync(join(project, 'notes.txt'), 'first line\n')
    const read = await atelier.dispatch('tools.run', {
      name: 'read_file',
      arguments: '{"path":"notes.txt"}',
      workingDir: project,
      mode: 'agent',
    })
    expect(read).toMatchObject({
      ok: true,
      value: { isError: false, content: expect.stringContaining('first line') },
    })
    const invalid = await atelier.dispatch('tools.run', {
      name: 'read_file',
      arguments: '{"path": 7}',
      workingDir: project,
      mode: 'agent',
    })
    expect(invalid).toMatchObject({ ok: true, value: { isError: true, errorType: 'validation_failed' } })
    const outside = await atelier.dispatch('tools.run', {
      name: 'read_file',
      arguments: '{"path":"../outside.txt"}',
      workingDir: project,
      mode: 'agent',
    })
    expect(outside).toMatchObject({ ok: true, value: { isError: true, errorType: 'path_denied' } })
  })

  it('folders.list browses sub-folders, folders.recent remembers bound ones, folders.pick needs the desktop app', async () => {
    const { atelier, project, chat } = await setup()
    mkdirSync(join(project, 'src'))
    mkdirSync(join(project, '.git'))
    writeFileSync(join(project, 'README.md'), '')
    const listing = await atelier.dispatch('folders.list', { path: project })
    expect(listing).toMatchObject({
      ok: true,
      value: {
        path: project,
        folders: [
          { name: 'src', path: join(project, 'src') },
          { name: '.git', path: join(project, '.git') },
        ],
        // Files come too, to recognise the folder by.
        files: [{ name: 'README.md' }],
        fileCount: 1,
      },
    })
    expect(await atelier.dispatch('folders.list', { path: 'relative' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_folder' },
    })
    expect(await atelier.dispatch('folders.recent', {})).toEqual({ ok: true, value: [project] })
    expect(atelier.chats.get(chat.id).workingDir).toBe(project)
    expect(await atelier.dispatch('folders.pick', {})).toMatchObject({
      ok: false,
      error: { code: 'unsupported' },
    })
  })
})
