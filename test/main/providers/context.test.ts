/**
 * What long sessions need of the providers, each through its official SDK against the fake: a
 * request longer than the context window recognized as such (with the window when the refusal names
 * it) and never retried, prompt-cache reads in the usage, each model's window from the provider's
 * listing, and Gemini 3's placeholder thought signature on calls whose own signature is gone.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createProviderAdapter } from '../../../src-main/providers/adapters'
import { PLACEHOLDER_THOUGHT_SIGNATURE } from '../../../src-main/providers/gemini'
import { isContextOverflow, ProviderError, toProviderError } from '../../../src-main/providers/provider-error'
import { streamWithRetry } from '../../../src-main/providers/retry'
import type { ModelMessage, ModelRequest } from '../../../src-main/providers/types'
import type { ProviderStreamEvent } from '../../../src-shared/agent'
import { type FakeKind, type FakeProvider, startFakeProvider } from '../../support/fake-provider'

const KINDS = ['openai-responses', 'openai-chat', 'gemini', 'anthropic'] as const satisfies FakeKind[]

const LOOKUP_TODO = '{"pattern":"TODO"}'
const LOOKUP_FIXME = '{"pattern":"FIXME"}'

let fake: FakeProvider
beforeEach(async () => {
  fake = await startFakeProvider()
})
afterEach(async () => {
  await fake.close()
})

const adapterFor = (kind: FakeKind) =>
  createProviderAdapter({ kind, baseUrl: fake.baseUrlFor(kind), apiKey: 'test-key' })

function requestOf(messages: ModelMessage[] = [{ role: 'user', text: 'Go on.' }]): ModelRequest {
  return { model: 'fake-model-large', system: 'Be brief.', messages, tools: [] }
}

async function collect(events: AsyncIterable<ProviderStreamEvent>): Promise<ProviderStreamEvent[]> {
  const seen: ProviderStreamEvent[] = []
  for await (const event of events) seen.push(event)
  return seen
}

/** The error a stream fails with, read as the turn loop reads it. */
async function failureOf(kind: FakeKind): Promise<ProviderError> {
  try {
    await collect(adapterFor(kind).stream(requestOf(), new AbortController().signal))
  } catch (error) {
    return toProviderError(kind, error)
  }
  throw new Error('the stream did not fail')
}

