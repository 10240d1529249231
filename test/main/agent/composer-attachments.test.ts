/**
 * What the composer attaches beside MCP resources, through the contract as the app sends it: a file
 * of the chat's folder named with `@` (its search, its read under the path policy), and a pasted
 * image, which each provider's request carries in its own format.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { rankFiles } from '../../../src-main/agent/mentions'
import { MISSING_IMAGE } from '../../../src-main/providers/types'
import { FILE_TEXT_LIMIT, MAX_IMAGE_BYTES, MAX_MESSAGE_IMAGE_BYTES } from '../../../src-shared/attachments'
import { useAgentFixture } from '../../support/agent-harness'
import { turnThroughContract } from '../../support/contract-turn'
import { FAKE_PNG, type FakeKind } from '../../support/fake-provider'
import { useTempDirs } from '../../support/temp-dir'

// biome-ignore lint/suspicious/noExplicitAny: request bodies of four wire formats, read deep.
type Wire = any

const KINDS = ['openai-responses', 'openai-chat', 'gemini', 'anthropic'] as const satisfies FakeKind[]
const PNG = FAKE_PNG.toString('base64')

/** The user message of a request, in each wire format. */
function userContentOf(kind: FakeKind, body: Wire): Wire {
  if (kind === 'openai-chat') return body.messages.find((message: Wire) => message.role === 'user').content
  if (kind === 'openai-responses') return body.input.find((item: Wire) => item.role === 'user').content
  if (kind === 'gemini') return body.contents.find((content: Wire) => content.role === 'user').parts
  return body.messages.find((message: Wire) => message.role === 'user').content
}

