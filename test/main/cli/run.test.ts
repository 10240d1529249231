import { execFile, spawn } from 'node:child_process'
import { existsSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createAtelier } from '../../../src-main/app/create-atelier'
import type { TurnEvent } from '../../../src-shared/agent'
import { FAKE_ENV } from '../../support/agent-harness'
import { EVERYTHING_SERVER } from '../../support/mcp-servers'
import { useTempDirs } from '../../support/temp-dir'
import { toolResults } from '../../support/turn-events'
import { fakeRunArgs, useFakeProviders } from './built-cli'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const BIN = join(ROOT, 'bin', 'atelier.js')

/** Every variable a provider key may come from; the child sees only the ones a test gives it. */
const KEY_VARIABLES = ['OPENAI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY', 'ANTHROPIC_API_KEY']

function envWithoutKeys(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const name of [...KEY_VARIABLES, 'ATELIER_DATA_DIR', 'OPENAI_BASE_URL', 'ANTHROPIC_BASE_URL'])
    delete env[name]
  return env
}

const NO_KEYS = envWithoutKeys()
const WITH_KEYS = { ...NO_KEYS, ...FAKE_ENV }

/** Generous: a cold CLI start on a slow machine takes seconds. */
const CHILD_TIMEOUT_MS = 60_000

interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs the built CLI; a non-zero exit is a result to check, not a failure. Asynchronous, so the fake keeps serving. */
function atelier(args: string[], env: NodeJS.ProcessEnv = WITH_KEYS): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env, timeout: CHILD_TIMEOUT_MS, cwd: ROOT },
      (error, stdout, stderr) => {
        if (!error) return resolve({ code: 0, stdout, stderr })
        const { code } = error as { code?: unknown }
        if (typeof code !== 'number') return reject(new Error(`${error.message}\nstderr: ${stderr}`))
        resolve({ code, stdout, stderr })
      },
    )
  })
}

