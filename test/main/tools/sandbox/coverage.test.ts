/**
 * What the sandbox covers besides the agent's shells: stdio MCP servers and tool services the
 * person set to run in it, and the programs custom tools start (`api.exec`). Each runs for real
 * under bubblewrap and tries to write outside its folder and to read a key in the home folder.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { type Atelier, createAtelier, LOCAL_USER } from '../../../../src-main/app/create-atelier'
import { Sandbox } from '../../../../src-main/tools/sandbox/sandbox'
import { StdioService } from '../../../../src-main/tools/services/stdio-service'
import { DEFAULT_SANDBOX_SETTINGS } from '../../../../src-shared/sandbox'
import { CUSTOM_TOOL_FIXTURES, copyTool, useCustomToolApps } from '../../../support/custom-tools'
import { PROBE_SERVER } from '../../../support/mcp-servers'
import { OUTSIDE_TMP, useTempDirs } from '../../../support/temp-dir'

const FAKE_STDIO = fileURLToPath(new URL('../../../fixtures/services/fake-stdio-service.ts', import.meta.url))
/** tsx by its path: a server runs in its own folder, where no node_modules is. */
const TSX = pathToFileURL(fileURLToPath(import.meta.resolve('tsx'))).href
const KEY = 'FAKE PRIVATE KEY a1b2c3'
/**
 * This checkout, where the servers' code and tsx live. A sandboxed program sees a private /tmp, so a
 * checkout under /tmp (as CI's may be) would be hidden from it: it is made writable, hence visible.
 */
const CHECKOUT = realpathSync(fileURLToPath(new URL('../../../../', import.meta.url)))

