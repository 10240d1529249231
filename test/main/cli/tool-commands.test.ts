import { spawn, spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import { useTempDirs } from '../../support/temp-dir'
import { atelier, BIN } from './built-cli'

const TOOL_LINE = /^(on|off)\s+get_current_datetime\b/m

// The CLI under test is the built one, exactly as `npm install` leaves it (npm test builds first).
describe('atelier tool commands (built CLI)', () => {
  const tempDir = useTempDirs()

  describe('tools', () => {
    it('lists get_current_datetime as on in a new data folder', async () => {
      const { code, stdout } = await atelier(tempDir(), 'tools')
      expect(code).toBe(0)
      expect(stdout).toMatch(/^on\s+get_current_datetime\s+Current date and time$/m)
    })

    it('prints every tool with its name, state, parameters and source as JSON with --json', async () => {
      const { code, stdout } = await atelier(tempDir(), 'tools', '--json')
      expect(code).toBe(0)
      const { tools } = JSON.parse(stdout) as { tools: Record<string, unknown>[] }
      expect(tools.length).toBeGreaterThan(0)
      for (const tool of tools) {
        expect(tool).toMatchObject({
          name: expect.any(String),
          enabled: expect.any(Boolean),
          parameters: expect.any(Object),
          source: { kind: expect.any(String) },
        })
      }
      expect(tools.find((tool) => tool.name === 'get_current_datetime')).toMatchObject({
        enabled: true,
        parameters: {},
        source: { kind: 'builtin' },
      })
    })
  })

  describe('tool', () => {
    it('prints the result as the model gets it and exits 0', async () => {
      const { code, stdout } = await atelier(
        tempDir(),
        'tool',
        'get_current_datetime',
        '{"timezone":"Asia/Tokyo"}',
      )
      expect(code).toBe(0)
      expect(JSON.parse(stdout)).toMatchObject({ timezone: 'Asia/Tokyo', offset: '+09:00' })
    })

    it('prints one JSON error line and exits 1 for an unknown time zone', async () => {
      const { code, stdout } = await atelier(
        tempDir(),
        'tool',
        'get_current_datetime',
        '{"timezone":"Mars/Base"}',
      )
      expect(code).toBe(1)
      expect(stdout).toMatch(/^[^\n]+\n$/)
      expect(JSON.parse(stdout)).toEqual({
        error: { type: 'validation_failed', message: expect.stringContaining('Mars/Base') },
      })
    })

    it('prints an unknown_tool error and exits 1 for a tool that does not exist', async () => {
      const { code, stdout } = await atelier(tempDir(), 'tool', 'no_such_tool', '{}')
      expect(code).toBe(1)
      expect(JSON.parse(stdout)).toEqual({
        error: { type: 'unknown_tool', message: expect.stringContaining('no_such_tool') },
      })
    })

    it('creates the chat named by --chat and keeps the data folder usable', async () => {
      const dataDir = tempDir()
      const cwd = tempDir()
      for (let i = 0; i < 2; i++) {
        const { code } = await atelier(
          dataDir,
          'tool',
          'get_current_datetime',
          '{}',
          '--chat',
          'cli-chat',
          '--cwd',
          cwd,
        )
        expect(code).toBe(0)
      }
      expect((await atelier(dataDir, 'tools')).stdout).toMatch(TOOL_LINE)

      const opened = createAtelier({ dataDir })
      try {
        expect(opened.chats.list()).toEqual([
          expect.objectContaining({ id: 'cli-chat', workingDir: cwd, mode: 'agent' }),
        ])
      } finally {
        opened.close()
      }
    })
  })

  describe('settings', () => {
    it('turns a tool off for later runs, and back on', async () => {
      const dataDir = tempDir()
      const off = await atelier(dataDir, 'settings', 'set', 'get_current_datetime', 'enabled=false')
      expect(off.code).toBe(0)
      expect(JSON.parse(off.stdout)).toMatchObject({ name: 'get_current_datetime', enabled: false })

      const refused = await atelier(dataDir, 'tool', 'get_current_datetime', '{}')
      expect(refused.code).toBe(1)
      expect(JSON.parse(refused.stdout)).toMatchObject({ error: { type: 'not_enabled' } })
      expect((await atelier(dataDir, 'tools')).stdout).toMatch(/^off\s+get_current_datetime\b/m)
      const inspected = await atelier(dataDir, 'inspect', '--provider', 'openai-chat')
      const offered = (JSON.parse(inspected.stdout) as { function: { name: string } }[]).map(
        (t) => t.function.name,
      )
      expect(offered).not.toContain('get_current_datetime')
      expect(offered).toContain('read_file')

      const on = await atelier(dataDir, 'settings', 'set', 'get_current_datetime', 'enabled=true')
      expect(on.code).toBe(0)
      expect((await atelier(dataDir, 'tools')).stdout).toMatch(/^on\s+get_current_datetime\b/m)
      const allowed = await atelier(dataDir, 'tool', 'get_current_datetime', '{"timezone":"UTC"}')
      expect(allowed.code).toBe(0)
      expect(JSON.parse(allowed.stdout)).toMatchObject({ offset: '+00:00' })
    })

    it('refuses a parameter the tool does not have with invalid_parameters and exit 1', async () => {
      const dataDir = tempDir()
      const { code, stderr } = await atelier(dataDir, 'settings', 'set', 'get_current_datetime', 'bogus=1')
      expect(code).toBe(1)
      expect(stderr).toContain('(invalid_parameters)')
      const { stdout } = await atelier(dataDir, 'settings', 'get', 'get_current_datetime')
      expect(JSON.parse(stdout)).toMatchObject({ enabled: true, parameters: {} })
    })

    it('prints the effective settings as JSON', async () => {
      const { code, stdout } = await atelier(tempDir(), 'settings', 'get', 'get_current_datetime')
      expect(code).toBe(0)
      expect(JSON.parse(stdout)).toMatchObject({ name: 'get_current_datetime', enabled: true })
    })
  })

  describe('inspect', () => {
    it('prints the Responses tool list with get_current_datetime marked strict', async () => {
      const { code, stdout } = await atelier(tempDir(), 'inspect', '--provider', 'openai-responses')
      expect(code).toBe(0)
      const tools = JSON.parse(stdout) as { name: string }[]
      expect(Array.isArray(tools)).toBe(true)
      expect(tools.find((tool) => tool.name === 'get_current_datetime')).toMatchObject({
        type: 'function',
        strict: true,
        parameters: { additionalProperties: false, required: ['timezone', 'locale'] },
      })
    })

    it('rejects a provider kind it does not know', async () => {
      const { code, stdout, stderr } = await atelier(tempDir(), 'inspect', '--provider', 'openai-legacy')
      expect(code).not.toBe(0)
      expect(stdout).toBe('')
      expect(stderr).toContain("argument 'openai-legacy' is invalid")
    })
  })
})

describe('atelier tool with a shell, stopped from outside', () => {
  const tempDir = useTempDirs()

  it('kills the command’s whole process group when the CLI gets SIGTERM', async () => {
    const dataDir = tempDir()
    await atelier(dataDir, 'settings', 'set', 'bash', 'enabled=true')
    const marker = `999.${process.pid}7`
    const child = spawn(
      process.execPath,
      [
        BIN,
        '--data-dir',
        dataDir,
        'tool',
        'bash',
        JSON.stringify({ command: `sleep ${marker} & wait` }),
        '--cwd',
        tempDir(),
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    const running = () =>
      spawnSync('pgrep', ['-f', `^sleep ${marker}`])
        .stdout.toString()
        .trim()
    for (let waited = 0; running() === '' && waited < 5000; waited += 50)
      await new Promise((r) => setTimeout(r, 50))
    expect(running()).not.toBe('')
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    expect(await exited).toBe(1)
    expect(JSON.parse(stdout)).toMatchObject({ error: { type: 'aborted' } })
    // Killed processes may linger as zombies until PID 1 reaps them; only live ones count.
    const live = running()
      .split('\n')
      .filter(
        (pid) => pid && !/^Z/.test(spawnSync('ps', ['-o', 'stat=', '-p', pid]).stdout.toString().trim()),
      )
    expect(live).toEqual([])
  })
})
