/**
 * The fake provider is only worth something if the official SDKs cannot tell it from the real
 * service: each test drives an SDK straight at it and checks what the SDK assembled.
 */
import { crc32, inflateSync } from 'node:zlib'
import Anthropic from '@anthropic-ai/sdk'
import { ApiError, GoogleGenAI, type Part } from '@google/genai'
import OpenAI from 'openai'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  FAKE_PNG,
  type FakeKind,
  type FakeProvider,
  type ScriptedResponse,
  startFakeProvider,
} from '../../support/fake-provider'

let fake: FakeProvider

beforeEach(async () => {
  fake = await startFakeProvider()
})

afterEach(async () => {
  await fake.close()
})

const openai = () =>
  new OpenAI({ apiKey: 'test-key', baseURL: fake.baseUrlFor('openai-responses'), maxRetries: 0 })
const anthropic = () =>
  new Anthropic({ apiKey: 'test-key', baseURL: fake.baseUrlFor('anthropic'), maxRetries: 0 })
const gemini = () =>
  new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: fake.baseUrlFor('gemini') } })

const READ_ARGS = { path: 'src/index.ts', startLine: 3 }
const GREP_ARGS = { pattern: 'TODO', glob: '**/*.ts' }

/** Text and two parallel calls, the first with an id of ours, every piece split across chunks. */
const TWO_CALLS: ScriptedResponse = {
  text: 'Let me look at two things at once.',
  toolCalls: [
    { id: 'call_read', name: 'read_file', arguments: JSON.stringify(READ_ARGS) },
    { name: 'grep', arguments: JSON.stringify(GREP_ARGS) },
  ],
  reasoning: true,
  chunkSize: 5,
}

describe('OpenAI Responses through the openai SDK', () => {
  it('streams text, reasoning and two calls the SDK reads event by event', async () => {
    fake.enqueue(TWO_CALLS)
    const stream = await openai().responses.create({
      model: 'gpt-fake',
      input: 'hi',
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
    })
    const events = []
    for await (const event of stream) events.push(event)

    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index))
    const textDeltas = events.flatMap((event) =>
      event.type === 'response.output_text.delta' ? [event.delta] : [],
    )
    expect(textDeltas.length).toBeGreaterThan(1)
    expect(textDeltas.join('')).toBe(TWO_CALLS.text)
    const argumentDeltas = new Map<string, string[]>()
    for (const event of events) {
      if (event.type !== 'response.function_call_arguments.delta') continue
      argumentDeltas.set(event.item_id, [...(argumentDeltas.get(event.item_id) ?? []), event.delta])
    }

    const completed = events.at(-1)
    if (completed?.type !== 'response.completed') throw new Error(`last event was ${completed?.type}`)
    const [reasoning, message, ...calls] = completed.response.output
    expect(reasoning).toMatchObject({ type: 'reasoning', id: expect.stringMatching(/^rs_/), summary: [] })
    expect(reasoning?.type === 'reasoning' && reasoning.encrypted_content).toEqual(expect.any(String))
    expect(message).toMatchObject({
      type: 'message',
      content: [{ type: 'output_text', text: TWO_CALLS.text }],
    })
    expect(calls).toMatchObject([
      { type: 'function_call', id: expect.stringMatching(/^fc_/), call_id: 'call_read', name: 'read_file' },
      {
        type: 'function_call',
        id: expect.stringMatching(/^fc_/),
        call_id: expect.stringMatching(/^call_/),
        name: 'grep',
      },
    ])
    for (const call of calls) {
      if (call.type !== 'function_call' || !call.id) throw new Error('expected a function call with an id')
      expect(argumentDeltas.get(call.id)?.length).toBeGreaterThan(1)
      expect(argumentDeltas.get(call.id)?.join('')).toBe(call.arguments)
    }
    expect(calls.map((call) => call.type === 'function_call' && JSON.parse(call.arguments))).toEqual([
      READ_ARGS,
      GREP_ARGS,
    ])
    expect(completed.response.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15 })

    const [request] = fake.requestsOf('openai-responses')
    expect(request).toMatchObject({
      method: 'POST',
      path: '/v1/responses',
      body: { input: 'hi', stream: true },
    })
    expect(request?.headers.authorization).toBe('Bearer test-key')
  })

  it('is assembled by the SDK’s own stream helper into the same response', async () => {
    fake.enqueue(TWO_CALLS)
    const response = await openai().responses.stream({ model: 'gpt-fake', input: 'hi' }).finalResponse()

    expect(response.output_text).toBe(TWO_CALLS.text)
    const calls = response.output.filter((item) => item.type === 'function_call')
    expect(calls.map(({ call_id, name }) => ({ call_id, name }))).toEqual([
      { call_id: 'call_read', name: 'read_file' },
      { call_id: expect.stringMatching(/^call_/), name: 'grep' },
    ])
    expect(calls.map((call) => JSON.parse(call.arguments))).toEqual([READ_ARGS, GREP_ARGS])
  })
})

