import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConversationRepository } from '../../../src-main/db/conversation-repository'
import { openDatabase } from '../../../src-main/db/database'
import { migrations } from '../../../src-main/db/migrations'
import { useTempDirs } from '../../support/temp-dir'

/** Tool results as Atelier stored them before results were typed (schema 6). */
const OLD_RESULTS = [
  {
    type: 'tool_result',
    callId: 'c1',
    name: 'bash',
    content: 'exit code 0, exited, 5 ms\nstdout:\nhi\n\nstderr: (empty)',
    isError: false,
    durationMs: 5,
    data: {
      stdout: 'hi\n',
      stderr: '',
      exitCode: 0,
      signal: null,
      termination: 'exited',
      durationMs: 5,
      truncated: { stdout: false, stderr: true },
    },
  },
  {
    type: 'tool_result',
    callId: 'c2',
    name: 'edit_file',
    content: JSON.stringify(
      {
        path: 'a.ts',
        replacements: 1,
        diff: 'Index: a.ts\n===================================================================\n--- a.ts\n+++ a.ts\n@@ -1 +1 @@\n-one\n+two\n',
      },
      null,
      2,
    ),
    isError: false,
  },
  {
    type: 'tool_result',
    callId: 'c3',
    name: 'generate_image',
    content: 'Generated 1 of 1 image(s).',
    isError: false,
    data: { images: [{ path: '/data/images/c/1.png', mimeType: 'image/png' }] },
  },
  {
    type: 'tool_result',
    callId: 'c4',
    name: 'everything__get-tiny-image',
    content: '[image: image/png, 3 bytes, shown to the user]',
    isError: false,
    data: {
      media: [
        { type: 'image', mimeType: 'image/png', data: 'iVBO' },
        { type: 'audio', mimeType: 'audio/wav', data: 'UklG' },
      ],
      structured: { ok: true },
    },
  },
  {
    type: 'tool_result',
    callId: 'c5',
    name: 'grep',
    content: 'grep was cancelled by the user.',
    isError: true,
  },
  {
    type: 'tool_result',
    callId: 'c6',
    name: 'read_file',
    content: `${'x'.repeat(20)}\n\n[Output truncated: showing 20 of 90 characters. Ask for less.]`,
    isError: false,
    errorType: undefined,
  },
]

describe('schema 7: tool results stored before they were typed', () => {
  const tempDir = useTempDirs()

  it('gain the display, truncated and stop type a view reads, and keep what the model read', () => {
    const file = join(tempDir(), 'atelier.db')
    const old = openDatabase(file, { migrations: migrations.filter((m) => m.version <= 6) })
    old.exec(`
      INSERT INTO chats (id, title, created_at, updated_at) VALUES ('chat', 'Old', 0, 0);
      INSERT INTO turns (id, chat_id, status, pid, started_at) VALUES ('turn', 'chat', 'completed', 1, 0);
    `)
    const insert = old.prepare(
      `INSERT INTO messages (id, chat_id, turn_id, seq, role, parts, created_at) VALUES (?, 'chat', 'turn', ?, ?, ?, 0)`,
    )
    insert.run('m1', 1, 'user', JSON.stringify([{ type: 'text', text: 'go' }]))
    insert.run('m2', 2, 'tool', JSON.stringify(OLD_RESULTS))
    old.close()

    const db = openDatabase(file)
    try {
      const [prompt, results] = new ConversationRepository(db).messages('chat')
      expect(prompt?.parts).toEqual([{ type: 'text', text: 'go' }])
      const [shell, edit, generated, mcp, stopped, cut] = results?.parts ?? []
      expect(shell).toEqual({
        ...OLD_RESULTS[0],
        data: undefined,
        truncated: true,
        display: { kind: 'shell', ...OLD_RESULTS[0]?.data },
      })
      expect(shell).not.toHaveProperty('data')
      expect(edit).toMatchObject({
        content: OLD_RESULTS[1]?.content,
        truncated: false,
        display: { kind: 'diff', path: 'a.ts', patch: expect.stringContaining('@@ -1 +1 @@\n-one\n+two') },
      })
      expect(generated).toMatchObject({
        truncated: false,
        display: { kind: 'images', images: [{ path: '/data/images/c/1.png', mimeType: 'image/png' }] },
      })
      expect(generated).not.toHaveProperty('data')
      expect(mcp).toMatchObject({
        display: { kind: 'images', images: [{ data: 'iVBO', mimeType: 'image/png' }] },
        data: { media: [{ type: 'audio', mimeType: 'audio/wav', data: 'UklG' }], structured: { ok: true } },
      })
      expect(stopped).toMatchObject({ isError: true, errorType: 'aborted', truncated: false })
      expect(stopped).not.toHaveProperty('display')
      expect(cut).toMatchObject({ truncated: true, content: OLD_RESULTS[5]?.content })
    } finally {
      db.close()
    }
  })
})
