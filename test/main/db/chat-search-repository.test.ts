import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAtelier, DATABASE_FILE } from '../../../src-main/app/create-atelier'
import { type Database, openDatabase } from '../../../src-main/db/database'
import { migrations } from '../../../src-main/db/migrations'
import type { ChatSearchResult } from '../../../src-shared/contract'
import { useAgentFixture } from '../../support/agent-harness'
import { useTempDirs } from '../../support/temp-dir'

/** FTS5's own check of the index against the text it keeps: throws when the two disagree. */
function checkIndex(db: Database): void {
  db.prepare("INSERT INTO message_search (message_search, rank) VALUES ('integrity-check', 1)").run()
}

/** The snippet as one line, each match in brackets. */
function marked(result: ChatSearchResult): string {
  return result.snippet.map((piece) => (piece.match ? `[${piece.text}]` : piece.text)).join('')
}

/** Search over every chat (issue 39, item 2). */
describe('ChatSearchRepository', () => {
  const fixture = useAgentFixture()
  const tempDir = useTempDirs()

  describe('find', () => {
    it('finds a word that appears only in a tool result, at the tool message that holds it', async () => {
      const { atelier, fake, chat, project, run } = await fixture()
      writeFileSync(join(project, 'notes.txt'), 'The supplier code is quillwort-7 for the spring order.\n')
      fake.enqueue(
        { toolCalls: [{ id: 'call_read', name: 'read_file', arguments: '{"path":"notes.txt"}' }] },
        { text: 'I read the notes.' },
      )
      const { messages } = await run('What does the file say?')

      const results = atelier.chatSearch.find({ query: 'quillwort' })
      const toolMessage = messages.find((message) => message.role === 'tool')
      expect(results).toHaveLength(1)
      expect(results[0]).toMatchObject({
        chatId: chat.id,
        chatTitle: atelier.chats.get(chat.id).title,
        messageId: toolMessage?.id,
        turnId: toolMessage?.turnId,
        role: 'tool',
        callId: 'call_read',
      })
      expect(marked(results[0] as ChatSearchResult)).toContain('[quillwort]-7 for the spring order')
      // A call's arguments are searched too, at the answer that made the call.
      expect(atelier.chatSearch.find({ query: 'notes.txt' }).map((result) => result.role)).toContain(
        'assistant',
      )
    })

    it('matches the last word as a prefix while it is being typed, and every word of the query', async () => {
      const { atelier, fake, run } = await fixture()
      fake.enqueue({ text: 'Use the marmalade jar on the top shelf.' }, { text: 'The marmalade ran out.' })
      await run('Where is the jam?')
      await run('Anything else?')

      expect(atelier.chatSearch.find({ query: 'marma' })).toHaveLength(2)
      expect(atelier.chatSearch.find({ query: 'marma ' })).toHaveLength(0)
      expect(atelier.chatSearch.find({ query: 'marmalade shelf' }).map(marked)).toEqual([
        'Use the [marmalade] jar on the top [shelf].',
      ])
    })

    it('orders equally good matches newest first, and returns no more than the limit', async () => {
      const { atelier, fake, run } = await fixture()
      fake.enqueue({ text: 'Plover.' }, { text: 'Plover.' }, { text: 'Plover.' })
      await run('first')
      await run('second')
      await run('third')
      const { messages } = atelier.agent.conversation({ id: atelier.chats.list()[0]?.id ?? '' })
      const answers = messages.filter((message) => message.role === 'assistant').map(({ id }) => id)

      const found = atelier.chatSearch.find({ query: 'plover' })
      expect(found.map((result) => result.messageId)).toEqual(answers.reverse())
      expect(atelier.chatSearch.find({ query: 'plover', limit: 2 })).toHaveLength(2)
    })

    it('never fails on what a person types, whatever FTS5 would make of it', async () => {
      const { atelier, fake, run } = await fixture()
      fake.enqueue({ text: `It's "quoted", starred*, NEAR the -minus- sign; (a OR b) AND c:d ^e.` })
      await run('Say something odd.')

      for (const query of [
        '"',
        '""',
        'quoted"',
        '"quoted',
        '*',
        'star*',
        'NEAR(a b)',
        'NEAR',
        '-minus',
        '- -',
        'a OR b',
        'AND',
        'NOT',
        '(',
        ')',
        'c:d',
        '^e',
        '{a b}',
        '',
        '   ',
        '\u0002',
      ]) {
        expect(() => atelier.chatSearch.find({ query }), query).not.toThrow()
      }
      // The words are searched for as words, whatever is around them.
      expect(atelier.chatSearch.find({ query: '"quoted"' })).toHaveLength(1)
      expect(atelier.chatSearch.find({ query: "it's" })).toHaveLength(1)
      expect(atelier.chatSearch.find({ query: 'NEAR minus' })).toHaveLength(1)
      expect(atelier.chatSearch.find({ query: 'a OR b' })).toHaveLength(1)
      expect(atelier.chatSearch.find({ query: 'a OR zebra' })).toHaveLength(0)
      expect(atelier.chatSearch.find({ query: '*' })).toEqual([])
    })

    it('forgets a deleted chat, its messages gone from the index', async () => {
      const { atelier, fake, chat, run } = await fixture()
      fake.enqueue({ text: 'Cormorant.' })
      await run('A seabird?')
      const kept = atelier.chats.create({})
      // The index itself, not the messages its results are joined with.
      const indexed = (word: string) =>
        atelier.db.prepare('SELECT rowid FROM message_search WHERE message_search MATCH ?').all(word)
      expect(indexed('cormorant')).toHaveLength(1)

      atelier.chats.delete({ id: chat.id })
      expect(atelier.chatSearch.find({ query: 'cormorant' })).toEqual([])
      expect(indexed('cormorant')).toEqual([])
      expect(indexed('seabird')).toEqual([])
      expect(atelier.db.prepare('SELECT count(*) AS count FROM message_search_rows').get()).toEqual({
        count: 0,
      })
      checkIndex(atelier.db)
      expect(atelier.chats.get(kept.id)).toBeDefined()
    })

    it('follows a message whose parts are rewritten (as a migration of stored messages does)', async () => {
      const { atelier, fake, run } = await fixture()
      fake.enqueue({ text: 'Pelican.' })
      const { messages } = await run('A big bill?')
      const answer = messages.find((message) => message.role === 'assistant')
      atelier.db
        .prepare('UPDATE messages SET parts = ? WHERE id = ?')
        .run(JSON.stringify([{ type: 'text', text: 'Albatross.' }]), answer?.id)
      expect(atelier.chatSearch.find({ query: 'pelican' })).toEqual([])
      expect(atelier.chatSearch.find({ query: 'albatross' }).map((result) => result.messageId)).toEqual([
        answer?.id,
      ])
      checkIndex(atelier.db)
    })

    it('finds a fork under the fork too, and a rewound turn under the chat it moved to', async () => {
      const { atelier, fake, chat, run } = await fixture()
      fake.enqueue({ text: 'Heron.' }, { text: 'Egret.' })
      const first = await run('one')
      const second = await run('two')
      const fork = atelier.chats.fork({ id: chat.id, turnId: first.turn.id })
      expect(
        atelier.chatSearch
          .find({ query: 'heron' })
          .map((result) => result.chatId)
          .sort(),
      ).toEqual([chat.id, fork.id].sort())

      const moved = atelier.db
        .prepare("UPDATE messages SET chat_id = ? WHERE turn_id = ? AND role = 'assistant'")
        .run(fork.id, second.turn.id)
      expect(moved.changes).toBe(1)
      expect(atelier.chatSearch.find({ query: 'egret' }).map((result) => result.chatId)).toEqual([fork.id])
      checkIndex(atelier.db)
    })
  })

  describe('schema 26', () => {
    it('indexes the chats stored before it, leaving out subagents’ own chats', async () => {
      const dataDir = tempDir()
      const old = openDatabase(join(dataDir, DATABASE_FILE), {
        migrations: migrations.filter((m) => m.version < 26),
      })
      old.exec(`
        INSERT INTO chats (id, title, created_at, updated_at) VALUES ('chat', 'Birds', 0, 0);
        INSERT INTO chats (id, title, created_at, updated_at, parent_chat_id, parent_call_id)
          VALUES ('child', 'Explore', 0, 0, 'chat', 'call_task');
        INSERT INTO turns (id, chat_id, status, pid, started_at) VALUES ('turn', 'chat', 'completed', 1, 0);
        INSERT INTO turns (id, chat_id, status, pid, started_at) VALUES ('inner', 'child', 'completed', 1, 0);
        INSERT INTO messages (id, chat_id, turn_id, seq, role, parts, created_at) VALUES
          ('prompt', 'chat', 'turn', 1, 'user', '[{"type":"text","text":"Which bird is the kingfisher?"}]', 1),
          ('answer', 'chat', 'turn', 2, 'assistant',
            '[{"type":"tool_call","id":"call_task","name":"task","arguments":"{\\"prompt\\":\\"look up wagtails\\"}"}]', 2),
          ('result', 'chat', 'turn', 3, 'tool',
            '[{"type":"tool_result","callId":"call_task","name":"task","content":"The wagtail report.","isError":false}]', 3),
          ('inside', 'child', 'inner', 1, 'assistant', '[{"type":"text","text":"A wagtail flicks its tail."}]', 2),
          ('broken', 'chat', 'turn', 4, 'assistant', 'not json', 4);
      `)
      old.close()

      const atelier = createAtelier({ dataDir })
      try {
        const found = (query: string) => atelier.chatSearch.find({ query }).map((result) => result.messageId)
        expect(found('kingfisher')).toEqual(['prompt'])
        expect(found('wagtails')).toEqual(['answer'])
        expect(found('wagtail report')).toEqual(['result'])
        expect(found('flicks')).toEqual([])
        expect(atelier.chatSearch.find({ query: 'kingfisher' })[0]).toMatchObject({
          chatId: 'chat',
          chatTitle: 'Birds',
          turnId: 'turn',
          role: 'user',
        })
        checkIndex(atelier.db)
      } finally {
        await atelier.close()
      }
    })
  })
})
