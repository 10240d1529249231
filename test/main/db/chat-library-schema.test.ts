import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAtelier, DATABASE_FILE } from '../../../src-main/app/create-atelier'
import { openDatabase } from '../../../src-main/db/database'
import { migrations } from '../../../src-main/db/migrations'
import { useTempDirs } from '../../support/temp-dir'

describe('schema 25: the chat library', () => {
  const tempDir = useTempDirs()

  it('lists the chats stored before as unpinned, not archived and forked from nothing; each can then be pinned and archived', async () => {
    const dataDir = tempDir()
    const old = openDatabase(join(dataDir, DATABASE_FILE), {
      migrations: migrations.filter((m) => m.version <= 24),
    })
    old.exec("INSERT INTO chats (id, title, created_at, updated_at) VALUES ('older', 'Older', 0, 0)")
    old.exec("INSERT INTO chats (id, title, created_at, updated_at) VALUES ('newer', 'Newer', 1, 1)")
    old.close()

    const atelier = createAtelier({ dataDir })
    try {
      const [newer, older] = atelier.chats.list()
      expect(newer).toMatchObject({ id: 'newer', pinned: false, archived: false })
      expect(older).not.toHaveProperty('forkedFrom')
      atelier.chats.pin({ id: 'older', pinned: true })
      atelier.chats.archive({ id: 'newer', archived: true })
      expect(atelier.chats.list().map((chat) => [chat.id, chat.pinned, chat.archived])).toEqual([
        ['older', true, false],
        ['newer', false, true],
      ])
    } finally {
      await atelier.close()
    }
  })
})
