/**
 * The four provider adapters, each against the fake provider through its official SDK: what a
 * response becomes as neutral events, and what the next request carries back in the provider's own
 * wire format (tool results, tools, system prompt, and the opaque reasoning a provider insists on
 * getting back verbatim).
 */
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { createProviderAdapter } from '../../../src-main/providers/adapters'
import type { ModelRequest } from '../../../src-main/providers/types'
import type { ProviderStreamEvent } from '../../../src-shared/agent'
import { providerWords } from '../../../src-shared/providers'
import { useAgentFixture } from '../../support/agent-harness'
import { type FakeKind, type FakeProvider, startFakeProvider } from '../../support/fake-provider'
import { recordingTool } from '../../support/test-tools'

// biome-ignore lint/suspicious/noExplicitAny: request and response bodies of four wire formats, read deep.
type Wire = any

const KINDS = ['openai-responses', 'openai-chat', 'gemini', 'anthropic'] as const satisfies FakeKind[]

const SYSTEM = 'You are a careful test assistant.'
const LOOKUP_TODO = '{"pattern":"TODO","path":"src"}'
const LOOKUP_FIXME = '{"pattern":"FIXME","limit":3,"caseInsensitive":true}'

const lookup = recordingTool('lookup').tool.definition
const grepNotes = recordingTool('grep_notes').tool.definition

function requestOf(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'fake-model',
    system: SYSTEM,
    messages: [{ role: 'user', text: 'Find the TODOs.' }],
    tools: [lookup],
    ...overrides,
  }
}

async function collect(events: AsyncIterable<ProviderStreamEvent>): Promise<ProviderStreamEvent[]> {
  const seen: ProviderStreamEvent[] = []
  for await (const event of events) seen.push(event)
  return seen
}

function ofType<T extends ProviderStreamEvent['type']>(events: ProviderStreamEvent[], type: T) {
  return events.filter((event): event is Extract<ProviderStreamEvent, { type: T }> => event.type === type)
}

/** What a response that read nothing from the prompt cache reports of it. */
function cacheMiss(kind: FakeKind): { cachedTokens?: number } {
  return kind === 'gemini' ? {} : { cachedTokens: 0 }
}

/** The `data:` payloads of an SSE body, parsed (`[DONE]` left out). */
function sseData(raw: string): Wire[] {
  return raw
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice('data: '.length)))
}

/**
 * Keeps a copy of every event stream the SDKs receive, so a test can compare what came back in the
 * next request with what the provider actually sent (the fake's reasoning tokens are random). The
 * copies are read as the bytes arrive, not with `text()`: the openai SDK lets go of the response at
 * `response.completed`, and a clone read whole then never settles.
 */
function tapStreams(): () => Wire[][] {
  const realFetch = globalThis.fetch
  const bodies: string[] = []
  const readers: ReadableStreamDefaultReader<Uint8Array>[] = []
  const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const response = await realFetch(input, init)
    const copy = response.headers.get('content-type')?.startsWith('text/event-stream')
      ? response.clone().body
      : null
    if (copy) {
      const index = bodies.push('') - 1
      const reader = copy.getReader()
      readers.push(reader)
      const decoder = new TextDecoder()
      const pump = async () => {
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          bodies[index] += decoder.decode(read.value, { stream: true })
        }
      }
      pump().catch(() => {})
    }
    return response
  })
  onTestFinished(async () => {
    spy.mockRestore()
    await Promise.all(readers.map((reader) => reader.cancel().catch(() => {})))
  })
  return () => bodies.map(sseData)
}