describe('OpenAI Chat Completions through the openai SDK', () => {
  it('streams content and tool calls by index, then a usage chunk', async () => {
    fake.enqueue(TWO_CALLS)
    const stream = await openai().chat.completions.create({
      model: 'gpt-fake',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    let text = ''
    let textChunks = 0
    const calls: { id?: string; name?: string; arguments: string; pieces: number }[] = []
    const finishes: (string | null)[] = []
    let usage: OpenAI.CompletionUsage | undefined | null
    for await (const chunk of stream) {
      usage = chunk.usage ?? usage
      const choice = chunk.choices[0]
      if (!choice) continue
      finishes.push(choice.finish_reason)
      if (choice.delta.content) {
        text += choice.delta.content
        textChunks++
      }
      for (const piece of choice.delta.tool_calls ?? []) {
        calls[piece.index] ??= { id: piece.id, name: piece.function?.name, arguments: '', pieces: 0 }
        const call = calls[piece.index]
        if (piece.function?.arguments) {
          call.arguments += piece.function.arguments
          call.pieces++
        }
      }
    }

    expect(text).toBe(TWO_CALLS.text)
    expect(textChunks).toBeGreaterThan(1)
    expect(calls).toMatchObject([
      { id: 'call_read', name: 'read_file', pieces: expect.any(Number) },
      { id: expect.stringMatching(/^call_/), name: 'grep' },
    ])
    expect(calls.every((call) => call.pieces > 1)).toBe(true)
    expect(calls.map((call) => JSON.parse(call.arguments))).toEqual([READ_ARGS, GREP_ARGS])
    expect(finishes.at(-1)).toBe('tool_calls')
    expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 })
    expect(fake.requestsOf('openai-chat')[0]).toMatchObject({ path: '/v1/chat/completions' })
  })

  it('is assembled by the SDK’s own stream helper into one completion', async () => {
    fake.enqueue({ text: 'Plain answer, no tools.', chunkSize: 3 })
    const completion = await openai()
      .chat.completions.stream({ model: 'gpt-fake', messages: [{ role: 'user', content: 'hi' }] })
      .finalChatCompletion()
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'Plain answer, no tools.' },
    })
  })
})

describe('Gemini through @google/genai', () => {
  it('streams text in pieces and each call whole, with its thought signature', async () => {
    fake.enqueue(TWO_CALLS)
    const stream = await gemini().models.generateContentStream({ model: 'gemini-fake', contents: 'hi' })
    const parts: Part[] = []
    const chunks = []
    for await (const chunk of stream) {
      chunks.push(chunk)
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []))
    }

    const texts = parts.flatMap((part) => (part.text ? [part.text] : []))
    expect(texts.length).toBeGreaterThan(1)
    expect(texts.join('')).toBe(TWO_CALLS.text)
    const calls = parts.filter((part) => part.functionCall)
    expect(calls.map((part) => part.functionCall)).toEqual([
      { id: 'call_read', name: 'read_file', args: READ_ARGS },
      { name: 'grep', args: GREP_ARGS },
    ])
    expect(calls.every((part) => typeof part.thoughtSignature === 'string')).toBe(true)
    const last = chunks.at(-1)
    expect(last?.candidates?.[0]?.finishReason).toBe('STOP')
    expect(last?.usageMetadata).toMatchObject({
      promptTokenCount: 10,
      candidatesTokenCount: 5,
      totalTokenCount: 15,
    })

    const [request] = fake.requestsOf('gemini')
    // @google/genai 3.x defaults to the v1 API, not v1beta.
    expect(request?.path).toBe('/v1/models/gemini-fake:streamGenerateContent?alt=sse')
    expect(request?.headers['x-goog-api-key']).toBe('test-key')
    expect(request?.body.contents).toEqual([{ role: 'user', parts: [{ text: 'hi' }] }])
  })
})

