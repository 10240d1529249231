import { readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ChatMessage } from '../../../src-shared/agent'
import type { Chat } from '../../../src-shared/contract'
import { useTempDirs } from '../../support/temp-dir'
import { atelier, fakeRunArgs, useFakeProviders } from './built-cli'

/** `atelier chats` (issue 39, items 1 and 3). */
describe('atelier chats', { timeout: 180_000 }, () => {
  const tempDir = useTempDirs()
  const fakeProvider = useFakeProviders()

  /** A data folder with chat `C`: two turns, "first" → "One." and "second" → "Two.". */
  async function twoTurns() {
    const fake = await fakeProvider()
    const dataDir = tempDir()
    const project = realpathSync(tempDir())
    fake.enqueue({ text: 'One.' }, { text: 'Two.' })
    for (const prompt of ['first', 'second']) {
      const run = await atelier(dataDir, ...fakeRunArgs(fake, project, prompt, '--chat', 'C'))
      expect(run.code, run.stderr).toBe(0)
    }
    return dataDir
  }

  const json = async <T>(dataDir: string, ...args: string[]): Promise<T> => {
    const result = await atelier(dataDir, ...args, '--json')
    expect(result.code, result.stderr).toBe(0)
    return JSON.parse(result.stdout) as T
  }

  it('forks at a message, and show links the fork and its source both ways', async () => {
    const dataDir = await twoTurns()
    const { messages } = await json<{ messages: ChatMessage[] }>(dataDir, 'chats', 'show', 'C')
    const one = messages.find((message) =>
      message.parts.some((part) => part.type === 'text' && part.text === 'One.'),
    )

    const { chat: fork } = await json<{ chat: Chat }>(dataDir, 'chats', 'fork', 'C', '--at', one?.id ?? '')
    expect(fork).toMatchObject({ title: 'first (fork)', forkedFrom: { chatId: 'C', messageId: one?.id } })
    const shown = await atelier(dataDir, 'chats', 'show', fork.id)
    expect(shown.stdout).toContain(`Forked from C at message ${one?.id}`)
    expect(shown.stdout).toContain('answer: One.')
    expect(shown.stdout).not.toContain('Two.')
    expect((await atelier(dataDir, 'chats', 'show', 'C')).stdout).toContain(`Fork: ${fork.id}  first (fork)`)

    const unknown = await atelier(dataDir, 'chats', 'fork', 'C', '--at', 'nothing-here')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('(not_found)')
  })

  it('exports as Markdown and JSON, imports the JSON back, and refuses a file cut short', async () => {
    const dataDir = await twoTurns()
    const markdown = await atelier(dataDir, 'chats', 'export', 'C', '--format', 'md')
    expect(markdown.stdout).toMatch(/^# first\n/)
    expect(markdown.stdout).toContain('## You\n\nsecond\n\n## Answer\n\nTwo.')

    const file = join(tempDir(), 'chat.json')
    expect((await atelier(dataDir, 'chats', 'export', 'C', '--format', 'json', '-o', file)).code).toBe(0)
    const imported = await atelier(dataDir, 'chats', 'import', file)
    expect(imported.stdout).toMatch(/^Imported as \S+ {2}first\n$/)
    const chats = await json<Chat[]>(dataDir, 'chats', 'list')
    expect(chats.map((chat) => chat.title)).toEqual(['first', 'first'])

    const text = readFileSync(file, 'utf8')
    writeFileSync(file, text.slice(0, text.length - 40))
    const refused = await atelier(dataDir, 'chats', 'import', file)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('cut short')
    expect(refused.stderr).toContain('(invalid_chat_file)')
    expect(await json<Chat[]>(dataDir, 'chats', 'list')).toHaveLength(2)
  })

  it('renames, pins, archives and removes', async () => {
    const dataDir = await twoTurns()
    const other = await atelier(dataDir, 'chats', 'import', await exported(dataDir))
    expect(other.code, other.stderr).toBe(0)
    expect((await atelier(dataDir, 'chats', 'rename', 'C', 'The plan')).stdout).toContain('The plan')
    // The import is newer, so first; pinned, C goes before it.
    expect((await json<Chat[]>(dataDir, 'chats', 'list')).map((chat) => chat.title)).toEqual([
      'first',
      'The plan',
    ])
    expect((await atelier(dataDir, 'chats', 'pin', 'C')).stdout).toContain('[pinned]')
    expect((await json<Chat[]>(dataDir, 'chats', 'list')).map((chat) => chat.title)).toEqual([
      'The plan',
      'first',
    ])

    expect((await atelier(dataDir, 'chats', 'archive', 'C')).code).toBe(0)
    expect((await json<Chat[]>(dataDir, 'chats', 'list')).map((chat) => chat.title)).toEqual(['first'])
    expect((await json<Chat[]>(dataDir, 'chats', 'list', '--archived')).map((chat) => chat.id)).toEqual(['C'])
    expect((await atelier(dataDir, 'chats', 'list', '--archived')).stdout).toContain('[pinned, archived]')

    expect((await atelier(dataDir, 'chats', 'remove', 'C')).stdout).toBe('Removed C.\n')
    expect(await json<Chat[]>(dataDir, 'chats', 'list', '--archived')).toEqual([])
    expect((await atelier(dataDir, 'chats', 'remove', 'C')).stderr).toContain('(not_found)')
  })

  /** Chat C exported as JSON into a file; its path. */
  async function exported(dataDir: string): Promise<string> {
    const file = join(tempDir(), 'export.json')
    expect((await atelier(dataDir, 'chats', 'export', 'C', '--format', 'json', '-o', file)).code).toBe(0)
    return file
  }
})