describe('each adapter on its own', () => {
  let fake: FakeProvider
  beforeEach(async () => {
    fake = await startFakeProvider()
  })
  afterEach(async () => {
    await fake.close()
  })
  const adapterFor = (kind: FakeKind) =>
    createProviderAdapter({ kind, baseUrl: fake.baseUrlFor(kind), apiKey: 'test-key' })
  const firstBody = (kind: FakeKind): Wire => fake.requestsOf(kind)[0]?.body

  describe.each(KINDS)('%s', (kind) => {
    it('streams text as it is written, then usage, then an end of turn', async () => {
      const text = 'Here is the answer, streamed in small pieces.'
      fake.enqueue({ text, chunkSize: 6, usage: { inputTokens: 12, outputTokens: 7 } })
      const events = await collect(adapterFor(kind).stream(requestOf(), new AbortController().signal))

      const deltas = ofType(events, 'text_delta')
      expect(deltas.length).toBeGreaterThan(1)
      expect(deltas.map((event) => event.text).join('')).toBe(text)
      // OpenAI and Anthropic report a cache miss as 0 cached tokens; Gemini says nothing then.
      expect(ofType(events, 'usage')).toEqual([
        { type: 'usage', usage: { inputTokens: 12, outputTokens: 7, ...cacheMiss(kind) } },
      ])
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' })
      expect(ofType(events, 'tool_call_started')).toEqual([])
    })

    it('streams two parallel tool calls, each started, filled in and completed with its exact arguments', async () => {
      fake.enqueue({
        toolCalls: [
          { id: 'call_todo', name: 'lookup', arguments: LOOKUP_TODO },
          { id: 'call_fixme', name: 'lookup', arguments: LOOKUP_FIXME },
        ],
        chunkSize: 5,
        usage: { inputTokens: 20, outputTokens: 9 },
      })
      const events = await collect(adapterFor(kind).stream(requestOf(), new AbortController().signal))

      expect(ofType(events, 'tool_call_started')).toEqual([
        { type: 'tool_call_started', id: 'call_todo', name: 'lookup' },
        { type: 'tool_call_started', id: 'call_fixme', name: 'lookup' },
      ])
      for (const [id, args] of [
        ['call_todo', LOOKUP_TODO],
        ['call_fixme', LOOKUP_FIXME],
      ] as const) {
        const deltas = ofType(events, 'tool_call_arguments_delta').filter((event) => event.id === id)
        const completed = ofType(events, 'tool_call_completed').filter((event) => event.id === id)
        expect(completed).toHaveLength(1)
        const streamed = deltas.map((event) => event.delta).join('')
        if (kind === 'gemini') {
          // Gemini sends each call whole and parsed: one delta, the arguments re-serialised.
          expect(deltas).toHaveLength(1)
          expect(JSON.parse(streamed)).toEqual(JSON.parse(args))
          expect(JSON.parse(completed[0]?.arguments ?? '')).toEqual(JSON.parse(args))
        } else {
          expect(deltas.length).toBeGreaterThan(1)
          expect(streamed).toBe(args)
          expect(completed[0]).toMatchObject({ name: 'lookup', arguments: args })
        }
        // Started, then filled in, then completed.
        const started = events.findIndex((event) => event.type === 'tool_call_started' && event.id === id)
        const firstDelta = events.indexOf(deltas[0] as ProviderStreamEvent)
        const done = events.indexOf(completed[0] as ProviderStreamEvent)
        expect(started).toBeLessThan(firstDelta)
        expect(events.lastIndexOf(deltas.at(-1) as ProviderStreamEvent)).toBeLessThan(done)
      }
      expect(ofType(events, 'usage')).toEqual([
        { type: 'usage', usage: { inputTokens: 20, outputTokens: 9, ...cacheMiss(kind) } },
      ])
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_calls' })
    })

    it('lists the models the provider offers, sorted, as plain ids', async () => {
      fake.models = ['zeta-large', 'alpha-small', 'mid-medium']
      const models = await adapterFor(kind).listModels()
      expect(models).toEqual(['alpha-small', 'mid-medium', 'zeta-large'])
    })

    it('stops promptly with an error when the signal aborts mid-stream', async () => {
      // 200 pieces 20 ms apart: about four seconds if the abort did nothing.
      fake.enqueue({ text: 'word '.repeat(200), chunkSize: 5, delayMs: 20 })
      const controller = new AbortController()
      let abortedAt = 0
      let deltasAfterAbort = 0
      const consume = async () => {
        for await (const event of adapterFor(kind).stream(requestOf(), controller.signal)) {
          if (event.type !== 'text_delta') continue
          if (abortedAt) deltasAfterAbort++
          else {
            abortedAt = performance.now()
            controller.abort()
          }
        }
      }

      await expect(consume()).rejects.toThrow()
      expect(abortedAt).toBeGreaterThan(0)
      expect(performance.now() - abortedAt).toBeLessThan(1000)
      expect(deltasAfterAbort).toBeLessThan(5)
    })
  })

  it('OpenAI Responses advertises strict function tools and sends the system prompt as instructions', async () => {
    fake.enqueue({ text: 'ok' })
    await collect(
      adapterFor('openai-responses').stream(
        requestOf({ tools: [lookup, grepNotes] }),
        new AbortController().signal,
      ),
    )
    const body = firstBody('openai-responses')

    expect(body.instructions).toBe(SYSTEM)
    expect(body.tools.map((tool: Wire) => tool.name)).toEqual(['lookup', 'grep_notes'])
    for (const tool of body.tools) {
      expect(tool).toMatchObject({ type: 'function', strict: true })
      expect(tool.parameters.additionalProperties).toBe(false)
      // Strict mode: every key required, the optional ones nullable.
      expect(tool.parameters.required).toEqual(['pattern', 'path', 'caseInsensitive', 'limit'])
      expect(tool.parameters.properties.path.type).toEqual(['string', 'null'])
    }
  })

  it('Chat Completions advertises function tools and opens with a system message', async () => {
    fake.enqueue({ text: 'ok' })
    await collect(
      adapterFor('openai-chat').stream(
        requestOf({ tools: [lookup, grepNotes] }),
        new AbortController().signal,
      ),
    )
    const body = firstBody('openai-chat')

    expect(body.messages[0]).toEqual({ role: 'system', content: SYSTEM })
    expect(body.tools.map((tool: Wire) => tool.type)).toEqual(['function', 'function'])
    expect(body.tools.map((tool: Wire) => tool.function.name)).toEqual(['lookup', 'grep_notes'])
    expect(body.tools[0].function.parameters.required).toEqual(['pattern'])
  })

  it('Gemini advertises function declarations with JSON Schema parameters and a system instruction', async () => {
    fake.enqueue({ text: 'ok' })
    await collect(
      adapterFor('gemini').stream(requestOf({ tools: [lookup, grepNotes] }), new AbortController().signal),
    )
    const body = firstBody('gemini')

    expect(body.systemInstruction).toMatchObject({ parts: [{ text: SYSTEM }] })
    const declarations = body.tools[0].functionDeclarations
    expect(declarations.map((declaration: Wire) => declaration.name)).toEqual(['lookup', 'grep_notes'])
    for (const declaration of declarations) {
      expect(declaration.parametersJsonSchema).toMatchObject({
        type: 'object',
        required: ['pattern'],
        properties: { pattern: { type: 'string' } },
      })
    }
  })

  it('Anthropic advertises tools with an input_schema and sends the system prompt as system', async () => {
    fake.enqueue({ text: 'ok' })
    await collect(
      adapterFor('anthropic').stream(requestOf({ tools: [lookup, grepNotes] }), new AbortController().signal),
    )
    const body = firstBody('anthropic')

    expect(body.system).toBe(SYSTEM)
    expect(body.tools.map((tool: Wire) => tool.name)).toEqual(['lookup', 'grep_notes'])
    for (const tool of body.tools) {
      expect(tool.input_schema).toMatchObject({ type: 'object', required: ['pattern'] })
    }
  })

  it('Gemini returns a parallel batch whose signature came on the first call only, exactly so', async () => {
    // The fake signs every call of a batch, so this history is written by hand: Gemini 3 signs only
    // the first call of a parallel batch, and the request must neither drop it nor invent others.
    fake.enqueue({ text: 'ok' })
    const request = requestOf({
      messages: [
        { role: 'user', text: 'Find the TODOs and FIXMEs.' },
        {
          role: 'assistant',
          parts: [
            {
              type: 'tool_call',
              id: 'call_a',
              name: 'lookup',
              arguments: LOOKUP_TODO,
              providerData: { thoughtSignature: 'c2lnbmF0dXJlLW9uZQ==' },
            },
            { type: 'tool_call', id: 'call_b', name: 'lookup', arguments: LOOKUP_FIXME, providerData: {} },
          ],
        },
        {
          role: 'tool',
          results: [
            { type: 'tool_result', callId: 'call_a', name: 'lookup', content: 'two', isError: false },
            { type: 'tool_result', callId: 'call_b', name: 'lookup', content: 'none', isError: false },
          ],
        },
      ],
    })
    await collect(adapterFor('gemini').stream(request, new AbortController().signal))
    const [, model] = firstBody('gemini').contents

    expect(model).toEqual({
      role: 'model',
      parts: [
        {
          functionCall: { name: 'lookup', args: JSON.parse(LOOKUP_TODO) },
          thoughtSignature: 'c2lnbmF0dXJlLW9uZQ==',
        },
        { functionCall: { name: 'lookup', args: JSON.parse(LOOKUP_FIXME) } },
      ],
    })
  })
})