describe('a request longer than the context window', () => {
  // The Responses API's refusal names no figure ("Your input exceeds the context window of this model").
  const STATED: Record<FakeKind, number | undefined> = {
    'openai-responses': undefined,
    'openai-chat': 16_000,
    gemini: 16_000,
    anthropic: 16_000,
  }

  it.each(KINDS)('%s: is a context overflow, not retryable, with the window it states', async (kind) => {
    fake.enqueue({ contextOverflow: { limitTokens: 16_000, promptTokens: 17_234 } })
    const failure = await failureOf(kind)

    expect(isContextOverflow(failure)).toBe(true)
    expect(failure.code).toBe('provider_context_overflow')
    expect(failure.retryable).toBe(false)
    expect(failure.status).toBe(400)
    expect(failure.limitTokens).toBe(STATED[kind])
    const window = STATED[kind] === undefined ? '' : ' (16000 tokens)'
    expect(failure.message).toMatch(
      new RegExp(
        `^.+'s model refused the request as longer than its context window${window.replace(/[()]/g, '\\$&')}: `,
      ),
    )
  })

  it('says who refused, in words for the person', async () => {
    fake.enqueue({ contextOverflow: { limitTokens: 200_000 } }, { contextOverflow: { limitTokens: 32_768 } })
    expect((await failureOf('anthropic')).message).toMatch(
      /^Anthropic's model refused the request as longer than its context window \(200000 tokens\): .*prompt is too long: 201000 tokens > 200000 maximum/,
    )
    expect((await failureOf('openai-chat')).message).toMatch(
      /^The OpenAI-compatible server's model refused the request as longer than its context window \(32768 tokens\)/,
    )
  })

  it.each([
    ['vllm', 8192],
    ['llama.cpp', 4096],
    ['lm-studio', 7866],
  ] as const)('openai-chat against %s: recognized, with the window', async (server, limitTokens) => {
    fake.enqueue({ contextOverflow: { limitTokens, server } })
    const failure = await failureOf('openai-chat')

    expect(isContextOverflow(failure)).toBe(true)
    expect(failure.retryable).toBe(false)
    expect(failure.limitTokens).toBe(limitTokens)
  })

  it('openai-responses: recognized when the stream itself reports it (an `error` event)', async () => {
    fake.enqueue({ contextOverflow: { limitTokens: 16_000, inStream: true } })
    const failure = await failureOf('openai-responses')

    expect(isContextOverflow(failure)).toBe(true)
    expect(failure.retryable).toBe(false)
    expect(failure.status).toBeUndefined()
    expect(failure.message).toContain('exceeds the context window of this model')
  })

  it.each(KINDS)('%s: streamWithRetry sends the request once and surfaces the overflow', async (kind) => {
    fake.enqueue({ contextOverflow: { limitTokens: 16_000 } }, { text: 'a second try would see this' })
    const notices: unknown[] = []
    const attempt = collect(
      streamWithRetry(
        adapterFor(kind),
        requestOf(),
        new AbortController().signal,
        { attempts: 4, baseDelayMs: 1, maxDelayMs: 5 },
        (notice) => notices.push(notice),
      ),
    )

    const failure = await attempt.catch((error: unknown) => error)
    expect(isContextOverflow(failure)).toBe(true)
    expect(notices).toEqual([])
    expect(fake.requestsOf(kind)).toHaveLength(1)
  })

  it('other refusals are not overflows', async () => {
    fake.enqueue({ status: 400 }, { status: 429 })
    expect(isContextOverflow(await failureOf('openai-chat'))).toBe(false)
    expect(isContextOverflow(await failureOf('gemini'))).toBe(false)
    expect(isContextOverflow(new Error('maximum context length is 10 tokens'))).toBe(false)
  })

  it.each([
    // Anthropic's older wording, for input and max_tokens together.
    [
      'anthropic',
      'input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease input length or `max_tokens` and try again',
      undefined,
      204_648,
    ],
    // llama.cpp before the figures were in the message: the type and n_ctx ride in the error object.
    [
      'openai-chat',
      'the request exceeds the available context size. try increasing the context size or enable context shift',
      { type: 'exceed_context_size_error', n_prompt_tokens: 1407, n_ctx: 256 },
      256,
    ],
    // LM Studio's other refusal.
    ['openai-chat', 'Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)', undefined, 7424],
    // Ollama, told not to truncate.
    ['openai-chat', 'the input length exceeds the context length', undefined, undefined],
    [
      'openai-chat',
      'the prompt is longer than the context length currently available to the model',
      undefined,
      undefined,
    ],
  ] as const)('%s: "%s" is an overflow', (kind, message, body, limitTokens) => {
    const error = Object.assign(new Error(`400 ${message}`), { status: 400, error: { message, ...body } })
    const failure = toProviderError(kind, error)

    expect(isContextOverflow(failure)).toBe(true)
    expect(failure.limitTokens).toBe(limitTokens)
  })

  it('keeps the window in the error payload, and existing call sites keep working', () => {
    const overflow = new ProviderError('provider_context_overflow', 'too long', false, 400, undefined, {
      limitTokens: 8192,
    })
    expect(overflow.toPayload()).toEqual({
      code: 'provider_context_overflow',
      message: 'too long',
      data: { status: 400, limitTokens: 8192 },
    })
    const limited = new ProviderError('provider_rate_limited', 'slow down', true, 429, 1000)
    expect(limited.limitTokens).toBeUndefined()
    expect(limited.toPayload()).toEqual({
      code: 'provider_rate_limited',
      message: 'slow down',
      data: { status: 429 },
    })
  })
})

