/**
 * The scripted long session of the issue, through the built CLI: six reads of 40 KB files with
 * `--context-window 16000`. Every request the fake receives stays under the window by the same
 * estimate (4 characters a token: the fake reports no counts), at least one compaction happens, the
 * answer arrives, and the database still holds every tool result in full.
 */
import { realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import type { TurnEvent } from '../../../src-shared/agent'
import { FAKE_ENV } from '../../support/agent-harness'
import type { RecordedRequest } from '../../support/fake-provider'
import { useTempDirs } from '../../support/temp-dir'
import { atelierWith, fakeRunArgs, useFakeProviders } from './built-cli'

const WINDOW = 16_000
const FILES = ['a', 'b', 'c', 'd', 'e', 'f']

/** A file's 40 KB: numbered lines of words, so each file's text is its own. */
function fileText(name: string): string {
  let text = ''
  for (let line = 1; text.length < 40_000; line++)
    text += `${name}-${line}: the quick brown fox jumps over the lazy dog\n`
  return text
}

/** The characters a Chat Completions request carries, counted as our estimate counts them. */
function requestChars({ body }: RecordedRequest): number {
  let chars = body.tools ? JSON.stringify(body.tools).length : 0
  for (const message of body.messages as {
    content?: string | null
    tool_calls?: { function: { name: string; arguments: string } }[]
  }[]) {
    chars += (message.content ?? '').length
    for (const call of message.tool_calls ?? [])
      chars += call.function.name.length + call.function.arguments.length
  }
  return chars
}

describe('a long session with --context-window (built CLI)', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs()
  const startFake = useFakeProviders()

  it('keeps every request under the window, compacts, answers, and loses no result', async () => {
    const fake = await startFake()
    const project = realpathSync(tempDir())
    const dataDir = tempDir()
    for (const name of FILES) writeFileSync(join(project, `${name}.txt`), fileText(name))
    const none = { usage: { inputTokens: 0, outputTokens: 0 } }
    fake.enqueue(
      ...FILES.map((name) => ({
        toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: `${name}.txt` }) }],
        ...none,
      })),
      { text: 'All six files are read.', ...none },
    )

    const { code, stdout, stderr } = await atelierWith(
      FAKE_ENV,
      dataDir,
      ...fakeRunArgs(
        fake,
        project,
        'Read a.txt to f.txt, one after another.',
        '--context-window',
        String(WINDOW),
        '--json',
      ),
    )
    expect(code, stderr).toBe(0)
    const events = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as TurnEvent)

    const requests = fake.requestsOf('openai-chat')
    expect(requests).toHaveLength(FILES.length + 1)
    const sizes = requests.map((request) => Math.ceil(requestChars(request) / 4))
    for (const tokens of sizes) expect(tokens).toBeLessThan(WINDOW)
    const compactions = events.flatMap((event) =>
      event.type === 'compaction_completed' ? [event.compaction] : [],
    )
    expect(compactions.length).toBeGreaterThanOrEqual(1)
    for (const compaction of compactions) {
      // Past the threshold (80 %) before; after, under the window (the latest result alone may keep
      // it above the threshold: that one the model must see).
      expect(compaction.tokensBefore).toBeGreaterThan(WINDOW * 0.8)
      expect(compaction.tokensAfter).toBeLessThan(Math.min(WINDOW, compaction.tokensBefore))
    }
    // For the record: what each request came to, and what the compactions took off.
    console.info(
      `requests (tokens): ${sizes.join(', ')}; compactions: ${compactions.map((c) => `${c.tokensBefore} → ${c.tokensAfter}`).join(', ')}`,
    )
    expect(
      events
        .filter((event) => event.type === 'text_delta')
        .map((event) => (event as { text: string }).text)
        .join(''),
    ).toBe('All six files are read.')
    expect(events.at(-1)).toMatchObject({ type: 'turn_completed', status: 'completed' })

    const atelier = createAtelier({ dataDir })
    try {
      const [chat] = atelier.chats.list()
      const { messages } = atelier.agent.conversation({ id: chat?.id ?? '' })
      const results = messages
        .flatMap((message) => message.parts)
        .filter((part) => part.type === 'tool_result')
      expect(results).toHaveLength(FILES.length)
      for (const [at, name] of FILES.entries()) {
        const { content } = JSON.parse(results[at]?.content ?? '{}') as { content: string }
        expect(content.replace(/^ *\d+\t/gm, '')).toBe(fileText(name).replace(/\n$/, ''))
      }
    } finally {
      await atelier.close()
    }
  })
})