describe('Anthropic through @anthropic-ai/sdk', () => {
  it('streams a signed thinking block, text and two tool_use blocks the SDK assembles', async () => {
    fake.enqueue(TWO_CALLS)
    const stream = anthropic().messages.stream({
      model: 'claude-fake',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'hi' }],
    })
    const deltaTypes: string[] = []
    for await (const event of stream)
      if (event.type === 'content_block_delta') deltaTypes.push(event.delta.type)
    const message = await stream.finalMessage()

    const [thinking, text, ...toolUses] = message.content
    expect(thinking).toMatchObject({ type: 'thinking', thinking: expect.stringMatching(/\w/) })
    expect(thinking?.type === 'thinking' && thinking.signature).toMatch(/^[A-Za-z0-9+/]+=*$/)
    expect(text).toEqual({ type: 'text', text: TWO_CALLS.text })
    expect(toolUses).toEqual([
      { type: 'tool_use', id: 'call_read', name: 'read_file', input: READ_ARGS },
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'grep', input: GREP_ARGS },
    ])
    expect(message.stop_reason).toBe('tool_use')
    expect(message.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 })
    expect(deltaTypes.filter((type) => type === 'text_delta').length).toBeGreaterThan(1)
    expect(deltaTypes.filter((type) => type === 'input_json_delta').length).toBeGreaterThan(2)
    expect(deltaTypes).toContain('thinking_delta')
    expect(deltaTypes).toContain('signature_delta')

    const [request] = fake.requestsOf('anthropic')
    expect(request).toMatchObject({ path: '/v1/messages', body: { stream: true, max_tokens: 1024 } })
    // This SDK sends the API key as a bearer token, not as x-api-key.
    expect(request?.headers.authorization).toBe('Bearer test-key')
    expect(request?.headers['anthropic-version']).toEqual(expect.any(String))
  })
})

/** One streamed request through each SDK, drained; the assembled text comes back. */
const STREAM: Record<FakeKind, () => Promise<string>> = {
  'openai-responses': async () => {
    const stream = await openai().responses.create({ model: 'gpt-fake', input: 'hi', stream: true })
    let text = ''
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta
    return text
  },
  'openai-chat': async () => {
    const stream = await openai().chat.completions.create({
      model: 'gpt-fake',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    return text
  },
  gemini: async () => {
    const stream = await gemini().models.generateContentStream({ model: 'gemini-fake', contents: 'hi' })
    let text = ''
    for await (const chunk of stream) text += chunk.candidates?.[0]?.content?.parts?.[0]?.text ?? ''
    return text
  },
  anthropic: async () => {
    const message = await anthropic()
      .messages.stream({ model: 'claude-fake', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage()
    return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('')
  },
}

/** One non-streamed request through each SDK; the answer's text comes back. */
const COMPLETE: Record<FakeKind, () => Promise<string | null | undefined>> = {
  'openai-responses': async () =>
    (await openai().responses.create({ model: 'gpt-fake', input: 'hi' })).output_text,
  'openai-chat': async () =>
    (
      await openai().chat.completions.create({
        model: 'gpt-fake',
        messages: [{ role: 'user', content: 'hi' }],
      })
    ).choices[0]?.message.content,
  gemini: async () =>
    (await gemini().models.generateContent({ model: 'gemini-fake', contents: 'hi' })).candidates?.[0]?.content
      ?.parts?.[0]?.text,
  anthropic: async () => {
    const message = await anthropic().messages.create({
      model: 'claude-fake',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    })
    return message.content.find((block) => block.type === 'text')?.text
  },
}

const KINDS = Object.keys(STREAM) as FakeKind[]

/** The SDK's rate-limit error for each kind. */
function isRateLimitError(kind: FakeKind, error: unknown): boolean {
  if (kind === 'gemini') return error instanceof ApiError && error.status === 429
  if (kind === 'anthropic') return error instanceof Anthropic.RateLimitError && error.status === 429
  return error instanceof OpenAI.RateLimitError && error.status === 429
}

describe.each(KINDS)('%s: failures and plain answers', (kind) => {
  it('answers a 429 the SDK raises as its rate-limit error, with Retry-After', async () => {
    fake.enqueue({ status: 429, retryAfterSeconds: 7 })
    const error = await STREAM[kind]().catch((caught: unknown) => caught)
    expect(isRateLimitError(kind, error)).toBe(true)
    if (error instanceof OpenAI.APIError || error instanceof Anthropic.APIError) {
      expect(error.headers?.get('retry-after')).toBe('7')
    }
    expect(fake.requests).toHaveLength(1)
  })

  it('drops the connection mid-stream, and the SDK stream throws without retrying', async () => {
    fake.enqueue({ text: 'This answer never finishes arriving.', chunkSize: 4, dropAfterChunks: 4 })
    await expect(STREAM[kind]()).rejects.toThrow()
    expect(fake.requests).toHaveLength(1)
  })

  it('fails readably when the test scripted nothing', async () => {
    await expect(STREAM[kind]()).rejects.toThrow(/fake provider: no scripted response/)
    expect(fake.requests).toHaveLength(1)
  })

  it('answers the non-streaming form with the same text', async () => {
    fake.enqueue({ text: 'One piece, no stream.', reasoning: true })
    expect(await COMPLETE[kind]()).toBe('One piece, no stream.')
    expect(fake.requests[0]?.kind).toBe(kind)
  })

  it('serves the queue in order, one scripted response per request', async () => {
    fake.enqueue({ text: 'first' }, { text: 'second' })
    expect(await STREAM[kind]()).toBe('first')
    expect(await STREAM[kind]()).toBe('second')
  })
})

describe('stream pacing and shapes', () => {
  it('waits delayMs before each event', async () => {
    fake.enqueue({ text: 'abc', chunkSize: 1, delayMs: 25 })
    const started = performance.now()
    expect(await STREAM['openai-chat']()).toBe('abc')
    // A role chunk, three content chunks, a finish chunk and [DONE].
    expect(performance.now() - started).toBeGreaterThanOrEqual(6 * 25 - 5)
  })

  it('puts a Gemini thought signature on the first text part when there is no call', async () => {
    fake.enqueue({ text: 'Only words here.', reasoning: true, chunkSize: 4 })
    const stream = await gemini().models.generateContentStream({ model: 'gemini-fake', contents: 'hi' })
    const parts: Part[] = []
    for await (const chunk of stream) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []))
    expect(parts[0]?.thoughtSignature).toEqual(expect.any(String))
    expect(parts.slice(1).every((part) => part.thoughtSignature === undefined)).toBe(true)
  })

  it('sends no reasoning item when reasoning is off', async () => {
    fake.enqueue({ text: 'Plain.' })
    const response = await openai().responses.stream({ model: 'gpt-fake', input: 'hi' }).finalResponse()
    expect(response.output.map((item) => item.type)).toEqual(['message'])
  })
})

describe('what the fake cannot serve', () => {
  it('answers an unknown path 404 and records it as unknown', async () => {
    const response = await fetch(`${fake.baseUrlFor('openai-chat')}/embeddings`, {
      method: 'POST',
      body: '{}',
    })
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ error: { message: expect.stringMatching(/no route/) } })
    expect(fake.requests[0]).toMatchObject({ kind: 'unknown', path: '/v1/embeddings', body: {} })
  })

  it('answers 500 with the reason when a script does not fit the wire format', async () => {
    fake.enqueue({ toolCalls: [{ name: 'broken', arguments: '{"path":' }] })
    await expect(STREAM.gemini()).rejects.toThrow(/fake provider: SyntaxError/)
  })
})

