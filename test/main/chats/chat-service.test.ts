import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import type { EventName } from '../../../src-shared/contract'
import { useTempDirs } from '../../support/temp-dir'

describe('ChatService', () => {
  const tempDir = useTempDirs()

  it('keeps created, renamed and deleted chats across a reopen', () => {
    const dataDir = tempDir()
    const first = createAtelier({ dataDir })
    const kept = first.chats.create({ title: '  Fix the flaky test  ' })
    const renamed = first.chats.create({})
    const removed = first.chats.create({ title: 'Scratch' })
    first.chats.rename({ id: renamed.id, title: 'Release notes' })
    first.chats.delete({ id: removed.id })
    first.close()

    const second = createAtelier({ dataDir })
    try {
      expect(second.chats.list().map((chat) => [chat.id, chat.title])).toEqual([
        [renamed.id, 'Release notes'],
        [kept.id, 'Fix the flaky test'],
      ])
    } finally {
      second.close()
    }
  })

  it('names a new chat "Untitled chat" and starts it in chat mode with no folder', () => {
    const atelier = createAtelier({ dataDir: tempDir() })
    try {
      expect(atelier.chats.create({})).toMatchObject({
        title: 'Untitled chat',
        mode: 'chat',
        workingDir: null,
      })
    } finally {
      atelier.close()
    }
  })

  it('announces every change with the full list', () => {
    const atelier = createAtelier({ dataDir: tempDir() })
    const seen: [EventName, unknown][] = []
    atelier.events.subscribe((event, payload) => seen.push([event, payload]))
    try {
      const chat = atelier.chats.create({ title: 'One' })
      atelier.chats.rename({ id: chat.id, title: 'Two' })
      atelier.chats.delete({ id: chat.id })
      expect(seen.map(([event]) => event)).toEqual(['chats.changed', 'chats.changed', 'chats.changed'])
      expect(seen[1]?.[1]).toMatchObject({ chats: [{ id: chat.id, title: 'Two' }] })
      expect(seen[2]?.[1]).toEqual({ chats: [] })
    } finally {
      atelier.close()
    }
  })

  it('reports a missing chat as not_found for rename and delete', () => {
    const atelier = createAtelier({ dataDir: tempDir() })
    try {
      expect(() => atelier.chats.rename({ id: 'nope', title: 'x' })).toThrowError(
        expect.objectContaining({ code: 'not_found' }),
      )
      expect(() => atelier.chats.delete({ id: 'nope' })).toThrowError(
        expect.objectContaining({ code: 'not_found' }),
      )
    } finally {
      atelier.close()
    }
  })
})

describe('ChatService.configure and titles', () => {
  const tempDir = useTempDirs()

  it('binds an existing folder, and refuses a relative path or a file with a clear error', async () => {
    const atelier = createAtelier({ dataDir: tempDir() })
    try {
      const chat = atelier.chats.create({})
      const folder = tempDir()
      expect(atelier.chats.configure({ id: chat.id, workingDir: folder, mode: 'agent' })).toMatchObject({
        workingDir: folder,
        mode: 'agent',
      })
      for (const workingDir of ['src', `${folder}/missing`]) {
        expect(await atelier.dispatch('chats.configure', { id: chat.id, workingDir })).toMatchObject({
          ok: false,
          error: { code: 'invalid_folder', message: expect.stringContaining(workingDir) },
        })
      }
      expect(atelier.chats.get(chat.id).workingDir).toBe(folder)
      expect(atelier.chats.configure({ id: chat.id, workingDir: null }).workingDir).toBeNull()
    } finally {
      atelier.close()
    }
  })

  it('names an untitled chat after the first line of its first prompt, and only then', () => {
    const atelier = createAtelier({ dataDir: tempDir() })
    try {
      const chat = atelier.chats.create({})
      atelier.chats.nameAfterPrompt(chat.id, `\n  Why does the build fail on CI?\nHere is the log: ...`)
      expect(atelier.chats.get(chat.id).title).toBe('Why does the build fail on CI?')
      atelier.chats.nameAfterPrompt(chat.id, 'A second prompt')
      expect(atelier.chats.get(chat.id).title).toBe('Why does the build fail on CI?')
      const long = atelier.chats.create({})
      atelier.chats.nameAfterPrompt(long.id, 'x'.repeat(300))
      expect(atelier.chats.get(long.id).title).toHaveLength(60)
      expect(atelier.chats.get(long.id).title.endsWith('…')).toBe(true)
    } finally {
      atelier.close()
    }
  })
})
