import { realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ChatSearchResult } from '../../../src-shared/contract'
import { type FakeProvider, startFakeProvider } from '../../support/fake-provider'
import { useTempDirs } from '../../support/temp-dir'
import { atelier, fakeRunArgs } from './built-cli'

describe('atelier chats search', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs()
  const cleanups: (() => unknown)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup()
  })

  it('finds a word a tool read in a run, as lines and as JSON; odd characters are only words', async () => {
    const fake: FakeProvider = await startFakeProvider()
    cleanups.push(() => fake.close())
    const dataDir = tempDir()
    const project = realpathSync(tempDir())
    writeFileSync(join(project, 'notes.txt'), 'The supplier code is quillwort-7.\n')
    fake.enqueue(
      { toolCalls: [{ id: 'call_read', name: 'read_file', arguments: '{"path":"notes.txt"}' }] },
      { text: 'The notes name a supplier.' },
    )
    const run = await atelier(dataDir, ...fakeRunArgs(fake, project, 'Read the notes', '--chat', 'C'))
    expect(run.code, run.stderr).toBe(0)

    const lines = await atelier(dataDir, 'chats', 'search', 'quill')
    expect(lines.code, lines.stderr).toBe(0)
    expect(lines.stdout).toMatch(/^.+ \(C\) · tool result \S+ · \d{4}-\d\d-\d\d \d\d:\d\d\n/)
    expect(lines.stdout).toContain('[quillwort]-7.')

    const json = await atelier(dataDir, 'chats', 'search', 'supplier', 'code', '--json', '--limit', '1')
    const results = JSON.parse(json.stdout) as ChatSearchResult[]
    expect(results).toHaveLength(1)
    expect(results[0]).toMatchObject({ chatId: 'C', role: 'tool', callId: 'call_read' })
    expect(results[0]?.snippet.filter((piece) => piece.match).map((piece) => piece.text)).toEqual([
      'supplier',
      'code',
    ])

    const odd = await atelier(dataDir, 'chats', 'search', '--', 'NEAR("quill', '-', '*')
    expect(odd).toMatchObject({ code: 0, stdout: 'No message matches.\n' })
    const refused = await atelier(dataDir, 'chats', 'search', 'quill', '--limit', '0')
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('expected a whole number from 1 to 200')
  })
})