describe('what the sandbox covers besides the shells', { timeout: 60_000 }, () => {
  const tempDir = useTempDirs()
  const visibleDir = useTempDirs(OUTSIDE_TMP)
  const opened: Atelier[] = []
  const closing: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const close of closing.splice(0)) await close()
    for (const atelier of opened.splice(0)) await atelier.close()
  })

  /** An Atelier whose home holds a key, a folder for a server, and a file outside both. */
  function setup(options: { detectSandbox?: () => Promise<Sandbox> } = {}) {
    const home = realpathSync(visibleDir())
    mkdirSync(join(home, '.ssh'))
    writeFileSync(join(home, '.ssh', 'id_ed25519'), KEY)
    const atelier = createAtelier({ dataDir: tempDir(), home, ...options })
    opened.push(atelier)
    atelier.preferences.update({ sandbox: { ...DEFAULT_SANDBOX_SETTINGS, writablePaths: [CHECKOUT] } })
    const folder = realpathSync(tempDir())
    const outside = join(realpathSync(visibleDir()), 'escaped.txt')
    return { atelier, home, folder, outside, key: join(home, '.ssh', 'id_ed25519') }
  }

  const probe = (folder: string, sandboxed: boolean) => ({
    name: 'probe',
    transport: 'stdio' as const,
    command: process.execPath,
    args: ['--import', TSX, PROBE_SERVER, '--touch'],
    cwd: folder,
    sandboxed,
  })

  /** Calls the probe server's `touch` the way a turn would, after connecting it. */
  async function touch(atelier: Atelier, write: string, read: string) {
    await atelier.mcp.prepare()
    const result = await atelier.tools.executor.execute(
      { name: 'probe__touch', arguments: { write, read } },
      { user: LOCAL_USER, workingDirectory: null, mode: 'agent', restrict: false },
    )
    if (result.isError) return { error: result.content }
    return JSON.parse(result.content) as { wrote: string; read: string }
  }

  it('a stdio MCP server set to run sandboxed writes only its folder and reads no secret', async () => {
    const { atelier, folder, outside, key } = setup()
    atelier.mcp.add(probe(folder, true), { approve: true })

    expect(await touch(atelier, outside, key)).toEqual({ wrote: 'failed: EROFS', read: 'failed: ENOENT' })
    expect(existsSync(outside)).toBe(false)
    expect(await touch(atelier, join(folder, 'inside.txt'), join(folder, 'inside.txt'))).toEqual({
      wrote: 'yes',
      read: 'server',
    })
  })

  it('an MCP server runs as it is unless set to run sandboxed, and taking it out of the sandbox asks again', async () => {
    const { atelier, folder, outside, key } = setup()
    atelier.mcp.add(probe(folder, true), { approve: true })
    const unsandboxed = await atelier.mcp.update('probe', probe(folder, false))
    expect(unsandboxed.needsApproval).toBe(true)
    atelier.mcp.approve('probe')

    expect(await touch(atelier, outside, key)).toEqual({ wrote: 'yes', read: KEY })
    expect(readFileSync(outside, 'utf8')).toBe('server')
  })

  it('an MCP server set to run sandboxed does not start where there is no sandbox, and says why', async () => {
    const { atelier, folder, outside, key } = setup({
      detectSandbox: async () => Sandbox.unavailable('bubblewrap (bwrap) is not installed.'),
    })
    atelier.mcp.add(probe(folder, true), { approve: true })

    const [status] = await atelier.mcp.prepare()
    expect(status).toMatchObject({ connected: false })
    expect(status?.error).toContain(
      'The MCP server “probe” is set to run in the sandbox, which is not available here: bubblewrap (bwrap) is not installed.',
    )
    expect(await touch(atelier, outside, key)).toMatchObject({
      error: expect.stringContaining('probe__touch'),
    })
    expect(existsSync(outside)).toBe(false)
  })

  it('a stdio tool service set to run sandboxed writes only its folder and reads no secret', async () => {
    const { atelier, folder, outside, key } = setup()
    const service = (sandboxed: boolean) => {
      const running = new StdioService(
        { id: 'toucher', command: [process.execPath, '--import', TSX, FAKE_STDIO], cwd: folder, sandboxed },
        {
          baseDir: folder,
          confine: (command, cwd, name) => atelier.sandbox.confineServer(command, cwd, name),
        },
      )
      closing.push(() => running.close())
      return running
    }
    const touchVia = async (running: StdioService, write: string) => {
      const request = {
        user: 'ada',
        config: '{}',
        arguments: JSON.stringify({ mode: 'touch', write, read: key }),
      }
      const signal = new AbortController().signal
      const call = { id: `call-${write}`, request, signal, inactivityMs: 30_000, onPartial: () => {} }
      return JSON.parse(await running.call(call))
    }

    expect(await touchVia(service(true), outside)).toEqual({ wrote: 'failed: EROFS', read: 'failed: ENOENT' })
    expect(existsSync(outside)).toBe(false)
    expect(await touchVia(service(true), join(folder, 'inside.txt'))).toEqual({
      wrote: 'yes',
      read: 'failed: ENOENT',
    })
    expect(await touchVia(service(false), outside)).toEqual({ wrote: 'yes', read: KEY })
  })

  describe("custom tools' programs (api.exec)", () => {
    const customToolApp = useCustomToolApps()

    it("run sandboxed in the call's folder, unless the person turned that off", async () => {
      const app = customToolApp()
      copyTool(join(CUSTOM_TOOL_FIXTURES, 'contract.ts'), app.userTools)
      const outside = join(realpathSync(visibleDir()), 'escaped.txt')
      const exec = async (script: string) =>
        JSON.parse((await app.call('exec_probe', { command: 'sh', args: ['-c', script] })).content)

      const refused = await exec(`echo custom > ${outside}`)
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toContain('Read-only file system')
      expect(existsSync(outside)).toBe(false)
      expect(await exec('echo custom > made-here.txt && cat made-here.txt')).toMatchObject({
        stdout: 'custom\n',
        code: 0,
      })
      expect(readFileSync(join(app.project, 'made-here.txt'), 'utf8')).toBe('custom\n')

      app.atelier.preferences.update({ sandbox: { ...DEFAULT_SANDBOX_SETTINGS, customTools: false } })
      expect(await exec(`echo custom > ${outside}`)).toMatchObject({ code: 0 })
      expect(readFileSync(outside, 'utf8')).toBe('custom\n')
    })
  })
})