describe('usage with prompt-cache reads', () => {
  it.each(KINDS)('%s: one usage event before done, the cached part of the prompt included', async (kind) => {
    fake.enqueue({
      text: 'Cached.',
      usage: { inputTokens: 1200, outputTokens: 80, cachedTokens: 1000, reasoningTokens: 30 },
    })
    const events = await collect(adapterFor(kind).stream(requestOf(), new AbortController().signal))

    const usages = events.filter((event) => event.type === 'usage')
    expect(usages).toEqual([
      { type: 'usage', usage: { inputTokens: 1200, outputTokens: 80, cachedTokens: 1000 } },
    ])
    expect(events.at(-2)).toEqual(usages[0])
    expect(events.at(-1)?.type).toBe('done')
  })

  it('anthropic: the whole prompt is the uncached rest plus cache reads plus cache writes', async () => {
    fake.enqueue({
      text: 'ok',
      usage: { inputTokens: 1500, outputTokens: 10, cachedTokens: 1000, cacheWriteTokens: 300 },
    })
    const events = await collect(adapterFor('anthropic').stream(requestOf(), new AbortController().signal))

    expect(events.filter((event) => event.type === 'usage')).toEqual([
      { type: 'usage', usage: { inputTokens: 1500, outputTokens: 10, cachedTokens: 1000 } },
    ])
  })

  it('openai-chat asks for usage in the stream and reads it from the chunk with no choices', async () => {
    fake.enqueue({
      toolCalls: [{ id: 'call_1', name: 'lookup', arguments: LOOKUP_TODO }],
      usage: { inputTokens: 50, outputTokens: 5, cachedTokens: 32 },
    })
    const events = await collect(adapterFor('openai-chat').stream(requestOf(), new AbortController().signal))

    expect(fake.requestsOf('openai-chat')[0]?.body.stream_options).toEqual({ include_usage: true })
    expect(events.slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 50, outputTokens: 5, cachedTokens: 32 } },
      { type: 'done', stopReason: 'tool_calls' },
    ])
  })
})

describe('a model’s context window from the listing', () => {
  it('gemini: models.get’s inputTokenLimit', async () => {
    fake.modelWindows = { 'fake-model-large': 1_048_576 }
    const adapter = adapterFor('gemini')

    expect(await adapter.contextWindowOf?.('fake-model-large')).toBe(1_048_576)
    expect(fake.requests.at(-1)).toMatchObject({ kind: 'models', method: 'GET' })
    expect(fake.requests.at(-1)?.path).toMatch(/^\/v1\w*\/models\/fake-model-large/)
    expect(await adapter.contextWindowOf?.('fake-model-small')).toBeUndefined()
    expect(await adapter.contextWindowOf?.('no-such-model')).toBeUndefined()
  })

  it('anthropic: models.retrieve’s max_input_tokens', async () => {
    fake.modelWindows = { 'fake-model-large': 200_000 }
    const adapter = adapterFor('anthropic')

    expect(await adapter.contextWindowOf?.('fake-model-large')).toBe(200_000)
    expect(fake.requests.at(-1)).toMatchObject({
      kind: 'models',
      method: 'GET',
      path: '/v1/models/fake-model-large',
    })
    expect(await adapter.contextWindowOf?.('fake-model-small')).toBeUndefined()
    expect(await adapter.contextWindowOf?.('no-such-model')).toBeUndefined()
  })

  it.each(['context_length', 'max_model_len', 'context_window', 'max_context_length'] as const)(
    'openai-chat: the listing entry’s %s',
    async (field) => {
      fake.modelWindows = { 'fake-model-large': 32_768 }
      fake.listingWindowField = field
      const adapter = adapterFor('openai-chat')

      expect(await adapter.contextWindowOf?.('fake-model-large')).toBe(32_768)
      expect(await adapter.contextWindowOf?.('fake-model-small')).toBeUndefined()
      expect(await adapter.contextWindowOf?.('no-such-model')).toBeUndefined()
    },
  )

  it('openai-responses: none from OpenAI itself (no request), the listing’s from a compatible server', async () => {
    const official = createProviderAdapter({ kind: 'openai-responses', apiKey: 'test-key' })
    expect(await official.contextWindowOf?.('gpt-5')).toBeUndefined()
    expect(fake.requests).toEqual([])

    fake.modelWindows = { 'fake-model-large': 131_072 }
    expect(await adapterFor('openai-responses').contextWindowOf?.('fake-model-large')).toBe(131_072)
  })

  it.each(KINDS)('%s: a failed lookup is undefined, never an error', async (kind) => {
    const unreachable = createProviderAdapter({
      kind,
      baseUrl: 'http://127.0.0.1:9/nothing',
      apiKey: 'test-key',
    })
    await expect(unreachable.contextWindowOf?.('fake-model-large')).resolves.toBeUndefined()
    const aborted = AbortSignal.abort()
    await expect(adapterFor(kind).contextWindowOf?.('fake-model-large', aborted)).resolves.toBeUndefined()
  })

  it('the listings say nothing of windows unless the fake was given some', async () => {
    expect(await adapterFor('openai-chat').contextWindowOf?.('fake-model-large')).toBeUndefined()
    expect(await adapterFor('gemini').contextWindowOf?.('fake-model-large')).toBeUndefined()
    expect(await adapterFor('anthropic').contextWindowOf?.('fake-model-large')).toBeUndefined()
  })
})

