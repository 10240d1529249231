import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import { ConversationRepository } from '../../../src-main/db/conversation-repository'
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

describe("ChatService, keeping the person's place", () => {
  const tempDir = useTempDirs()

  it('starts a chat made like another in its folder, mode, provider, model and profile, not its approval mode', () => {
    const atelier = createAtelier({ dataDir: tempDir() })
    try {
      const provider = atelier.providers.create({
        kind: 'openai-chat',
        name: 'Local',
        baseUrl: 'http://127.0.0.1:9/v1',
        defaultModel: 'm',
      })
      const folder = tempDir()
      const current = atelier.chats.create({ title: 'Parser' })
      atelier.chats.configure({
        id: current.id,
        workingDir: folder,
        mode: 'agent',
        provider: provider.id,
        model: 'big',
        agent: 'default',
        approvalMode: 'full-auto',
      })
      expect(atelier.chats.create({ like: current.id })).toMatchObject({
        title: 'Untitled chat',
        workingDir: folder,
        mode: 'agent',
        provider: provider.id,
        model: 'big',
        agent: 'default',
        approvalMode: null,
      })
      // The chat it was to be like is gone: a plain new chat, not a refusal.
      expect(atelier.chats.create({ like: 'deleted-meanwhile' })).toMatchObject({
        workingDir: null,
        mode: 'chat',
      })
    } finally {
      atelier.close()
    }
  })

  it('discards a chat left empty and untitled, and keeps one with a turn or a title of its own', () => {
    const atelier = createAtelier({ dataDir: tempDir() })
    try {
      const empty = atelier.chats.create({})
      const named = atelier.chats.create({ title: 'Kept for later' })
      const used = atelier.chats.create({})
      new ConversationRepository(atelier.db).beginTurn(used.id, 'Hello')
      expect(atelier.chats.discardIfEmpty({ id: empty.id })).toEqual({ discarded: true })
      expect(atelier.chats.discardIfEmpty({ id: named.id })).toEqual({ discarded: false })
      expect(atelier.chats.discardIfEmpty({ id: used.id })).toEqual({ discarded: false })
      expect(atelier.chats.discardIfEmpty({ id: empty.id })).toEqual({ discarded: false })
      expect(atelier.chats.list().map((chat) => chat.id)).toEqual([used.id, named.id])
    } finally {
      atelier.close()
    }
  })
})
