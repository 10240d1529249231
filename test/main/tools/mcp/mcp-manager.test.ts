import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import type { McpServerConfig } from '../../../../src-main/tools/mcp/mcp-connection'
import { McpManager } from '../../../../src-main/tools/mcp/mcp-manager'
import { mcpToolName } from '../../../../src-main/tools/mcp/names'
import { TOOL_NAME_PATTERN } from '../../../../src-main/tools/registry'
import { isAlive } from '../../../support/fixture-process'
import { EVERYTHING_SERVER, FILESYSTEM_SERVER } from '../../../support/mcp-servers'
import { useToolHarness } from '../../../support/tool-harness'

describe('MCP servers as registry tools (the reference "everything" server over stdio)', () => {
  const harness = useToolHarness()
  const managers: McpManager[] = []
  afterEach(async () => {
    for (const manager of managers.splice(0)) await manager.close()
  })

  function setup() {
    const tools = harness()
    const manager = new McpManager(tools.atelier.tools.registry)
    managers.push(manager)
    const server: McpServerConfig = {
      id: 'everything-1',
      name: 'everything',
      transport: 'stdio',
      command: process.execPath,
      args: [EVERYTHING_SERVER, 'stdio'],
      env: {},
      cwd: null,
    }
    return { ...tools, manager, server }
  }

  it('starts nothing until prepared, then registers every tool under a provider-safe name', async () => {
    const { atelier, manager, server } = setup()
    expect(manager.connection(server.id)).toBeUndefined()
    const [status] = await manager.prepare([server])
    expect(status).toMatchObject({ id: server.id, connected: true })
    expect(status?.tools).toContain('everything__echo')
    for (const name of status?.tools ?? []) expect(name).toMatch(TOOL_NAME_PATTERN)
    const entry = atelier.tools.registry.get('everything__echo')
    expect(entry?.source).toEqual({ kind: 'mcp', server: 'everything' })
    const pid = manager.connection(server.id)?.pid
    expect(pid && isAlive(pid)).toBe(true)
    await manager.prepare([])
    expect(atelier.tools.registry.get('everything__echo')).toBeUndefined()
    for (let i = 0; i < 100 && pid && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 20))
    expect(pid && isAlive(pid)).toBe(false)
  })

  it('calls a tool through the executor; an argument reaches the server as a literal string', async () => {
    const { manager, server, run, project } = setup()
    await manager.prepare([server])
    const marker = join(project, 'pwned')
    const result = await run('everything__echo', { message: `"; touch ${marker}; echo "` })
    expect(result).toMatchObject({ isError: false, content: `Echo: "; touch ${marker}; echo "` })
    expect(existsSync(marker)).toBe(false)
  })

  it('maps results for the model: images described (bytes kept for the UI), resources, structure, errors', async () => {
    const { manager, server, run } = setup()
    await manager.prepare([server])
    const image = await run('everything__get-tiny-image', {})
    expect(image.content).toMatch(
      /Here's the image you requested:\n\[image: image\/png, \d+ bytes, shown to the user\]/,
    )
    expect(image.display).toMatchObject({
      kind: 'images',
      images: [{ mimeType: 'image/png', data: expect.any(String) }],
    })

    const weather = await run('everything__get-structured-content', { location: 'Chicago' })
    expect(JSON.parse(weather.content)).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    })
    expect(weather.data).toEqual({ structured: JSON.parse(weather.content) })

    const resource = await run('everything__get-resource-reference', { resourceType: 'Text', resourceId: 2 })
    expect(resource).toMatchObject({ isError: false, content: expect.stringContaining('Resource 2') })
    const links = await run('everything__get-resource-links', { count: 2 })
    expect(links.content).toMatch(/\[resource \S+/)

    const refused = await run('everything__get-resource-reference', { resourceType: 'Text', resourceId: 0 })
    expect(refused).toMatchObject({ isError: true, content: expect.stringContaining('Invalid resourceId') })
  })

  it('streams progress, and a killed server gives an error result and is reconnected next time', async () => {
    const { manager, server, run } = setup()
    await manager.prepare([server])
    const progress: unknown[] = []
    const long = await run(
      'everything__trigger-long-running-operation',
      { duration: 1, steps: 3 },
      { onUpdate: (update) => progress.push(update) },
    )
    expect(long.isError).toBe(false)
    expect(progress.length).toBeGreaterThanOrEqual(2)

    const pid = manager.connection(server.id)?.pid
    if (pid) process.kill(pid, 'SIGKILL')
    const failed = await run('everything__echo', { message: 'hi' })
    expect(failed.isError).toBe(true)
    await manager.prepare([server])
    expect(manager.connection(server.id)?.pid).not.toBe(pid)
    expect(await run('everything__echo', { message: 'back' })).toMatchObject({ content: 'Echo: back' })
  })

  it('lets progress restart the timeout, under the hard cap, and a stop ends the call at once', async () => {
    const { atelier, manager, server, run } = setup()
    await manager.prepare([server])
    const name = 'everything__trigger-long-running-operation'
    const longCall = { duration: 7, steps: 7 }
    // A progress notification every second keeps a 7 s call alive under a 5 s timeout...
    atelier.tools.settings.update(LOCAL_USER, name, {
      parameters: { timeoutSeconds: 5, maxTotalSeconds: 600 },
    })
    expect(await run(name, longCall)).toMatchObject({ isError: false })
    // ...but not past the cap.
    atelier.tools.settings.update(LOCAL_USER, name, { parameters: { timeoutSeconds: 5, maxTotalSeconds: 5 } })
    expect(await run(name, longCall)).toMatchObject({ isError: true, errorType: 'timeout' })

    const stop = new AbortController()
    setTimeout(() => stop.abort(), 300)
    const started = performance.now()
    expect(await run(name, longCall, { signal: stop.signal })).toMatchObject({
      isError: true,
      errorType: 'aborted',
    })
    expect(performance.now() - started).toBeLessThan(3000)
    // The server is still usable after the cancelled call.
    expect(await run('everything__echo', { message: 'still here' })).toMatchObject({
      content: 'Echo: still here',
    })
  }, 30_000)

  it("takes a tool's kind from its server's hints: read-only is read, destructive is edit, else other", async () => {
    const { atelier, run, manager, project } = setup()
    const files: McpServerConfig = {
      id: 'files-1',
      name: 'files',
      transport: 'stdio',
      command: process.execPath,
      args: [FILESYSTEM_SERVER, project],
      env: {},
      cwd: null,
    }
    await manager.prepare([files])
    const kinds: Record<string, string> = {}
    atelier.tools.executor.addBeforeToolHook(({ call, description }) => {
      kinds[call.name] = description.kind
      return { block: 'only looking' }
    })
    // The filesystem server marks read_text_file read-only, write_file destructive, create_directory neither.
    const path = join(project, 'a.txt')
    await run('files__read_text_file', { path })
    await run('files__write_file', { path, content: 'x' })
    await run('files__create_directory', { path })
    expect(kinds).toEqual({
      files__read_text_file: 'read',
      files__write_file: 'edit',
      files__create_directory: 'other',
    })
  })

  it('keeps names within provider limits, unique and stable', () => {
    const long = mcpToolName('a server with spaces', `${'x'.repeat(80)}.tool`)
    expect(long).toMatch(TOOL_NAME_PATTERN)
    expect(long).toBe(mcpToolName('a server with spaces', `${'x'.repeat(80)}.tool`))
    expect(long).not.toBe(mcpToolName('a server with spaces', `${'x'.repeat(80)}_tool`))
    expect(mcpToolName('fs', 'read_file')).toBe('fs__read_file')
  })
})
