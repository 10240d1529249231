import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, createAtelier, LOCAL_USER } from '../../../../src-main/app/create-atelier'
import '../../../../src-main/tools/builtin'
import { defineTool } from '../../../../src-main/tools/define-tool'
import type { ToolCallScope } from '../../../../src-main/tools/executor'
import { builtinTools } from '../../../../src-main/tools/registry'
import { useAgentFixture } from '../../../support/agent-harness'
import { useTempDirs } from '../../../support/temp-dir'
import { toolResults } from '../../../support/turn-events'

describe('the chat folder stage', () => {
  const tempDir = useTempDirs()
  const opened: Atelier[] = []
  afterEach(async () => {
    for (const atelier of opened.splice(0)) await atelier.close()
  })

  /** An Atelier with a chat bound to a real folder, in agent mode. */
  function setup() {
    const registry = builtinTools.clone()
    // The built-ins have every kind but `other`, which MCP servers' and services' tools have.
    registry.register(
      defineTool({
        name: 'note_down',
        description: 'Notes something down.',
        parameters: Type.Object({}),
        settings: {
          title: 'Note down',
          description: 'Notes something down.',
          category: 'system',
          enabledByDefault: true,
          canDisable: true,
          defaultParameters: {},
          parameterDescriptors: [],
        },
        kind: 'other',
        execute: async () => 'noted',
      }),
      { kind: 'mcp', server: 'notes' },
    )
    const atelier = createAtelier({ dataDir: tempDir(), registry })
    opened.push(atelier)
    const project = join(realpathSync(tempDir()), 'project')
    mkdirSync(project)
    const chat = atelier.chats.create({})
    atelier.chats.configure({ id: chat.id, workingDir: project, mode: 'agent' })
    const scope = (): ToolCallScope => {
      const { workingDir, mode } = atelier.chats.get(chat.id)
      return { user: LOCAL_USER, workingDirectory: workingDir, mode, restrict: true, chatId: chat.id }
    }
    return { atelier, project, chatId: chat.id, scope }
  }

  it('refuses write_file with folder_missing and makes nothing once the folder is deleted', async () => {
    const { atelier, project, scope } = setup()
    rmSync(project, { recursive: true })

    const result = await atelier.tools.executor.execute(
      { name: 'write_file', arguments: { path: 'src/new.txt', content: 'hello\n' } },
      scope(),
    )

    expect(result).toMatchObject({ isError: true, errorType: 'folder_missing' })
    expect(result.content).toContain(project)
    expect(existsSync(project)).toBe(false)
  })

  it('refuses a call prepared while the folder was there that runs after it went (a wait for approval)', async () => {
    const { atelier, project, scope } = setup()
    const prepared = atelier.tools.executor.prepare(
      { name: 'write_file', arguments: { path: 'new.txt', content: 'hello\n' } },
      scope(),
    )
    rmSync(project, { recursive: true })

    const result = await atelier.tools.executor.run(prepared)

    expect(result).toMatchObject({ isError: true, errorType: 'folder_missing' })
    expect(existsSync(project)).toBe(false)
  })

  it('refuses every tool, whatever its kind, while the folder is gone', async () => {
    const { atelier, project, scope } = setup()
    rmSync(project, { recursive: true })
    const tools = atelier.tools.registry.list().map((entry) => entry.tool)
    expect(new Set(tools.map((tool) => tool.kind))).toEqual(
      new Set(['read', 'edit', 'execute', 'network', 'other']),
    )

    for (const tool of tools) {
      // Some are off by default (the shell): a tool that is off says so before anything else.
      atelier.tools.settings.update(LOCAL_USER, tool.definition.name, { enabled: true })
      const result = await atelier.tools.executor.execute(
        { name: tool.definition.name, arguments: {} },
        scope(),
      )
      expect(result, tool.definition.name).toMatchObject({ isError: true, errorType: 'folder_missing' })
    }
    expect(existsSync(project)).toBe(false)
  })

  it('refuses while a file stands where the folder was', async () => {
    const { atelier, project, scope } = setup()
    rmSync(project, { recursive: true })
    writeFileSync(project, 'not a folder')

    const result = await atelier.tools.executor.execute(
      { name: 'list_directory', arguments: { path: '.' } },
      scope(),
    )

    expect(result).toMatchObject({ isError: true, errorType: 'folder_missing' })
  })

  it('runs tools again once the chat is bound to a folder that is there', async () => {
    const { atelier, project, chatId, scope } = setup()
    rmSync(project, { recursive: true })
    const again = realpathSync(tempDir())
    atelier.chats.configure({ id: chatId, workingDir: again })

    const result = await atelier.tools.executor.execute(
      { name: 'write_file', arguments: { path: 'new.txt', content: 'hello\n' } },
      scope(),
    )

    expect(result.isError, result.content).toBe(false)
    expect(readFileSync(join(again, 'new.txt'), 'utf8')).toBe('hello\n')
  })

  it('lets a chat-mode call run: no folder is given to its tools', async () => {
    const { atelier, project, chatId, scope } = setup()
    rmSync(project, { recursive: true })
    atelier.chats.configure({ id: chatId, mode: 'chat' })

    const result = await atelier.tools.executor.execute(
      { name: 'get_current_datetime', arguments: {} },
      scope(),
    )

    expect(result.isError, result.content).toBe(false)
  })
})

describe('a turn in a chat whose folder is gone', () => {
  const setup = useAgentFixture()

  it('gets folder_missing for its write, the model reads why, and the folder is not made again', async () => {
    const { fake, project, run } = await setup('openai-chat')
    rmSync(project, { recursive: true })
    fake.enqueue(
      {
        toolCalls: [
          { id: 'w', name: 'write_file', arguments: JSON.stringify({ path: 'new.txt', content: 'hi\n' }) },
        ],
      },
      { text: 'Your folder is gone.' },
    )

    const { turn, events } = await run('write new.txt')

    expect(turn.status).toBe('completed')
    expect(toolResults(events)).toMatchObject([{ id: 'w', isError: true, errorType: 'folder_missing' }])
    const feedback = fake.requestsOf('openai-chat')[1]?.body.messages.at(-1)
    expect(feedback).toMatchObject({ role: 'tool', content: expect.stringContaining('is gone') })
    expect(existsSync(project)).toBe(false)
  })
})