const EXPECTED_IMAGE: Record<FakeKind, Wire[]> = {
  'openai-chat': [
    { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
    { type: 'text', text: 'What is this?' },
  ],
  'openai-responses': [
    { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
    { type: 'input_text', text: 'What is this?' },
  ],
  gemini: [{ inlineData: { mimeType: 'image/png', data: PNG } }, { text: 'What is this?' }],
  anthropic: [
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    { type: 'text', text: 'What is this?' },
  ],
}

describe('an image attached to a prompt', () => {
  const fixture = useAgentFixture()

  it.each(KINDS)('%s: the request carries it in the provider’s own image format', async (kind) => {
    const { atelier, fake, chat } = await fixture(kind)
    fake.enqueue({ text: 'A pixel.' })
    const { turn } = await turnThroughContract(atelier, {
      chatId: chat.id,
      prompt: 'What is this?',
      attachments: [{ kind: 'image', mimeType: 'image/png', base64: PNG, name: 'pixel.png' }],
    })
    expect(turn?.status).toBe('completed')
    expect(userContentOf(kind, fake.requestsOf(kind)[0]?.body)).toEqual(EXPECTED_IMAGE[kind])
  })

  it('is saved with the chat’s images, not in the database, and shown through images.read', async () => {
    const { atelier, fake, chat } = await fixture('openai-chat')
    fake.enqueue({ text: 'A pixel.' })
    await turnThroughContract(atelier, {
      chatId: chat.id,
      prompt: 'What is this?',
      attachments: [{ kind: 'image', mimeType: 'image/png', base64: PNG }],
    })
    const [prompt] = atelier.agent.conversation({ id: chat.id }).messages
    const part = prompt?.parts.find((candidate) => candidate.type === 'attachment')
    expect(part).toMatchObject({
      attachment: { kind: 'image', mimeType: 'image/png', name: 'Pasted image.png', bytes: FAKE_PNG.length },
    })
    const path = part?.type === 'attachment' && part.attachment.kind === 'image' ? part.attachment.path : ''
    expect(path).toContain(join('images', chat.id))
    expect(readFileSync(path)).toEqual(FAKE_PNG)
    expect(JSON.stringify(prompt)).not.toContain(PNG)
    expect(await atelier.dispatch('images.read', { path })).toEqual({
      ok: true,
      value: { mimeType: 'image/png', base64: PNG },
    })

    // Gone from disk (cleaned by hand): the next request says so instead of failing every turn.
    rmSync(path)
    fake.enqueue({ text: 'ok' })
    await turnThroughContract(atelier, { chatId: chat.id, prompt: 'And now?' })
    const first = fake.requestsOf('openai-chat')[1]?.body.messages.find((m: Wire) => m.role === 'user')
    expect(first.content).toBe(`${MISSING_IMAGE}\nWhat is this?`)
  })

  it('is sent only from the images folder: a stored path to any other file is left out', async () => {
    const { atelier, fake, chat, project } = await fixture('openai-chat')
    fake.enqueue({ text: 'A pixel.' })
    await turnThroughContract(atelier, {
      chatId: chat.id,
      prompt: 'What is this?',
      attachments: [{ kind: 'image', mimeType: 'image/png', base64: PNG }],
    })
    // A message that names a file of the machine (written by an older import, or by hand).
    const secret = join(project, 'secret.png')
    writeFileSync(secret, Buffer.concat([FAKE_PNG, Buffer.from('secret')]))
    const [prompt] = atelier.agent.conversation({ id: chat.id }).messages
    const part = prompt?.parts.find((candidate) => candidate.type === 'attachment')
    const saved = part?.type === 'attachment' && part.attachment.kind === 'image' ? part.attachment.path : ''
    atelier.db
      .prepare('UPDATE messages SET parts = replace(parts, ?, ?) WHERE id = ?')
      .run(saved, secret, prompt?.id)

    fake.enqueue({ text: 'ok' })
    await turnThroughContract(atelier, { chatId: chat.id, prompt: 'And now?' })
    const first = fake.requestsOf('openai-chat')[1]?.body.messages.find((m: Wire) => m.role === 'user')
    expect(first.content).toBe('What is this?')
  })

  it('is taken only as bytes: a path to an image saved for another message is refused', async () => {
    const { atelier, chat } = await fixture('openai-chat')
    const { error } = await turnThroughContract(atelier, {
      chatId: chat.id,
      prompt: 'What is this?',
      attachments: [{ kind: 'saved-image', path: join('images', 'other-chat', 'pixel.png') }],
    })
    expect(error?.code).toBe('validation_failed')
    expect(atelier.agent.conversation({ id: chat.id }).messages).toEqual([])
  })

  it('is refused, none of them decoded, when a message’s images together pass the cap', async () => {
    const { atelier, fake, chat } = await fixture('openai-chat')
    // Each under the one image cap, and not PNGs at all: refused for their size, before decoding
    // would find out what they are.
    const part = 'A'.repeat(Math.ceil(MAX_MESSAGE_IMAGE_BYTES / 2 / 3) * 4 + 4)
    const { error } = await turnThroughContract(atelier, {
      chatId: chat.id,
      prompt: 'What are these?',
      attachments: [
        { kind: 'image', mimeType: 'image/png', base64: part },
        { kind: 'image', mimeType: 'image/png', base64: part },
      ],
    })
    expect(error?.code).toBe('validation_failed')
    expect(error?.message).toContain('in all')
    expect(atelier.agent.conversation({ id: chat.id }).messages).toEqual([])
    expect(fake.requestsOf('openai-chat')).toEqual([])
  })

  it('is refused before anything is committed when too large or not the type it claims', async () => {
    const { atelier, fake, chat } = await fixture('openai-chat')
    const tooLarge = Buffer.concat([FAKE_PNG, Buffer.alloc(MAX_IMAGE_BYTES)]).toString('base64')
    for (const image of [
      { kind: 'image', mimeType: 'image/png', base64: tooLarge },
      { kind: 'image', mimeType: 'image/png', base64: Buffer.from('GIF89a…').toString('base64') },
    ]) {
      const { error } = await turnThroughContract(atelier, {
        chatId: chat.id,
        prompt: 'What is this?',
        attachments: [image],
      })
      expect(error?.code).toBe('validation_failed')
    }
    expect(atelier.agent.conversation({ id: chat.id }).messages).toEqual([])
    expect(fake.requestsOf('openai-chat')).toEqual([])
  })
})

describe('a file named with @', () => {
  const fixture = useAgentFixture()
  const tempDir = useTempDirs()

  function fill(project: string) {
    mkdirSync(join(project, 'src', 'lib'), { recursive: true })
    mkdirSync(join(project, 'node_modules', 'dep'), { recursive: true })
    writeFileSync(join(project, '.gitignore'), 'node_modules/\n')
    writeFileSync(join(project, 'src', 'app.ts'), 'export const word = "HERON"\n')
    writeFileSync(join(project, 'src', 'lib', 'apply.ts'), 'export {}\n')
    writeFileSync(join(project, 'node_modules', 'dep', 'app.js'), 'ignored\n')
  }

  it('is found by a fuzzy search of the folder that skips what .gitignore excludes', async () => {
    const { atelier, chat, project } = await fixture('openai-chat')
    fill(project)
    const found = await atelier.dispatch('folders.files', { chatId: chat.id, query: 'app' })
    expect(found).toEqual({ ok: true, value: { files: ['src/app.ts', 'src/lib/apply.ts'], partial: false } })
    const none = atelier.chats.create({})
    expect(await atelier.dispatch('folders.files', { chatId: none.id, query: '' })).toEqual({
      ok: true,
      value: { files: [], partial: false },
    })
  })

  it('finds nothing in a folder that is gone, and says that is why', async () => {
    const { atelier, chat, project } = await fixture('openai-chat')
    fill(project)
    expect(await atelier.dispatch('folders.status', { chatId: chat.id })).toEqual({
      ok: true,
      value: { missing: false },
    })
    rmSync(project, { recursive: true })

    expect(await atelier.dispatch('folders.files', { chatId: chat.id, query: 'app' })).toEqual({
      ok: true,
      value: { files: [], partial: false, folderMissing: true },
    })
    expect(await atelier.dispatch('folders.status', { chatId: chat.id })).toEqual({
      ok: true,
      value: { missing: true },
    })
  })

  it('ranks a match in the name before one spread over folders, and caps the list', () => {
    const files = ['apps/web/index.ts', 'src/app.ts', 'docs/a/p/p.md', 'src/apple.ts']
    expect(rankFiles(files, 'app', 50)).toEqual([
      'src/app.ts',
      'src/apple.ts',
      'apps/web/index.ts',
      'docs/a/p/p.md',
    ])
    expect(rankFiles(files, 'app', 2)).toEqual(['src/app.ts', 'src/apple.ts'])
    expect(rankFiles(files, 'zz', 50)).toEqual([])
  })

  it('goes to the model as a delimited block before the prompt, and the message keeps it as an attachment', async () => {
    const { atelier, fake, chat, project } = await fixture('openai-chat')
    fill(project)
    fake.enqueue({ text: 'HERON.' })
    const { turn } = await turnThroughContract(atelier, {
      chatId: chat.id,
      prompt: 'What word does @src/app.ts export?',
      attachments: [{ kind: 'file', path: 'src/app.ts' }],
    })
    expect(turn?.status).toBe('completed')
    const user = fake.requestsOf('openai-chat')[0]?.body.messages.find((m: Wire) => m.role === 'user')
    expect(user.content).toBe(
      '<file path="src/app.ts">\nexport const word = "HERON"\n\n</file>\nWhat word does @src/app.ts export?',
    )
    const [prompt] = atelier.agent.conversation({ id: chat.id }).messages
    expect(prompt?.parts[0]).toEqual({
      type: 'attachment',
      attachment: { kind: 'file', path: 'src/app.ts', name: 'app.ts', text: 'export const word = "HERON"\n' },
    })
  })

  it('is cut at the limit and said to be', async () => {
    const { atelier, fake, chat, project } = await fixture('openai-chat')
    writeFileSync(join(project, 'long.txt'), 'x'.repeat(FILE_TEXT_LIMIT + 10))
    fake.enqueue({ text: 'ok' })
    await turnThroughContract(atelier, {
      chatId: chat.id,
      prompt: 'Summarize',
      attachments: [{ kind: 'file', path: 'long.txt' }],
    })
    const user = fake.requestsOf('openai-chat')[0]?.body.messages.find((m: Wire) => m.role === 'user')
    expect(user.content).toContain('[… the rest of this file was cut]')
  })

  it('is refused with a typed error, nothing committed, for ../, a symlink out of the folder, a binary file or a missing one', async () => {
    const { atelier, fake, chat, project } = await fixture('openai-chat')
    fill(project)
    const outside = tempDir()
    writeFileSync(join(outside, 'secret.txt'), 'not yours\n')
    symlinkSync(join(outside, 'secret.txt'), join(project, 'link.txt'))
    symlinkSync(outside, join(project, 'linked-folder'))
    writeFileSync(join(project, 'blob.bin'), Buffer.from([0, 1, 2, 3]))

    const refusal = async (path: string) => {
      const { error } = await turnThroughContract(atelier, {
        chatId: chat.id,
        prompt: 'Read it',
        attachments: [{ kind: 'file', path }],
      })
      return error
    }
    for (const path of [
      '../secret.txt',
      `../${outside.split('/').at(-1)}/secret.txt`,
      'link.txt',
      'linked-folder/secret.txt',
      join(outside, 'secret.txt'),
    ]) {
      const error = await refusal(path)
      expect(error?.code, path).toBe('path_denied')
      expect(error?.message).toContain("is outside the chat's folder")
    }
    expect((await refusal('blob.bin'))?.code).toBe('validation_failed')
    expect((await refusal('missing.ts'))?.code).toBe('not_found')
    expect(atelier.agent.conversation({ id: chat.id }).messages).toEqual([])
    expect(fake.requestsOf('openai-chat')).toEqual([])

    // Nor does the search list them: a symlinked folder is never entered, a link out is left out.
    const found = await atelier.dispatch('folders.files', { chatId: chat.id, query: 'secret' })
    expect(found).toEqual({ ok: true, value: { files: [], partial: false } })
    expect(existsSync(join(project, 'linked-folder', 'secret.txt'))).toBe(true)
  })
})
