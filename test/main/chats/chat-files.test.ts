import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Value } from '@sinclair/typebox/value'
import { describe, expect, it } from 'vitest'
import { ChatExport } from '../../../src-shared/chat-export'
import { chatFileTooLarge, MAX_CHAT_IMPORT_CHARS } from '../../../src-shared/contract'
import { useAgentFixture } from '../../support/agent-harness'
import { FAKE_PNG } from '../../support/fake-provider'

const FIXTURE = fileURLToPath(new URL('../../fixtures/chats/tool-chat.json', import.meta.url))
const fixtureText = () => readFileSync(FIXTURE, 'utf8')

/**
 * The export with what an import makes anew put by place: ids by their order, image paths by the
 * order of the images, and when and by which version it was written; without the chat's folder,
 * mode and approval mode, which an import never takes from the file.
 */
function byPlace(file: ChatExport): unknown {
  const names = new Map<string, string>()
  for (const [t, turn] of file.turns.entries()) {
    names.set(turn.id, `turn ${t}`)
    for (const [m, message] of turn.messages.entries()) names.set(message.id, `message ${t}.${m}`)
  }
  for (const [c, compaction] of file.compactions.entries()) names.set(compaction.id, `compaction ${c}`)
  for (const [i, image] of file.images.entries()) names.set(image.path, `image ${i}`)
  const { mode: _mode, workingDir: _folder, approvalMode: _approval, ...chat } = file.chat
  const json = JSON.stringify({ ...file, chat, exportedAt: 0, atelier: '' }, (_key, value) =>
    typeof value === 'string' ? (names.get(value) ?? value) : value,
  )
  return JSON.parse(json)
}