describe('gemini: a step whose thought signature is gone', () => {
  /** The model turn of the first request, as it went over the wire. */
  async function sentModelTurn(assistant: Extract<ModelMessage, { role: 'assistant' }>) {
    fake.enqueue({ text: 'ok' })
    const calls = assistant.parts.filter((part) => part.type === 'tool_call')
    await collect(
      adapterFor('gemini').stream(
        requestOf([
          { role: 'user', text: 'Find the TODOs.' },
          assistant,
          {
            role: 'tool',
            results: calls.map((call) => ({
              type: 'tool_result' as const,
              callId: call.id,
              name: call.name,
              content: 'none',
              isError: false,
            })),
          },
        ]),
        new AbortController().signal,
      ),
    )
    return fake.requestsOf('gemini')[0]?.body.contents[1]
  }

  it('a compacted parallel batch: the placeholder on its first call only', async () => {
    const model = await sentModelTurn({
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Looking.' },
        { type: 'tool_call', id: 'call_a', name: 'lookup', arguments: LOOKUP_TODO },
        { type: 'tool_call', id: 'call_b', name: 'lookup', arguments: LOOKUP_FIXME },
      ],
    })

    expect(model).toEqual({
      role: 'model',
      parts: [
        { text: 'Looking.' },
        {
          functionCall: { name: 'lookup', args: { pattern: 'TODO' } },
          thoughtSignature: PLACEHOLDER_THOUGHT_SIGNATURE,
        },
        { functionCall: { name: 'lookup', args: { pattern: 'FIXME' } } },
      ],
    })
    expect(PLACEHOLDER_THOUGHT_SIGNATURE).toBe('skip_thought_signature_validator')
  })

  it('a real signature goes back as it came, and no placeholder is added beside it', async () => {
    const model = await sentModelTurn({
      role: 'assistant',
      parts: [
        {
          type: 'tool_call',
          id: 'call_a',
          name: 'lookup',
          arguments: LOOKUP_TODO,
          providerData: { thoughtSignature: 'c2ln' },
        },
        { type: 'tool_call', id: 'call_b', name: 'lookup', arguments: LOOKUP_FIXME },
      ],
    })

    expect(model.parts.map((part: { thoughtSignature?: string }) => part.thoughtSignature)).toEqual([
      'c2ln',
      undefined,
    ])
  })

  it('a call Gemini made unsigned (its data kept, no signature) goes back unsigned', async () => {
    const model = await sentModelTurn({
      role: 'assistant',
      parts: [{ type: 'tool_call', id: 'call_a', name: 'lookup', arguments: LOOKUP_TODO, providerData: {} }],
    })

    expect(model.parts).toEqual([{ functionCall: { name: 'lookup', args: { pattern: 'TODO' } } }])
  })

  it('each step of a turn gets its own placeholder', async () => {
    fake.enqueue({ text: 'ok' })
    const result = (callId: string) => ({
      role: 'tool' as const,
      results: [{ type: 'tool_result' as const, callId, name: 'lookup', content: 'none', isError: false }],
    })
    await collect(
      adapterFor('gemini').stream(
        requestOf([
          { role: 'user', text: 'Find the TODOs, then the FIXMEs.' },
          {
            role: 'assistant',
            parts: [{ type: 'tool_call', id: 'call_a', name: 'lookup', arguments: LOOKUP_TODO }],
          },
          result('call_a'),
          {
            role: 'assistant',
            parts: [{ type: 'tool_call', id: 'call_b', name: 'lookup', arguments: LOOKUP_FIXME }],
          },
          result('call_b'),
        ]),
        new AbortController().signal,
      ),
    )
    const contents = fake.requestsOf('gemini')[0]?.body.contents
    const signatures = contents
      .filter((content: { role: string }) => content.role === 'model')
      .map((content: { parts: { thoughtSignature?: string }[] }) => content.parts[0]?.thoughtSignature)
    expect(signatures).toEqual([PLACEHOLDER_THOUGHT_SIGNATURE, PLACEHOLDER_THOUGHT_SIGNATURE])
  })
})