describe('atelier run (built CLI)', { timeout: 120_000 }, () => {
  const tempDir = useTempDirs()
  const startFake = useFakeProviders()

  async function setup() {
    const fake = await startFake()
    const dataDir = tempDir()
    const project = realpathSync(tempDir())
    /** `atelier --data-dir D run PROMPT --provider openai-chat --base-url FAKE --model m --cwd PROJECT …`. */
    const runArgs = (prompt: string, ...extra: string[]) => [
      '--data-dir',
      dataDir,
      ...fakeRunArgs(fake, project, prompt, ...extra),
    ]
    /** The data folder as the app would open it after the CLI has exited. */
    const opened = <T>(read: (atelier: ReturnType<typeof createAtelier>) => T): T => {
      const app = createAtelier({ dataDir, env: {} })
      try {
        return read(app)
      } finally {
        app.close()
      }
    }
    return { fake, dataDir, project, runArgs, opened }
  }

  it('prints the answer on stdout and exits 0', async () => {
    const { fake, project, runArgs, opened } = await setup()
    fake.enqueue({ text: 'Hello from the fake model.' })
    const { code, stdout, stderr } = await atelier(runArgs('hello'))

    expect(stderr).not.toMatch(/^atelier:|→/m)
    expect(code).toBe(0)
    expect(stdout).toBe('Hello from the fake model.\n')
    const [request] = fake.requestsOf('openai-chat')
    expect(request?.body).toMatchObject({ model: 'm', stream: true })
    expect(request?.body.messages.at(-1)).toEqual({ role: 'user', content: 'hello' })
    // OPENAI_API_KEY is in the CLI's environment, but --base-url is not OpenAI: the key stays home.
    expect(request?.headers.authorization).not.toContain(FAKE_ENV.OPENAI_API_KEY)

    opened(({ chats, agent }) => {
      const [chat] = chats.list()
      expect(chat).toMatchObject({ workingDir: project, mode: 'agent' })
      expect(agent.conversation({ id: chat?.id ?? '' }).turns).toEqual([
        expect.objectContaining({ status: 'completed' }),
      ])
    })
  })

  it('runs a tool: the call and its success on stderr, the answer on stdout, the result sent back', async () => {
    const { fake, project, runArgs } = await setup()
    writeFileSync(join(project, 'notes-for-the-fake.txt'), 'some notes\n')
    fake.enqueue(
      { toolCalls: [{ id: 'call_ls', name: 'list_directory', arguments: '{"path":"."}' }] },
      { text: 'The folder holds notes-for-the-fake.txt.' },
    )
    const { code, stdout, stderr } = await atelier(runArgs('what is in this folder?'))

    expect(code).toBe(0)
    expect(stderr).toContain('→ list_directory {"path":"."}')
    expect(stderr).toMatch(/^✓ list_directory \(\d+ ms\)$/m)
    expect(stdout.trim()).toBe('The folder holds notes-for-the-fake.txt.')
    expect(stdout).not.toContain('list_directory')

    const requests = fake.requestsOf('openai-chat')
    expect(requests).toHaveLength(2)
    const result = requests[1]?.body.messages.find((m: { role: string }) => m.role === 'tool')
    expect(result).toMatchObject({ role: 'tool', tool_call_id: 'call_ls' })
    expect(result.content).toContain('notes-for-the-fake.txt')
  })

  it("shows an MCP server's progress on stderr while its tool runs", async () => {
    const { fake, dataDir, runArgs } = await setup()
    const add = ['--data-dir', dataDir, 'mcp', 'add', 'everything', '--', process.execPath, EVERYTHING_SERVER]
    expect((await atelier([...add, 'stdio'])).code).toBe(0)
    fake.enqueue(
      {
        toolCalls: [
          {
            id: 'call_long',
            name: 'everything__trigger-long-running-operation',
            arguments: '{"duration":1,"steps":2}',
          },
        ],
      },
      { text: 'Done.' },
    )
    const { code, stderr } = await atelier(runArgs('take your time'))
    expect(code).toBe(0)
    // (The server's last notification comes with the result, which supersedes it.)
    expect(stderr).toMatch(
      /\{"duration":1,"steps":2\}\n {2}⋯ 1 of 2\n.*✓ everything__trigger-long-running-operation/s,
    )
  })

  it('prints the neutral events as NDJSON with --json', async () => {
    const { fake, runArgs } = await setup()
    fake.enqueue({ text: 'Streamed in several pieces.', chunkSize: 4 })
    const { code, stdout } = await atelier(runArgs('hello', '--json'))

    expect(code).toBe(0)
    expect(stdout.endsWith('\n')).toBe(true)
    const lines = stdout.slice(0, -1).split('\n')
    const events = lines.map((line) => JSON.parse(line) as TurnEvent)
    expect(events[0]).toMatchObject({ type: 'turn_started', turnId: expect.any(String) })
    const deltas = events.filter((event) => event.type === 'text_delta')
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.map((event) => event.text).join('')).toBe('Streamed in several pieces.')
    expect(events.at(-1)).toEqual({
      type: 'turn_completed',
      turnId: (events[0] as { turnId: string }).turnId,
      status: 'completed',
      toolError: false,
    })
  })

  it('says in --json turn_completed whether a call of the turn ended in error', async () => {
    const { fake, runArgs } = await setup()
    fake.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: '{"path":"no-such-file.txt"}' }] },
      { text: 'There is no such file.' },
    )
    const { code, stdout } = await atelier(runArgs('read it', '--json'))
    expect(code).toBe(0)
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TurnEvent)
    expect(events.at(-1)).toMatchObject({ type: 'turn_completed', status: 'completed', toolError: true })
  })

  it('exits 1 and says so when the model is still calling tools at --max-iterations', async () => {
    const { fake, runArgs } = await setup()
    const listing = { toolCalls: [{ name: 'list_directory', arguments: '{"path":"."}' }] }
    fake.enqueue(listing, listing, listing)
    const { code, stderr } = await atelier(runArgs('keep looking', '--max-iterations', '1'))

    expect(code).toBe(1)
    expect(stderr).toMatch(/^atelier: Stopped after 1 model responses .*\(max_iterations\)$/m)
    expect(fake.requestsOf('openai-chat')).toHaveLength(1)
  })

  it.each(['0', 'abc', '501'])('refuses --max-iterations %s before running anything', async (value) => {
    const { fake } = await setup()
    const dataDir = join(tempDir(), 'never-created')
    const { code, stdout, stderr } = await atelier([
      '--data-dir',
      dataDir,
      'run',
      'hello',
      '--provider',
      'openai-chat',
      '--base-url',
      fake.baseUrlFor('openai-chat'),
      '--model',
      'm',
      '--max-iterations',
      value,
    ])

    expect(code).not.toBe(0)
    expect(stdout).toBe('')
    expect(stderr).toContain(`option '--max-iterations <n>' argument '${value}' is invalid`)
    expect(stderr).toContain('must be an integer from 1 to 500')
    expect(fake.requests).toEqual([])
    expect(existsSync(dataDir)).toBe(false)
  })

  it('exits 1 with a readable provider_auth line when the provider refuses the key', async () => {
    const { fake, runArgs, opened } = await setup()
    fake.enqueue({ status: 401 })
    const { code, stdout, stderr } = await atelier(runArgs('hello'))

    expect(code).toBe(1)
    expect(stdout.trim()).toBe('')
    expect(stderr).toMatch(/^atelier: .* \(401\) — .* refused the API key\. \(provider_auth\)$/m)
    expect(fake.requestsOf('openai-chat')).toHaveLength(1)
    opened(({ chats, agent }) => {
      const turns = agent.conversation({ id: chats.list()[0]?.id ?? '' }).turns
      expect(turns).toEqual([expect.objectContaining({ status: 'failed' })])
    })
  })

  it('exits 1 naming ANTHROPIC_API_KEY when anthropic has neither a key nor a base URL, writing nothing', async () => {
    const { dataDir, project, opened } = await setup()
    const args = ['--data-dir', dataDir, 'run', 'hello', '--provider', 'anthropic', '--cwd', project]
    const { code, stdout, stderr } = await atelier(args, NO_KEYS)

    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain('ANTHROPIC_API_KEY')
    expect(stderr).toMatch(/\(missing_api_key\)\n$/)
    expect(opened((app) => app.chats.list())).toEqual([])
  })

  it('needs no key for an OpenAI-compatible server at --base-url', async () => {
    const { fake, runArgs } = await setup()
    fake.enqueue({ text: 'No key needed.' })
    const { code, stdout } = await atelier(runArgs('hello'), NO_KEYS)

    expect(code).toBe(0)
    expect(stdout).toBe('No key needed.\n')
  })

  it('needs no key for an OpenAI Responses server at --base-url either', async () => {
    // ProviderService lets a provider with a base URL go without a key ("a local server needs no key").
    const { fake, dataDir, project } = await setup()
    fake.enqueue({ text: 'No key needed.' })
    const { code, stdout, stderr } = await atelier(
      [
        '--data-dir',
        dataDir,
        'run',
        'hello',
        '--provider',
        'openai-responses',
        '--base-url',
        fake.baseUrlFor('openai-responses'),
        '--model',
        'm',
        '--cwd',
        project,
      ],
      NO_KEYS,
    )

    expect(stderr).not.toMatch(/^atelier:/m)
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'No key needed.\n' })
  })

  it('exits 130 on SIGINT during a slow stream, with the turn recorded as stopped', async () => {
    const { fake, runArgs, opened } = await setup()
    const text = 'word '.repeat(400)
    // 400 chunks, 50 ms apart: about 20 s, far longer than the test waits.
    fake.enqueue({ text, chunkSize: 5, delayMs: 50 })
    const child = spawn(process.execPath, [BIN, ...runArgs('write a lot')], {
      env: WITH_KEYS,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    )
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          stdout += chunk
          if (stdout.includes('word')) resolve()
        })
        void exited.then(({ code }) => reject(new Error(`exited with ${code} before streaming: ${stderr}`)))
      })
      child.kill('SIGINT')
      const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS)
      const { code, signal } = await exited
      clearTimeout(timer)

      expect({ code, signal }).toEqual({ code: 130, signal: null })
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
    expect(stderr).toContain('Stopped.')
    expect(stdout.length).toBeLessThan(text.length)

    opened(({ chats, agent }) => {
      const [chat] = chats.list()
      const { turns, messages } = agent.conversation({ id: chat?.id ?? '' })
      expect(turns).toEqual([expect.objectContaining({ status: 'stopped' })])
      // What was shown is kept.
      const kept = messages.at(-1)
      expect(kept?.role).toBe('assistant')
      expect(kept?.parts[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^word/) })
    })
  })

  it('continues the conversation of --chat ID on a second run', async () => {
    const { fake, runArgs, opened } = await setup()
    fake.enqueue({ text: 'The first answer.' }, { text: 'The second answer.' })
    const first = await atelier(runArgs('the first question', '--chat', 'cli-chat'))
    const second = await atelier(runArgs('the second question', '--chat', 'cli-chat'))

    expect([first.code, second.code]).toEqual([0, 0])
    expect(second.stdout).toBe('The second answer.\n')
    const requests = fake.requestsOf('openai-chat')
    expect(requests).toHaveLength(2)
    const messages: { role: string }[] = requests[1]?.body.messages ?? []
    const sent = messages.filter((m) => m.role !== 'system')
    expect(sent).toMatchObject([
      { role: 'user', content: 'the first question' },
      { role: 'assistant', content: 'The first answer.' },
      { role: 'user', content: 'the second question' },
    ])

    opened(({ chats, agent }) => {
      expect(chats.list().map((chat) => chat.id)).toEqual(['cli-chat'])
      const { turns } = agent.conversation({ id: 'cli-chat' })
      expect(turns.map((turn) => turn.status)).toEqual(['completed', 'completed'])
    })
  })

  describe('--agent', () => {
    it('offers only the profile’s tools and refuses a call to another, naming the offered ones', async () => {
      const { fake, dataDir, project, runArgs } = await setup()
      const add = ['--data-dir', dataDir, 'agents', 'add', 'reviewer', '--tools', 'read_file,grep']
      expect((await atelier(add)).code).toBe(0)
      fake.enqueue(
        { toolCalls: [{ id: 'call_w', name: 'write_file', arguments: '{"path":"out.txt","content":"x"}' }] },
        { text: 'I may not write files here.' },
      )
      const { code, stdout } = await atelier(runArgs('write out.txt', '--agent', 'reviewer', '--json'))

      expect(code).toBe(0)
      expect(existsSync(join(project, 'out.txt'))).toBe(false)
      const events = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as TurnEvent)
      const [result] = toolResults(events)
      expect(result).toMatchObject({
        name: 'write_file',
        isError: true,
        errorType: 'not_offered',
        content: expect.stringContaining('Offered tools: grep, read_file.'),
      })
      const offered = fake
        .requestsOf('openai-chat')
        .map((request) =>
          request.body.tools.map((tool: { function: { name: string } }) => tool.function.name),
        )
      expect(offered).toEqual([
        ['grep', 'read_file'],
        ['grep', 'read_file'],
      ])
    })

    it('starts the chat in the profile’s mode unless --mode says otherwise', async () => {
      const { fake, dataDir, runArgs, opened } = await setup()
      const add = ['--data-dir', dataDir, 'agents', 'add', 'talker', '--mode', 'chat']
      expect((await atelier(add)).code).toBe(0)
      fake.enqueue({ text: 'In chat mode.' }, { text: 'In agent mode.' })
      expect((await atelier(runArgs('first', '--agent', 'talker', '--chat', 'by-profile'))).code).toBe(0)
      const explicit = runArgs('second', '--agent', 'talker', '--mode', 'agent', '--chat', 'by-option')
      expect((await atelier(explicit)).code).toBe(0)

      opened(({ chats, profiles }) => {
        const talker = profiles.byName('talker').id
        expect(chats.get('by-profile')).toMatchObject({ agent: talker, mode: 'chat' })
        expect(chats.get('by-option')).toMatchObject({ agent: talker, mode: 'agent' })
      })
    })

    it('refuses an unknown profile before anything is written', async () => {
      const { fake, runArgs, opened } = await setup()
      const { code, stdout, stderr } = await atelier(runArgs('hello', '--agent', 'nobody'))

      expect(code).toBe(1)
      expect(stdout).toBe('')
      expect(stderr).toBe(
        'atelier: No agent profile named "nobody". Profiles: Default, explore, general. (not_found)\n',
      )
      expect(fake.requests).toEqual([])
      expect(opened((app) => app.chats.list())).toEqual([])
    })
  })

  // What the inspector prints is what the next turn sends: the very same bytes, for every wire format.
  it.each([
    ['openai-responses', (body: { tools: unknown[] }) => body.tools],
    ['openai-chat', (body: { tools: unknown[] }) => body.tools],
    [
      'gemini',
      (body: { tools: { functionDeclarations: unknown[] }[] }) => body.tools[0]?.functionDeclarations,
    ],
    ['anthropic', (body: { tools: unknown[] }) => body.tools],
  ] as const)('inspect --provider %s prints the tools the run then sends', async (kind, toolsOf) => {
    const { fake, dataDir, project } = await setup()
    // The same folder: what is offered depends on it (the code tools on the files it holds).
    const inspected = await atelier(['--data-dir', dataDir, 'inspect', '--provider', kind, '--cwd', project])
    expect(inspected.code).toBe(0)
    fake.enqueue({ text: 'ok' })
    const ran = await atelier([
      '--data-dir',
      dataDir,
      'run',
      'hello',
      '--provider',
      kind,
      '--base-url',
      fake.baseUrlFor(kind),
      '--model',
      'm',
      '--cwd',
      project,
    ])
    expect(ran.code).toBe(0)

    const [request] = fake.requestsOf(kind)
    const shown = JSON.parse(inspected.stdout) as unknown[]
    expect(shown.length).toBeGreaterThan(5)
    expect(JSON.stringify(toolsOf(request?.body))).toBe(JSON.stringify(shown))
  })

  it('documents every option in run --help', async () => {
    const { code, stdout } = await atelier(['run', '--help'])

    expect(code).toBe(0)
    expect(stdout).toMatch(/^Usage: atelier run \[options\] <prompt>/)
    for (const option of [
      '--provider <kind>',
      '--base-url <url>',
      '--model <model>',
      '--cwd <dir>',
      '--mode <mode>',
      '--agent <name>',
      '--max-iterations <n>',
      '--context-window <tokens>',
      '--elicitation <answer>',
      '--json',
      '--chat <id>',
      '-h, --help',
    ]) {
      expect(stdout).toContain(option)
    }
    for (const kind of ['openai-responses', 'openai-chat', 'gemini', 'anthropic'])
      expect(stdout).toContain(`"${kind}"`)
    expect(stdout).toContain('"agent"')
    expect(stdout).toContain('"chat"')
    for (const answer of ['decline', 'defaults', 'ask']) expect(stdout).toContain(`"${answer}"`)
  })
})
