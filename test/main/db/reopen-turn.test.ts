import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConversationRepository } from '../../../src-main/db/conversation-repository'
import { openDatabase } from '../../../src-main/db/database'
import { useTempDirs } from '../../support/temp-dir'

/** Retry's reopening of a failed turn, where two windows can race to it, or another turn runs. */
describe('reopening a turn', () => {
  const tempDir = useTempDirs()

  it('is refused with nothing_to_retry once another retry reopened it first', () => {
    const db = openDatabase(join(tempDir(), 'atelier.db'))
    try {
      db.exec("INSERT INTO chats (id, title, created_at, updated_at) VALUES ('chat', 'Chat', 0, 0)")
      const conversation = new ConversationRepository(db)
      const { turn } = conversation.beginTurn('chat', 'Hello')
      conversation.endTurn(turn.id, 'failed', {
        code: 'provider_connection',
        message: 'The provider did not answer.',
      })
      expect(conversation.reopenTurn(turn.id).status).toBe('running')
      expect(() => conversation.reopenTurn(turn.id)).toThrow(
        expect.objectContaining({ code: 'nothing_to_retry', data: { turnId: turn.id } }),
      )
    } finally {
      db.close()
    }
  })

  it('is refused with turn_running while the chat runs another turn, and so is a new one', () => {
    const db = openDatabase(join(tempDir(), 'atelier.db'))
    try {
      db.exec("INSERT INTO chats (id, title, created_at, updated_at) VALUES ('chat', 'Chat', 0, 0)")
      const conversation = new ConversationRepository(db)
      const failed = conversation.beginTurn('chat', 'Hello').turn
      conversation.endTurn(failed.id, 'failed', { code: 'internal', message: 'It broke.' })
      const running = conversation.beginTurn('chat', 'Hello again').turn
      const refusal = expect.objectContaining({
        code: 'turn_running',
        data: { chatId: 'chat', turnId: running.id, pid: process.pid },
      })
      expect(() => conversation.reopenTurn(failed.id)).toThrow(refusal)
      expect(() => conversation.beginTurn('chat', 'And again')).toThrow(refusal)
      expect(conversation.messages('chat')).toHaveLength(2)
    } finally {
      db.close()
    }
  })
})
