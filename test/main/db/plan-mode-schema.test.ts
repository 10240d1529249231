import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAtelier, DATABASE_FILE } from '../../../src-main/app/create-atelier'
import { openDatabase } from '../../../src-main/db/database'
import { migrations } from '../../../src-main/db/migrations'
import { useTempDirs } from '../../support/temp-dir'

describe('schema 22: plan mode', () => {
  const tempDir = useTempDirs()

  it('lets a chat and an agent profile stored before take plan mode, keeps their conversation and still refuses an unknown mode', async () => {
    const dataDir = tempDir()
    const old = openDatabase(join(dataDir, DATABASE_FILE), {
      migrations: migrations.filter((m) => m.version <= 21),
    })
    old.exec(
      "INSERT INTO chats (id, title, approval_mode, created_at, updated_at) VALUES ('chat', 'Chat', 'ask', 0, 0)",
    )
    old.exec(
      "INSERT INTO turns (id, chat_id, status, pid, started_at) VALUES ('turn', 'chat', 'completed', 1, 0)",
    )
    old.close()

    const atelier = createAtelier({ dataDir })
    try {
      expect(atelier.chats.configure({ id: 'chat', approvalMode: 'plan' }).approvalMode).toBe('plan')
      expect(atelier.chats.get('chat').approvalMode).toBe('plan')
      expect(atelier.agent.conversation({ id: 'chat' }).turns.map(({ id }) => id)).toEqual(['turn'])
      const profile = atelier.profiles.create({
        name: 'Planner',
        systemPrompt: 'Plan first.',
        approvalMode: 'plan',
      })
      expect(atelier.profiles.forChat(profile.id).approvalMode).toBe('plan')
    } finally {
      await atelier.close()
    }
    const reopened = openDatabase(join(dataDir, DATABASE_FILE))
    try {
      expect(() => reopened.exec("UPDATE chats SET approval_mode = 'sometimes'")).toThrow(/CHECK constraint/)
      expect(reopened.pragma('integrity_check', { simple: true })).toBe('ok')
    } finally {
      reopened.close()
    }
  })
})