describe('model lists', () => {
  it('lists the fake’s models through each SDK', async () => {
    fake.models = ['alpha', 'beta']
    const openaiIds: string[] = []
    for await (const model of openai().models.list()) openaiIds.push(model.id)
    const anthropicIds: string[] = []
    for await (const model of anthropic().models.list()) anthropicIds.push(model.id)
    const geminiModels = []
    for await (const model of await gemini().models.list()) geminiModels.push(model)

    expect(openaiIds).toEqual(['alpha', 'beta'])
    expect(anthropicIds).toEqual(['alpha', 'beta'])
    expect(geminiModels.map((model) => model.name)).toEqual(['models/alpha', 'models/beta'])
    expect(geminiModels[0]?.supportedActions).toContain('generateContent')
    expect(fake.requests.map(({ kind, path }) => ({ kind, path }))).toEqual([
      { kind: 'models', path: '/v1/models' },
      { kind: 'models', path: '/v1/models' },
      { kind: 'models', path: '/v1/models' },
    ])
  })

  it('tells the families apart by their headers when the base URL has no family prefix', async () => {
    fake.models = ['only']
    const bareOpenai = new OpenAI({ apiKey: 'test-key', baseURL: `${fake.url}/v1`, maxRetries: 0 })
    const bareAnthropic = new Anthropic({ apiKey: 'test-key', baseURL: fake.url, maxRetries: 0 })
    const bareGemini = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: fake.url } })

    expect((await bareOpenai.models.list()).data).toEqual([expect.objectContaining({ object: 'model' })])
    expect((await bareAnthropic.models.list()).data).toEqual([expect.objectContaining({ type: 'model' })])
    expect((await bareGemini.models.list()).page).toEqual([expect.objectContaining({ name: 'models/only' })])
  })
})