/** A chat as a file (issue 39, item 3): JSON export and import, Markdown export. */
describe('ChatFiles', () => {
  const fixture = useAgentFixture()

  describe('import and export', () => {
    it('round trip a chat with tool calls, images and reasoning items: equal by the contract schema', async () => {
      const { atelier } = await fixture()
      const original = JSON.parse(fixtureText()) as ChatExport
      const chat = await atelier.chatFiles.import({ text: fixtureText() })
      expect(chat).toMatchObject({
        title: 'Find the TODOs',
        model: 'gpt-fixture',
        pinned: false,
        archived: false,
      })
      expect(atelier.chats.list().map((each) => each.id)).toContain(chat.id)

      const exported = await atelier.chatFiles.exportJson(chat.id)
      expect(Value.Check(ChatExport, exported)).toBe(true)
      expect(byPlace(exported)).toEqual(byPlace(original))
      // The images were saved anew under this data folder, and the messages name them there.
      for (const image of exported.images) {
        expect(image.path.startsWith(join(atelier.dataDir, 'images', chat.id))).toBe(true)
        expect(readFileSync(image.path).toString('base64')).toBe(original.images[0]?.base64)
      }
    })

    it('round trip a chat made here, and the imported chat goes on with the same history', async () => {
      const { atelier, fake, chat, run } = await fixture()
      fake.enqueue(
        { toolCalls: [{ id: 'call_list', name: 'list_directory', arguments: '{"path":"."}' }] },
        { text: 'An empty folder.', usage: { inputTokens: 10, outputTokens: 3 } },
      )
      await run('What is here?')
      const exported = await atelier.chatFiles.exportJson(chat.id)
      const copy = await atelier.chatFiles.import({ text: JSON.stringify(exported) })
      expect(byPlace(await atelier.chatFiles.exportJson(copy.id))).toEqual(byPlace(exported))

      fake.enqueue({ text: 'Still empty.' })
      const before = fake.requests.length
      await atelier.agent.begin({ chatId: copy.id, prompt: 'And now?' }).done
      const [request] = fake.requests.slice(before)
      const roles = request?.body.messages.map((message: { role: string }) => message.role)
      expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user'])
    })

    it('never take trust from the file: no folder, chat mode, no approval mode, as a new chat', async () => {
      const { atelier, home } = await fixture()
      const hostile = JSON.parse(fixtureText()) as ChatExport
      hostile.chat = { ...hostile.chat, mode: 'agent', workingDir: home, approvalMode: 'full-auto' }
      const chat = await atelier.chatFiles.import({ text: JSON.stringify(hostile) })
      const fresh = atelier.chats.create({})
      for (const made of [chat, atelier.chats.get(chat.id)]) {
        expect(made).toMatchObject({ mode: fresh.mode, workingDir: null, approvalMode: null })
      }
    })

    it('refuse a truncated file with a typed error, and create nothing', async () => {
      const { atelier } = await fixture()
      const chats = atelier.chats.list().length
      const text = fixtureText()
      await expect(atelier.chatFiles.import({ text: text.slice(0, text.length / 2) })).rejects.toMatchObject({
        code: 'invalid_chat_file',
        message: expect.stringContaining('cut short'),
      })
      const bad = JSON.parse(text)
      bad.turns[1].messages[0].parts[0] = { type: 'text' }
      await expect(atelier.chatFiles.import({ text: JSON.stringify(bad) })).rejects.toMatchObject({
        code: 'invalid_chat_file',
        message: expect.stringContaining('/turns/1/messages/0/parts/0'),
      })
      await expect(atelier.chatFiles.import({ text: '{"mcpServers": {}}' })).rejects.toMatchObject({
        code: 'invalid_chat_file',
        message: expect.stringContaining('not an Atelier chat export'),
      })
      expect(atelier.chats.list()).toHaveLength(chats)
      const images = join(atelier.dataDir, 'images')
      expect(existsSync(images) ? readdirSync(images) : []).toEqual([])
    })

    it('refuse a message naming an image the file does not carry, and create nothing', async () => {
      const { atelier, project } = await fixture()
      const chats = atelier.chats.list().length
      const secret = join(project, 'secret.png')
      writeFileSync(secret, FAKE_PNG)
      const hostile = JSON.parse(fixtureText())
      hostile.turns[0].messages[0].parts[0].attachment.path = secret
      await expect(atelier.chatFiles.import({ text: JSON.stringify(hostile) })).rejects.toMatchObject({
        code: 'invalid_chat_file',
        message: expect.stringContaining(secret),
      })
      expect(atelier.chats.list()).toHaveLength(chats)
      const images = join(atelier.dataDir, 'images')
      expect(existsSync(images) ? readdirSync(images) : []).toEqual([])
    })

    it('refuse a file longer than the app takes as a chat file, saying how large and what to do', async () => {
      const { atelier } = await fixture()
      const chats = atelier.chats.list().length
      const text = `${fixtureText()}${' '.repeat(MAX_CHAT_IMPORT_CHARS + 4 * 1024 * 1024)}`
      const result = await atelier.dispatch('chats.import', { text })
      expect(result).toMatchObject({
        ok: false,
        error: { code: 'invalid_chat_file', message: chatFileTooLarge(text.length) },
      })
      expect(chatFileTooLarge(text.length)).toMatch(
        /^This file cannot be imported as a chat: it is 68\.0 MB, and the app imports chat files up to 64\.0 MB\. `atelier chats import FILE` takes it/,
      )
      expect(atelier.chats.list()).toHaveLength(chats)
      // Up to the limit, a file is a chat file like any other.
      expect(chatFileTooLarge(MAX_CHAT_IMPORT_CHARS)).toBeUndefined()
    })

    it('refuse the whole file when its database write fails, its saved images removed', async () => {
      const { atelier } = await fixture()
      const chats = atelier.chats.list().length
      const bad = JSON.parse(fixtureText())
      // Two calls with one id in one turn: the schema allows it, the table's key does not.
      bad.turns[0].calls.push(bad.turns[0].calls[0])
      await expect(atelier.chatFiles.import({ text: JSON.stringify(bad) })).rejects.toThrow()
      expect(atelier.chats.list()).toHaveLength(chats)
      const images = join(atelier.dataDir, 'images')
      const left = existsSync(images)
        ? readdirSync(images, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())
        : []
      expect(left).toEqual([])
    })
  })

  describe('export as Markdown', () => {
    it('reads as the conversation, tool calls folded with their arguments and results', async () => {
      const { atelier } = await fixture()
      const chat = await atelier.chatFiles.import({ text: fixtureText() })
      const file = await atelier.chatFiles.export({ id: chat.id, format: 'markdown' })
      expect(file).toMatchObject({ filename: 'Find-the-TODOs.md', mimeType: 'text/markdown' })
      await expect(file.text).toMatchFileSnapshot('./__snapshots__/tool-chat.md')
    })
  })
})
