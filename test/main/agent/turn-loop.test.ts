import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../src-main/app/create-atelier'
import { FatalToolError } from '../../../src-main/tools/errors'
import type { TurnEvent } from '../../../src-shared/agent'
import { useAgentFixture } from '../../support/agent-harness'
import { isAlive } from '../../support/fixture-process'
import { recordingTool } from '../../support/test-tools'
import { turnSandboxOff } from '../../support/tool-harness'
import { toolResults } from '../../support/turn-events'

const args = (pattern: string) => JSON.stringify({ pattern })

/** Resolves when `predicate` holds for an event; for stopping a turn at a precise moment. */
function when(predicate: (event: TurnEvent) => boolean) {
  let fire: () => void = () => {}
  const reached = new Promise<void>((resolve) => {
    fire = resolve
  })
  return { onEvent: (event: TurnEvent) => predicate(event) && fire(), reached }
}

describe('the agent turn loop', () => {
  const setup = useAgentFixture()

  it('runs the reading calls of one response side by side and feeds the results back in call order', async () => {
    let started = 0
    let bothStarted: () => void = () => {}
    const together = new Promise<void>((resolve) => {
      bothStarted = resolve
    })
    // Each call waits for the other to start: run one after the other, they would each wait 3 s.
    const meet = async (delayMs: number) => {
      if (++started === 2) bothStarted()
      const met = await Promise.race([together.then(() => 'together'), sleep(3000).then(() => 'alone')])
      await sleep(delayMs)
      return met
    }
    const slow = recordingTool('slow_lookup', () => meet(150))
    const fast = recordingTool('fast_lookup', () => meet(0))
    const reads = [slow.tool, fast.tool].map((tool) => ({ ...tool, kind: 'read' as const }))
    const { fake, run } = await setup('openai-chat', reads)
    fake.enqueue(
      {
        toolCalls: [
          { id: 'call_slow', name: 'slow_lookup', arguments: args('a') },
          { id: 'call_fast', name: 'fast_lookup', arguments: args('b') },
        ],
      },
      { text: 'Both done.' },
    )
    const { turn, events, messages } = await run('look up a and b')

    expect(turn.status).toBe('completed')
    expect(toolResults(events).map((e) => [e.name, e.content])).toEqual([
      ['fast_lookup', 'together'],
      ['slow_lookup', 'together'],
    ])
    const sent = fake.requestsOf('openai-chat')[1]?.body.messages
    expect(sent.filter((m: { role: string }) => m.role === 'tool')).toEqual([
      { role: 'tool', tool_call_id: 'call_slow', content: 'together' },
      { role: 'tool', tool_call_id: 'call_fast', content: 'together' },
    ])
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant'])
    expect(messages.at(-1)?.parts).toEqual([{ type: 'text', text: 'Both done.' }])
  })

  it('stops at the iteration limit with a message that says so', async () => {
    const lookup = recordingTool('lookup')
    const { fake, run } = await setup('anthropic', [lookup.tool])
    fake.enqueue(
      { toolCalls: [{ name: 'lookup', arguments: args('one') }] },
      { toolCalls: [{ name: 'lookup', arguments: args('two') }] },
      { toolCalls: [{ name: 'lookup', arguments: args('three') }] },
    )
    const { turn, events } = await run('keep looking', { maxIterations: 2 })

    expect(turn).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('after 2 model responses'),
    })
    expect(events.at(-1)).toMatchObject({ type: 'turn_error', code: 'max_iterations' })
    expect(lookup.calls.map((c) => c.args)).toEqual([{ pattern: 'one' }, { pattern: 'two' }])
    expect(fake.requestsOf('anthropic')).toHaveLength(2)
  })

  it('stops a model that makes the same call with the same arguments five times in a row', async () => {
    const lookup = recordingTool('lookup')
    const { fake, run } = await setup('openai-responses', [lookup.tool])
    // Key order and spacing do not make a call different.
    const same = ['{"pattern":"x","limit":1}', '{"limit":1,"pattern":"x"}', '{ "pattern": "x", "limit": 1 }']
    fake.enqueue(
      ...[0, 1, 2, 0, 1].map((i) => ({ toolCalls: [{ name: 'lookup', arguments: same[i] ?? '' }] })),
    )
    const { turn, messages } = await run('find x')

    expect(turn).toMatchObject({ status: 'failed', error: expect.stringContaining('5 times in a row') })
    expect(lookup.calls).toHaveLength(4)
    expect(messages.at(-1)?.parts[0]).toMatchObject({ type: 'tool_result', isError: true })
  })

  it('ends the turn on a FatalToolError, stops the other calls, and never asks the model again', async () => {
    let otherStopped = false
    const broken = recordingTool('broken', async () => {
      await sleep(50)
      throw new FatalToolError('the index database is unavailable')
    })
    const waiting = recordingTool(
      'waiting',
      (_args, context) =>
        new Promise((resolve) =>
          context.signal.addEventListener('abort', () => {
            otherStopped = true
            resolve('stopped')
          }),
        ),
    )
    // Reads, so they run side by side: the failure must stop the one still running.
    const reads = [broken.tool, waiting.tool].map((tool) => ({ ...tool, kind: 'read' as const }))
    const { fake, run } = await setup('gemini', reads)
    fake.enqueue({
      toolCalls: [
        { name: 'broken', arguments: args('a') },
        { name: 'waiting', arguments: args('b') },
      ],
    })
    const { turn, events, messages } = await run('do it')

    expect(turn.status).toBe('failed')
    expect(events.at(-1)).toMatchObject({
      type: 'turn_error',
      code: 'fatal_tool_error',
      message: expect.stringContaining('the index database is unavailable'),
    })
    expect(otherStopped).toBe(true)
    expect(fake.requestsOf('gemini')).toHaveLength(1)
    // The model's view of the failure holds no internals.
    const stored = messages
      .flatMap((m) => m.parts)
      .find((p) => p.type === 'tool_result' && p.name === 'broken')
    expect(JSON.stringify(stored)).not.toContain('index database')
  })

  it('turns invalid arguments into an error result, and the corrected retry succeeds', async () => {
    const lookup = recordingTool('lookup', async () => 'found it')
    const { fake, run } = await setup('openai-chat', [lookup.tool])
    fake.enqueue(
      { toolCalls: [{ id: 'bad', name: 'lookup', arguments: '{"pattern": 42}' }] },
      { toolCalls: [{ id: 'good', name: 'lookup', arguments: args('ok') }] },
      { text: 'It is there.' },
    )
    const { turn, events } = await run('look it up')

    expect(turn.status).toBe('completed')
    expect(lookup.calls.map((c) => c.args)).toEqual([{ pattern: 'ok' }])
    const [first] = toolResults(events)
    expect(first).toMatchObject({ id: 'bad', isError: true, errorType: 'validation_failed' })
    const feedback = fake.requestsOf('openai-chat')[1]?.body.messages.at(-1)
    expect(feedback).toMatchObject({
      role: 'tool',
      tool_call_id: 'bad',
      content: expect.stringContaining('Invalid arguments'),
    })
  })

  it('stops during streaming: the text so far is kept and the turn is marked stopped', async () => {
    const { atelier, fake, chat, run } = await setup('anthropic')
    fake.enqueue({ text: 'word '.repeat(400), chunkSize: 5, delayMs: 20 })
    const firstText = when((e) => e.type === 'text_delta')
    const running = run('write a lot', { onEvent: firstText.onEvent })
    await firstText.reached
    expect(atelier.agent.stop({ chatId: chat.id })).toEqual({ stopped: true })
    const started = performance.now()
    const { turn, messages } = await running

    expect(performance.now() - started).toBeLessThan(1000)
    expect(turn.status).toBe('stopped')
    const kept = messages.at(-1)?.parts[0]
    expect(kept).toMatchObject({ type: 'text', text: expect.stringMatching(/^word/) })
    expect((kept as { text: string }).text.length).toBeLessThan(2000)
    expect(atelier.agent.stop({ chatId: chat.id })).toEqual({ stopped: false })
  })

  it('stops during a tool: the shell and what it started are killed, and the chat can go on', async () => {
    const { atelier, fake, chat, project, run } = await setup('openai-responses')
    atelier.tools.settings.update(LOCAL_USER, 'bash', { enabled: true })
    // The pid a sandboxed shell sees is its own namespace's: this test reads it from outside.
    turnSandboxOff(atelier)
    const pidFile = join(project, 'sleeper.pid')
    fake.enqueue({
      toolCalls: [
        { name: 'bash', arguments: JSON.stringify({ command: `sleep 60 & echo $! > sleeper.pid; wait` }) },
      ],
    })
    const toolRunning = when((e) => e.type === 'tool_call_completed')
    const running = run('wait a minute', { onEvent: toolRunning.onEvent })
    await toolRunning.reached
    while (!existsSync(pidFile) || !readFileSync(pidFile, 'utf8').trim()) await sleep(10)
    const pid = Number(readFileSync(pidFile, 'utf8'))
    atelier.agent.stop({ chatId: chat.id })
    const { turn, messages } = await running

    expect(turn.status).toBe('stopped')
    expect(messages.at(-1)?.parts[0]).toMatchObject({ type: 'tool_result', name: 'bash', isError: true })
    for (let i = 0; i < 100 && isAlive(pid); i++) await sleep(20)
    expect(isAlive(pid)).toBe(false)
    expect(fake.requestsOf('openai-responses')).toHaveLength(1)

    fake.enqueue({ text: 'Fine.' })
    expect((await run('never mind')).turn.status).toBe('completed')
  })

  it('retries a rate limit and a dropped connection before anything streamed, then succeeds', async () => {
    const { fake, run } = await setup('openai-chat')
    fake.enqueue(
      { status: 429, retryAfterSeconds: 0 },
      { text: 'Hello', dropAfterChunks: 0 },
      { text: 'Hello there.' },
    )
    const { turn, events, messages } = await run('hi')

    expect(turn.status).toBe('completed')
    expect(events.filter((e) => e.type === 'retry').map((e) => e.attempt)).toEqual([1, 2])
    expect(fake.requestsOf('openai-chat')).toHaveLength(3)
    expect(messages.at(-1)?.parts).toEqual([{ type: 'text', text: 'Hello there.' }])
  })

  it('surfaces a server error that outlasts the retries, readably', async () => {
    const { fake, run } = await setup('gemini')
    const overloaded = { status: 500, errorMessage: 'upstream overloaded' }
    fake.enqueue(overloaded, overloaded, overloaded)
    const { turn, events } = await run('hi')

    expect(turn.status).toBe('failed')
    expect(events.at(-1)).toMatchObject({
      type: 'turn_error',
      code: 'provider_unavailable',
      message: 'upstream overloaded (500) — Gemini answered with an error of its own.',
    })
    expect(fake.requestsOf('gemini')).toHaveLength(3)
  })

  it('does not retry once text has streamed: the partial answer is kept and the failure shown', async () => {
    const { fake, run } = await setup('anthropic')
    fake.enqueue({ text: 'The answer is that the', chunkSize: 4, dropAfterChunks: 4 })
    const { turn, events, messages } = await run('hi')

    expect(turn.status).toBe('failed')
    expect(events.at(-1)).toMatchObject({ type: 'turn_error', code: 'provider_connection' })
    expect(fake.requestsOf('anthropic')).toHaveLength(1)
    expect(messages.at(-1)).toMatchObject({
      role: 'assistant',
      parts: [{ type: 'text', text: expect.stringMatching(/^The/) }],
    })
  })

  it('announces the working folder in agent mode and names the chat after the first prompt', async () => {
    const { atelier, fake, chat, project, run } = await setup('openai-responses')
    fake.enqueue({ text: 'Hi.' })
    await run('Explain the build\nwith details')

    expect(fake.requestsOf('openai-responses')[0]?.body.instructions).toContain(
      `You are working in the folder ${project}.`,
    )
    expect(atelier.chats.get(chat.id).title).toBe('Explain the build')
  })

  it('streams every event on the app bus too, for the desktop window and the web host', async () => {
    const { atelier, fake, chat, run } = await setup('openai-chat')
    const seen: string[] = []
    const unsubscribe = atelier.events.subscribe((name, payload) => {
      if (name === 'turns.event' && 'event' in payload && payload.chatId === chat.id)
        seen.push(payload.event.type)
    })
    fake.enqueue({ text: 'Hi.' })
    await run('hello')
    unsubscribe()

    expect(seen[0]).toBe('turn_started')
    expect(seen).toContain('text_delta')
    expect(seen.at(-1)).toBe('turn_completed')
  })

  it('refuses a second prompt while a turn runs, and a chat with no reachable provider, writing nothing', async () => {
    const { atelier, fake, chat, run } = await setup('openai-chat')
    fake.enqueue({ text: 'slow '.repeat(50), delayMs: 10 })
    const running = run('first')
    expect(() => atelier.agent.begin({ chatId: chat.id, prompt: 'second' })).toThrow(
      expect.objectContaining({ code: 'turn_running' }),
    )
    await running
    const other = atelier.chats.create({})
    const bare = atelier.providers.create({
      kind: 'openai-chat',
      name: 'No model',
      baseUrl: fake.baseUrlFor('openai-chat'),
    })
    atelier.chats.configure({ id: other.id, provider: bare.id })
    expect(await atelier.dispatch('turns.start', { chatId: other.id, prompt: 'hi' })).toMatchObject({
      ok: false,
      error: { code: 'missing_model' },
    })
    expect(atelier.agent.conversation({ id: other.id })).toEqual({
      messages: [],
      turns: [],
      compactions: [],
      calls: [],
    })
  })
})
