import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAtelier, DATABASE_FILE } from '../../../src-main/app/create-atelier'
import { openDatabase } from '../../../src-main/db/database'
import { migrations } from '../../../src-main/db/migrations'
import { useTempDirs } from '../../support/temp-dir'

describe('schema 18: running turns owned by a process start', () => {
  const tempDir = useTempDirs()

  it("reads a turn stored before under this process's PID as interrupted, and one under another live PID as running", async () => {
    const dataDir = tempDir()
    const old = openDatabase(join(dataDir, DATABASE_FILE), {
      migrations: migrations.filter((m) => m.version <= 17),
    })
    old.exec("INSERT INTO chats (id, title, created_at, updated_at) VALUES ('chat', 'Chat', 0, 0)")
    const turn = old.prepare(
      "INSERT INTO turns (id, chat_id, status, pid, started_at) VALUES (?, 'chat', 'running', ?, ?)",
    )
    // Our PID, recorded by a process before this one: a container restarted, a PID reused.
    turn.run('ours', process.pid, 0)
    // Another PID that lives: with no start recorded, all there is to go by.
    turn.run('theirs', process.ppid, 1)
    old.close()

    const atelier = createAtelier({ dataDir })
    try {
      expect(atelier.agent.conversation({ id: 'chat' }).turns.map(({ id, status }) => [id, status])).toEqual([
        ['ours', 'interrupted'],
        ['theirs', 'running'],
      ])
    } finally {
      await atelier.close()
    }
  })
})