describe('image generation', () => {
  it('returns FAKE_PNG through client.images.generate, n times', async () => {
    const response = await openai().images.generate({ model: 'gpt-image-1', prompt: 'a red dot', n: 2 })
    expect(response.data).toHaveLength(2)
    for (const image of response.data ?? [])
      expect(Buffer.from(image.b64_json ?? '', 'base64')).toEqual(FAKE_PNG)
    expect(response.output_format).toBe('png')
    expect(fake.requests[0]).toMatchObject({ kind: 'images', path: '/v1/images/generations', body: { n: 2 } })
  })

  it('returns FAKE_PNG through ai.models.generateImages (Imagen :predict, Vertex mode)', async () => {
    // @google/genai 3.x serves generateImages in Vertex mode only; an API key makes it Vertex express.
    const vertex = new GoogleGenAI({
      vertexai: true,
      apiKey: 'test-key',
      httpOptions: { baseUrl: fake.baseUrlFor('gemini') },
    })
    const response = await vertex.models.generateImages({
      model: 'imagen-fake',
      prompt: 'a red dot',
      config: { numberOfImages: 2 },
    })
    const images = response.generatedImages ?? []
    expect(images).toHaveLength(2)
    for (const { image } of images) {
      expect(image?.mimeType).toBe('image/png')
      expect(Buffer.from(image?.imageBytes ?? '', 'base64')).toEqual(FAKE_PNG)
    }
    expect(fake.requests[0]).toMatchObject({
      kind: 'images',
      path: '/v1beta1/publishers/google/models/imagen-fake:predict',
      body: { instances: [{ prompt: 'a red dot' }], parameters: { sampleCount: 2 } },
    })
  })

  it('is refused by the Gemini API client of @google/genai before any request', async () => {
    await expect(
      gemini().models.generateImages({ model: 'imagen-fake', prompt: 'a red dot' }),
    ).rejects.toThrow(/only supported by the Gemini Enterprise Agent Platform/)
    expect(fake.requests).toHaveLength(0)
  })

  it('returns FAKE_PNG as inlineData from a Gemini image model’s generateContent', async () => {
    const response = await gemini().models.generateContent({
      model: 'gemini-fake-image',
      contents: 'a red dot',
      config: { responseModalities: ['IMAGE'] },
    })
    const part = response.candidates?.[0]?.content?.parts?.find((candidate) => candidate.inlineData)
    expect(part?.inlineData?.mimeType).toBe('image/png')
    expect(Buffer.from(part?.inlineData?.data ?? '', 'base64')).toEqual(FAKE_PNG)
    expect(fake.requests[0]?.kind).toBe('images')
  })

  it('answers scripted image errors in order, then succeeds again', async () => {
    fake.enqueueImages({ status: 500 }, { status: 429 })
    const client = openai()
    await expect(client.images.generate({ model: 'gpt-image-1', prompt: 'x' })).rejects.toBeInstanceOf(
      OpenAI.InternalServerError,
    )
    await expect(
      gemini().models.generateContent({ model: 'gemini-fake-image', contents: 'x' }),
    ).rejects.toMatchObject({ status: 429 })
    expect((await client.images.generate({ model: 'gpt-image-1', prompt: 'x' })).data).toHaveLength(1)
  })
})

describe('FAKE_PNG', () => {
  it('is a valid PNG: signature, checksummed chunks, and pixel data that inflates to its size', () => {
    expect(FAKE_PNG.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    const chunks = new Map<string, Buffer>()
    for (let offset = 8; offset < FAKE_PNG.length; ) {
      const length = FAKE_PNG.readUInt32BE(offset)
      const typeAndData = FAKE_PNG.subarray(offset + 4, offset + 8 + length)
      expect(FAKE_PNG.readUInt32BE(offset + 8 + length)).toBe(crc32(typeAndData))
      chunks.set(typeAndData.subarray(0, 4).toString('ascii'), typeAndData.subarray(4))
      offset += 12 + length
    }
    expect([...chunks.keys()]).toEqual(['IHDR', 'IDAT', 'IEND'])
    const header = chunks.get('IHDR') ?? Buffer.alloc(0)
    const [width, height] = [header.readUInt32BE(0), header.readUInt32BE(4)]
    // 8-bit RGBA: a filter byte and four bytes a pixel on every row.
    expect(header.subarray(8, 10)).toEqual(Buffer.from([8, 6]))
    expect(inflateSync(chunks.get('IDAT') ?? Buffer.alloc(0))).toHaveLength(height * (1 + width * 4))
  })
})