describe('each adapter inside the turn loop', () => {
  const setup = useAgentFixture()
  const FOUND = 'src/main.ts:3: // TODO tidy up'

  /** The items of the second request that answer the first response's call, per wire format. */
  const FED_BACK: Record<FakeKind, { tail: (body: Wire) => unknown; expected: unknown }> = {
    'openai-responses': {
      tail: (body) => body.input.slice(-2),
      expected: [
        { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: LOOKUP_TODO },
        { type: 'function_call_output', call_id: 'call_1', output: FOUND },
      ],
    },
    'openai-chat': {
      tail: (body) => body.messages.slice(-2),
      expected: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: LOOKUP_TODO } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: FOUND },
      ],
    },
    gemini: {
      tail: (body) => body.contents.slice(-2),
      expected: [
        {
          role: 'model',
          parts: [{ functionCall: { id: 'call_1', name: 'lookup', args: JSON.parse(LOOKUP_TODO) } }],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { id: 'call_1', name: 'lookup', response: { output: FOUND } } }],
        },
      ],
    },
    anthropic: {
      tail: (body) => body.messages.slice(-2),
      expected: [
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'call_1', name: 'lookup', input: JSON.parse(LOOKUP_TODO) }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: FOUND }] },
      ],
    },
  }

  it.each(KINDS)('%s: a tool result goes back in the provider’s own format', async (kind) => {
    const tool = recordingTool('lookup', async () => FOUND)
    const { fake, run } = await setup(kind, [tool.tool])
    fake.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: LOOKUP_TODO }] },
      { text: 'One TODO.' },
    )
    const { turn } = await run('find the TODOs')

    expect(turn.status).toBe('completed')
    expect(tool.calls.map((call) => call.args)).toEqual([JSON.parse(LOOKUP_TODO)])
    const requests = fake.requestsOf(kind)
    expect(requests).toHaveLength(2)
    const { tail, expected } = FED_BACK[kind]
    expect(tail(requests[1]?.body)).toEqual(expected)
  })

  it('gemini: a call Gemini gave no id goes back without one, paired by name', async () => {
    const tool = recordingTool('lookup', async () => FOUND)
    const { fake, run } = await setup('gemini', [tool.tool])
    fake.enqueue({ toolCalls: [{ name: 'lookup', arguments: LOOKUP_TODO }] }, { text: 'One TODO.' })
    await run('find the TODOs')

    expect(fake.requestsOf('gemini')[1]?.body.contents.slice(-2)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'lookup', args: JSON.parse(LOOKUP_TODO) } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { output: FOUND } } }] },
    ])
  })

  it.each([
    [
      'anthropic',
      (body: Wire) => body.messages.at(-1).content[0],
      { is_error: true, content: 'no such folder' },
    ],
    [
      'gemini',
      (body: Wire) => body.contents.at(-1).parts[0].functionResponse,
      { response: { error: 'no such folder' } },
    ],
  ] as const)('%s: a failed tool result is marked as an error', async (kind, pick, marked) => {
    const tool = recordingTool('lookup', async () => ({ content: 'no such folder', isError: true }))
    const { fake, run } = await setup(kind, [tool.tool])
    fake.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'lookup', arguments: LOOKUP_TODO }] },
      { text: 'Sorry.' },
    )
    await run('find the TODOs')

    expect(pick(fake.requestsOf(kind)[1]?.body)).toMatchObject(marked)
  })

  describe('opaque reasoning goes back verbatim', () => {
    const call = { id: 'call_1', name: 'lookup', arguments: LOOKUP_TODO }

    it('openai-responses: the reasoning item, with its encrypted content, comes before the call', async () => {
      const received = tapStreams()
      const { fake, run } = await setup('openai-responses', [recordingTool('lookup', async () => FOUND).tool])
      fake.enqueue({ reasoning: true, toolCalls: [call] }, { text: 'One TODO.' })
      expect((await run('find the TODOs')).turn.status).toBe('completed')

      const [first] = received()
      const reasoning = first?.find(
        (event) => event.type === 'response.output_item.done' && event.item.type === 'reasoning',
      )?.item
      expect(reasoning?.encrypted_content).toEqual(expect.any(String))
      expect(fake.requestsOf('openai-responses')[1]?.body.input.slice(1)).toEqual([
        reasoning,
        { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: LOOKUP_TODO },
        { type: 'function_call_output', call_id: 'call_1', output: FOUND },
      ])
    })

    it('gemini: each call of a parallel batch goes back with the thought signature it came with', async () => {
      const received = tapStreams()
      const { fake, run } = await setup('gemini', [recordingTool('lookup', async () => FOUND).tool])
      const second = { id: 'call_2', name: 'lookup', arguments: LOOKUP_FIXME }
      fake.enqueue({ reasoning: true, toolCalls: [call, second] }, { text: 'One TODO.' })
      expect((await run('find the TODOs and FIXMEs')).turn.status).toBe('completed')

      const [first] = received()
      const signatures = (first ?? [])
        .flatMap((chunk) => chunk.candidates[0].content.parts)
        .filter((part: Wire) => part.functionCall)
        .map((part: Wire) => part.thoughtSignature)
      expect(signatures).toEqual([expect.any(String), expect.any(String)])
      expect(signatures[0]).not.toBe(signatures[1])
      const model = fake.requestsOf('gemini')[1]?.body.contents.at(-2)
      expect(model).toEqual({
        role: 'model',
        parts: [
          {
            functionCall: { id: 'call_1', name: 'lookup', args: JSON.parse(LOOKUP_TODO) },
            thoughtSignature: signatures[0],
          },
          {
            functionCall: { id: 'call_2', name: 'lookup', args: JSON.parse(LOOKUP_FIXME) },
            thoughtSignature: signatures[1],
          },
        ],
      })
    })

    it('anthropic: the assistant message starts with the thinking block, text and signature intact', async () => {
      const received = tapStreams()
      const { fake, run } = await setup('anthropic', [recordingTool('lookup', async () => FOUND).tool])
      fake.enqueue({ reasoning: true, toolCalls: [call], chunkSize: 7 }, { text: 'One TODO.' })
      expect((await run('find the TODOs')).turn.status).toBe('completed')

      const [first] = received()
      const deltas = (first ?? []).filter(
        (event) => event.type === 'content_block_delta' && event.index === 0,
      )
      const thinking = deltas.map((event) => event.delta.thinking ?? '').join('')
      const signature = deltas.map((event) => event.delta.signature ?? '').join('')
      expect(thinking).not.toBe('')
      expect(signature).not.toBe('')
      const assistant = fake.requestsOf('anthropic')[1]?.body.messages.at(-2)
      expect(assistant).toEqual({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking, signature },
          { type: 'tool_use', id: 'call_1', name: 'lookup', input: JSON.parse(LOOKUP_TODO) },
        ],
      })
    })
  })

  it.each(
    KINDS.flatMap((kind): [FakeKind, number, string][] => [
      [kind, 401, 'provider_auth'],
      [kind, 400, 'provider_rejected'],
    ]),
  )('%s: a %i answer fails the turn as %s, without a retry', async (kind, status, code) => {
    const { fake, run } = await setup(kind)
    // Were the request tried again, this answer would complete the turn.
    fake.enqueue({ status }, { text: 'A retry got through.' })
    const { turn, events } = await run('hi')

    expect(turn.status).toBe('failed')
    expect(events.at(-1)).toMatchObject({ type: 'turn_error', code })
    expect(events.filter((event) => event.type === 'retry')).toEqual([])
    expect(fake.requestsOf(kind)).toHaveLength(1)
  })

  it.each(KINDS)("%s: the provider's own words lead the failure and each retry notice", async (kind) => {
    const { fake, run } = await setup(kind)
    const overloaded = { status: 500, errorMessage: 'upstream overloaded' }
    fake.enqueue(overloaded, overloaded, overloaded)
    const { turn, events } = await run('hi')

    expect(turn.status).toBe('failed')
    const retries = events.filter((event) => event.type === 'retry')
    expect(retries).toHaveLength(2)
    for (const retry of retries) expect(providerWords(retry.message)).toBe('upstream overloaded (500)')
    const failure = events.at(-1)
    expect(failure).toMatchObject({ type: 'turn_error', code: 'provider_unavailable' })
    expect(failure?.type === 'turn_error' && providerWords(failure.message)).toBe('upstream overloaded (500)')
  })
})
