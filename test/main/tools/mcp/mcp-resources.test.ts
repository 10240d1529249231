import { realpathSync } from 'node:fs'
import { basename } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { RESOURCE_TEXT_LIMIT } from '../../../../src-shared/attachments'
import {
  IMAGE_BYTES,
  IMAGE_URI,
  LOG_URI,
  NOTE_TEXT,
  NOTE_URI,
  type ResourcesServer,
  startResourcesServer,
} from '../../../fixtures/mcp-resources-server'
import { useAgentFixture } from '../../../support/agent-harness'
import { turnThroughContract } from '../../../support/contract-turn'
import { useTempDirs } from '../../../support/temp-dir'

const rootOf = (folder: string) => ({ uri: pathToFileURL(folder).href, name: basename(folder) })

describe('MCP resources, prompts and roots', () => {
  const fixture = useAgentFixture()
  const tempDir = useTempDirs()
  let server: ResourcesServer | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  async function withLibrary() {
    const setup = await fixture('openai-chat')
    server = await startResourcesServer()
    setup.atelier.mcp.add({ name: 'library', transport: 'http', url: server.url }, { approve: false })
    return setup
  }

  it('lists every page of each server’s resources, and its prompts with their arguments', async () => {
    const { atelier } = await withLibrary()
    const resources = await atelier.dispatch('mcp.resources', {})
    expect(resources).toEqual({
      ok: true,
      value: [
        {
          server: 'library',
          resources: [
            {
              uri: NOTE_URI,
              name: 'readme',
              title: 'Project readme',
              description: 'What the project is about',
              mimeType: 'text/plain',
            },
            { uri: LOG_URI, name: 'build-log', description: 'The latest build log', mimeType: 'text/plain' },
            { uri: IMAGE_URI, name: 'logo', title: 'Project logo', mimeType: 'image/png' },
          ],
        },
      ],
    })
    const prompts = await atelier.dispatch('mcp.prompts', {})
    expect(prompts).toEqual({
      ok: true,
      value: [
        {
          server: 'library',
          prompts: [
            { name: 'standup', description: 'Write my stand-up update', arguments: [] },
            {
              name: 'review',
              title: 'Code review',
              description: 'Review a file for a concern',
              arguments: [
                { name: 'file', description: 'The file to review', required: true },
                { name: 'focus', description: 'What to look at', required: false },
              ],
            },
          ],
        },
      ],
    })
  })

  it('says why a server has no resources to show instead of failing the listing', async () => {
    const { atelier } = await fixture('openai-chat')
    atelier.mcp.add({ name: 'gone', transport: 'http', url: 'http://127.0.0.1:9/mcp' }, { approve: false })
    const listed = await atelier.dispatch('mcp.resources', {})
    expect(listed.ok).toBe(true)
    const [gone] = (listed as { value: { server: string; resources: unknown[]; error?: string }[] }).value
    expect(gone).toMatchObject({ server: 'gone', resources: [] })
    expect(gone?.error).toBeTruthy()
  })

  it('renders a prompt with its arguments as text, and refuses one whose required argument is missing', async () => {
    const { atelier } = await withLibrary()
    expect(await atelier.dispatch('mcp.getPrompt', { server: 'library', name: 'standup' })).toEqual({
      ok: true,
      value: { text: 'Write my stand-up: done, doing, blocked.' },
    })
    expect(
      await atelier.dispatch('mcp.getPrompt', {
        server: 'library',
        name: 'review',
        arguments: { file: 'src/app.ts', focus: 'errors' },
      }),
    ).toEqual({ ok: true, value: { text: `Review src/app.ts with an eye on errors.\n\n${NOTE_TEXT}` } })

    const missing = await atelier.dispatch('mcp.getPrompt', {
      server: 'library',
      name: 'review',
      arguments: { focus: 'errors', file: '  ' },
    })
    expect(missing).toMatchObject({
      ok: false,
      error: { code: 'missing_argument', data: { server: 'library', name: 'review', missing: ['file'] } },
    })
    expect(await atelier.dispatch('mcp.getPrompt', { server: 'library', name: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    })
    expect(await atelier.dispatch('mcp.getPrompt', { server: 'nobody', name: 'standup' })).toMatchObject({
      ok: false,
      error: { code: 'server_unavailable' },
    })
  })

  it('puts attached resources into the prompt the model receives, and keeps them with the message', async () => {
    const { atelier, fake, chat } = await withLibrary()
    fake.enqueue({ text: 'Noted.' })
    const { turn } = await turnThroughContract(atelier, {
      chatId: chat.id,
      prompt: 'What is the code word?',
      attachments: [
        { kind: 'mcp-resource', server: 'library', uri: NOTE_URI },
        { kind: 'mcp-resource', server: 'library', uri: LOG_URI },
        { kind: 'mcp-resource', server: 'library', uri: IMAGE_URI },
      ],
    })
    expect(turn?.status).toBe('completed')

    const [request] = fake.requestsOf('openai-chat')
    const user = request?.body.messages.find((message: { role: string }) => message.role === 'user')
    const content: string = user.content
    expect(content).toContain(
      `<resource server="library" uri="${NOTE_URI}" name="Project readme" mimeType="text/plain">\n${NOTE_TEXT}\n</resource>`,
    )
    expect(content).toContain(`[binary resource ${IMAGE_URI}: ${IMAGE_BYTES.length} bytes, image/png]`)
    expect(content).toContain('[… the rest of this resource was cut]')
    // The prompt comes after its context, and the long log brings no more than the cap.
    expect(content.endsWith('What is the code word?')).toBe(true)
    expect(content.length).toBeLessThan(RESOURCE_TEXT_LIMIT + 2_000)

    const [prompt] = atelier.agent.conversation({ id: chat.id }).messages
    expect(
      prompt?.parts.map((part) => (part.type === 'attachment' ? part.attachment.name : part.type)),
    ).toEqual(['Project readme', 'build-log', 'Project logo', 'text'])
    expect(prompt?.parts[1]).toMatchObject({ attachment: { truncated: true } })
    expect(prompt?.parts[0]).toMatchObject({
      attachment: { text: NOTE_TEXT, server: 'library', uri: NOTE_URI },
    })
  })

  it('refuses the send, committing nothing, when an attached resource cannot be read', async () => {
    const { atelier, fake, chat } = await withLibrary()
    const refused = await turnThroughContract(atelier, {
      chatId: chat.id,
      prompt: 'Read this',
      attachments: [{ kind: 'mcp-resource', server: 'library', uri: 'notes://missing' }],
    })
    expect(refused.error).toMatchObject({
      code: 'resource_unreadable',
      data: { server: 'library', uri: 'notes://missing' },
    })
    expect(refused.error?.message).toContain('Resource not found: notes://missing')
    const unknownServer = await turnThroughContract(atelier, {
      chatId: chat.id,
      prompt: 'Read this',
      attachments: [{ kind: 'mcp-resource', server: 'elsewhere', uri: NOTE_URI }],
    })
    expect(unknownServer.error).toMatchObject({ code: 'resource_unreadable' })
    expect(atelier.agent.conversation({ id: chat.id })).toMatchObject({ messages: [], turns: [] })
    expect(fake.requestsOf('openai-chat')).toEqual([])
  })

  it('answers roots/list with the folder of the chat that prepared the servers, and says when it changes', async () => {
    const { atelier, fake, chat, project, run } = await withLibrary()
    fake.enqueue({ toolCalls: [{ name: 'library__roots', arguments: '{}' }] }, { text: 'done' })
    const first = await run('Which roots?')
    const result = first.messages
      .flatMap((message) => message.parts)
      .find((part) => part.type === 'tool_result')
    expect(result).toMatchObject({ isError: false })
    expect(JSON.parse((result as { content: string }).content)).toEqual([rootOf(project)])
    expect(server?.rootsChanges()).toBe(0)

    // Another chat, on another folder: its turn prepares the same connection, which says so.
    const other = realpathSync(tempDir())
    const otherChat = atelier.chats.configure({
      id: atelier.chats.create({}).id,
      workingDir: other,
      mode: 'agent',
      provider: chat.provider,
      approvalMode: 'full-auto',
    })
    fake.enqueue({ text: 'ok' })
    await atelier.agent.begin({ chatId: otherChat.id, prompt: 'hello' }).done
    await expect.poll(() => server?.rootsChanges()).toBe(1)
    await expect.poll(() => server?.rootsSeen.at(-1)).toEqual([rootOf(other)])

    // In chat mode no folder is the chat's: the roots are none.
    atelier.chats.configure({ id: otherChat.id, mode: 'chat' })
    fake.enqueue({ text: 'ok' })
    await atelier.agent.begin({ chatId: otherChat.id, prompt: 'again' }).done
    await expect.poll(() => server?.rootsSeen.at(-1)).toEqual([])
    expect(server?.rootsChanges()).toBe(2)

    // Listing resources belongs to no chat: the roots stay as the last turn left them.
    await atelier.dispatch('mcp.resources', {})
    expect(server?.rootsChanges()).toBe(2)
  })
})
