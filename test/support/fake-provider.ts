/**
 * A local stand-in for four LLM provider APIs (OpenAI Responses, OpenAI Chat Completions, Gemini,
 * Anthropic Messages), faithful enough on the wire that the official SDKs parse its answers as they
 * would the real service's. Tests script answers with `enqueue`, point an SDK (or an adapter) at
 * `baseUrlFor(kind)`, and then read what the SDK sent in `requests`.
 *
 * Each protocol family lives under a path prefix of its own (`/openai`, `/anthropic`, `/gemini`), so
 * routing never depends on headers. Requests without a prefix are told apart the way the services
 * tell them apart: `anthropic-version` marks Anthropic, the `x-goog-…` headers mark Gemini.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type FakeKind = 'openai-responses' | 'openai-chat' | 'gemini' | 'anthropic'

export interface ScriptedToolCall {
  /** The call id the provider reports; generated in the provider's style when left out (Gemini: none). */
  id?: string
  name: string
  /** JSON text, streamed in pieces of `chunkSize` characters (Gemini sends it whole, parsed). */
  arguments: string
}

export interface ScriptedResponse {
  /** Assistant text, streamed in chunks of `chunkSize` characters. */
  text?: string
  /** Several allowed in one response (parallel calls). */
  toolCalls?: ScriptedToolCall[]
  /**
   * Include the provider's opaque reasoning: an OpenAI Responses `reasoning` output item with
   * `encrypted_content`, a Gemini `thoughtSignature` on each functionCall part (on the first text part
   * when there is no call), an Anthropic `thinking` block with its `signature` before the other blocks.
   * openai-chat ignores it.
   */
  reasoning?: boolean
  /** Characters per text delta and per tool-argument delta (default 8). */
  chunkSize?: number
  /** Wait this long before each SSE event (and before a JSON or error answer). */
  delayMs?: number
  /** Answer with this HTTP error status and the provider's JSON error body instead of a stream. */
  status?: number
  /** The error body's message on an error answer (default `fake provider: scripted <status>`). */
  errorMessage?: string
  /** Sets a Retry-After header (seconds) on an error answer. */
  retryAfterSeconds?: number
  /** Write this many SSE events (pings and `[DONE]` included), then destroy the socket. */
  dropAfterChunks?: number
  /**
   * The response's tokens in the neutral sense (inputTokens the whole prompt, cached part included;
   * outputTokens all output, reasoning included), told in each wire's own fields: OpenAI
   * `input_tokens_details.cached_tokens` / `prompt_tokens_details.cached_tokens`, Anthropic
   * `input_tokens` (the uncached rest) + `cache_read_input_tokens` + `cache_creation_input_tokens`,
   * Gemini `promptTokenCount` + `cachedContentTokenCount`, `candidatesTokenCount` + `thoughtsTokenCount`.
   */
  usage?: ScriptedUsage
  /** Refuse the request as longer than the model's context window, in the provider's own words. */
  contextOverflow?: ScriptedOverflow
  /**
   * The provider's own web search, run before the text, which cites every page it found: a Responses
   * `web_search_call` item and `url_citation` annotations on the text; Gemini grounding metadata
   * (queries, chunks, supports) on the last chunk; Anthropic `server_tool_use` and
   * `web_search_tool_result` blocks, and a `citations_delta` per page in the text block.
   */
  webSearch?: ScriptedWebSearch
  /**
   * Answers only a request whose body (as JSON text) contains this text: the first such script in
   * the queue is taken, so requests that run side by side (a parent and its subagents) each get
   * theirs whatever their order. A script without it answers any request.
   */
  whenRequestHas?: string
}

export interface ScriptedWebSearch {
  query: string
  sources: { url: string; title: string }[]
}

export interface ScriptedUsage {
  inputTokens: number
  outputTokens: number
  /** Read from the prompt cache (part of inputTokens). Without it OpenAI and Anthropic report 0, Gemini nothing. */
  cachedTokens?: number
  /** Anthropic only: written to the prompt cache (part of inputTokens). */
  cacheWriteTokens?: number
  /** Reasoning (part of outputTokens): OpenAI `reasoning_tokens`, Gemini `thoughtsTokenCount`. */
  reasoningTokens?: number
}

/**
 * A context-window refusal as each service words it (wording from public reports of the real errors):
 * - openai-responses: 400 `context_length_exceeded` "Your input exceeds the context window of this
 *   model…" (states no figure); `inStream` sends it instead as an `error` event after
 *   `response.created`, as the streaming Responses API does.
 * - openai-chat: `server` picks whose: OpenAI (default; code `context_length_exceeded`, "This model's
 *   maximum context length is N tokens…"), vLLM (same words, a top-level error object), llama.cpp
 *   (`exceed_context_size_error` with `n_ctx`), LM Studio ("…context length of only N tokens…").
 * - anthropic: 400 invalid_request_error "prompt is too long: P tokens > N maximum".
 * - gemini: 400 INVALID_ARGUMENT "The input token count (P) exceeds the maximum number of tokens allowed (N)."
 */
export interface ScriptedOverflow {
  limitTokens: number
  /** What the request came to (default limitTokens + 1000). */
  promptTokens?: number
  server?: 'openai' | 'vllm' | 'llama.cpp' | 'lm-studio'
  inStream?: boolean
}

/** One answer of an image endpoint; the default is success. */
export interface ScriptedImage {
  status?: number
  delayMs?: number
}

export interface RecordedRequest {
  /** `unknown` for a request no endpoint of the fake serves (it was answered 404). */
  kind: FakeKind | 'images' | 'models' | 'unknown'
  method: string
  /** The path as the provider would see it (without the fake's family prefix), query included. */
  path: string
  headers: Record<string, string | string[] | undefined>
  // biome-ignore lint/suspicious/noExplicitAny: tests read deep into request bodies of four wire formats.
  body: any
}

export interface FakeProvider {
  /** http://127.0.0.1:PORT */
  url: string
  /** Exactly what to pass as the SDK's base URL for that kind. */
  baseUrlFor(kind: FakeKind): string
  /** One FIFO queue used by all chat kinds, in order. */
  enqueue(...responses: ScriptedResponse[]): void
  /** FIFO for image requests; when empty, images succeed. */
  enqueueImages(...images: ScriptedImage[]): void
  /** Ids returned by the model-list endpoints (mutable). */
  models: string[]
  /**
   * Whether the model listing is served (mutable; default true). False: it answers 404, as servers
   * that speak chat but list no models do (some proxies, llama.cpp builds, hosted gateways).
   */
  listsModels: boolean
  /**
   * Context windows by model id, reported as each wire reports them (mutable; empty: none): Gemini's
   * `inputTokenLimit` (listing and models.get), Anthropic's `max_input_tokens` (models.retrieve), and
   * the OpenAI-compatible listing's `listingWindowField`.
   */
  modelWindows: Record<string, number>
  /** The /v1/models field an OpenAI-compatible server puts the window in (default `context_length`). */
  listingWindowField: 'context_length' | 'max_model_len' | 'context_window' | 'max_context_length'
  /** Every request received, in order. */
  requests: RecordedRequest[]
  /** Requests of one chat kind only (convenience). */
  requestsOf(kind: FakeKind): RecordedRequest[]
  close(): Promise<void>
}

/** A valid 1×1 RGBA PNG, what every image endpoint returns (base64-encoded). */
export const FAKE_PNG: Buffer = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)

export const NO_SCRIPTED_RESPONSE = 'fake provider: no scripted response'

type Family = 'openai' | 'anthropic' | 'gemini'

const PREFIX: Record<Family, string> = { openai: '/openai', anthropic: '/anthropic', gemini: '/gemini' }

const FAMILY_OF: Record<FakeKind, Family> = {
  'openai-responses': 'openai',
  'openai-chat': 'openai',
  gemini: 'gemini',
  anthropic: 'anthropic',
}

export async function startFakeProvider(): Promise<FakeProvider> {
  const chatQueue: ScriptedResponse[] = []
  const imageQueue: ScriptedImage[] = []
  const requests: RecordedRequest[] = []
  const server = createServer((req, res) => void handle(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const fake: FakeProvider = {
    url,
    baseUrlFor: (kind) => {
      const family = FAMILY_OF[kind]
      // The OpenAI SDK's base URL includes the version; Anthropic's and Gemini's SDKs add their own.
      return family === 'openai' ? `${url}${PREFIX.openai}/v1` : `${url}${PREFIX[family]}`
    },
    enqueue: (...responses) => {
      chatQueue.push(...responses)
    },
    enqueueImages: (...images) => {
      imageQueue.push(...images)
    },
    models: ['fake-model-large', 'fake-model-small', 'fake-model-image'],
    listsModels: true,
    modelWindows: {},
    listingWindowField: 'context_length',
    requests,
    requestsOf: (kind) => requests.filter((request) => request.kind === kind),
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      )
    },
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req).catch(() => undefined)
    const method = req.method ?? 'GET'
    const target = new URL(req.url ?? '/', url)
    const { family, path } = familyOf(target.pathname, req.headers)
    const route = routeOf(family, method, path, body)
    requests.push({ kind: route.kind, method, path: path + target.search, headers: req.headers, body })
    res.socket?.setNoDelay(true)
    if (route.kind === 'unknown') {
      return sendError(res, family, 404, `fake provider: no route for ${method} ${path}`)
    }
    try {
      await respond(res, family, route, body)
    } catch (error) {
      // A script the wire format cannot carry (say, Gemini arguments that are not JSON).
      if (res.headersSent) res.destroy()
      else sendError(res, family, 500, `fake provider: ${String(error)}`, { 'x-should-retry': 'false' })
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: a request body of any of the four wire formats.
  async function respond(res: ServerResponse, family: Family, route: KnownRoute, body: any): Promise<void> {
    if (route.kind === 'models') {
      if (route.model === undefined) {
        if (!fake.listsModels)
          return sendError(res, family, 404, 'fake provider: this server lists no models')
        return sendJson(res, family, MODEL_LISTS[family](fake))
      }
      const known = fake.models.includes(route.model) || route.model in fake.modelWindows
      if (!known) return sendError(res, family, 404, `fake provider: no model ${route.model}`)
      return sendJson(res, family, MODEL_ENTRIES[family](fake, route.model))
    }
    if (route.kind === 'images') {
      const script = imageQueue.shift() ?? {}
      await sleep(script.delayMs)
      if (script.status)
        return sendError(res, family, script.status, `fake provider: scripted ${script.status}`)
      return sendJson(res, family, route.render())
    }

    const text = chatQueue.some((script) => script.whenRequestHas) ? JSON.stringify(body) : ''
    const index = chatQueue.findIndex(
      (script) => !script.whenRequestHas || text.includes(script.whenRequestHas),
    )
    const script = index === -1 ? undefined : chatQueue.splice(index, 1)[0]
    // Fail at once and readably: SDKs that retry a 500 are told not to.
    if (!script) return sendError(res, family, 500, NO_SCRIPTED_RESPONSE, { 'x-should-retry': 'false' })
    if (script.status) {
      await sleep(script.delayMs)
      const headers: Record<string, string> = {}
      if (script.retryAfterSeconds !== undefined) headers['retry-after'] = String(script.retryAfterSeconds)
      const message = script.errorMessage ?? `fake provider: scripted ${script.status}`
      return sendError(res, family, script.status, message, headers)
    }
    if (script.contextOverflow) {
      await sleep(script.delayMs)
      const overflow = script.contextOverflow
      if (route.kind === 'openai-responses' && route.stream && overflow.inStream) {
        return writeStream(res, family, responsesOverflowStream(route.model, body), {})
      }
      return sendJson(res, family, OVERFLOW_BODIES[route.kind](overflow), 400)
    }
    const renderer = RENDERERS[route.kind]
    const turn = turnOf(script)
    const context: TurnContext = { model: route.model, body }
    if (!route.stream) {
      await sleep(script.delayMs)
      return sendJson(res, family, renderer.json(turn, context))
    }
    await writeStream(res, family, renderer.stream(turn, context), script)
  }

  return fake
}

// ── Routing ────────────────────────────────────────────────────────────────────────────────────────

type Route =
  | { kind: FakeKind; model: string; stream: boolean }
  | { kind: 'images'; render: () => unknown }
  /** `model`: one model's entry (Gemini models.get, Anthropic models.retrieve); none: the listing. */
  | { kind: 'models'; model?: string }
  | { kind: 'unknown' }

type KnownRoute = Exclude<Route, { kind: 'unknown' }>

function familyOf(pathname: string, headers: IncomingHttpHeaders): { family: Family; path: string } {
  for (const family of ['openai', 'anthropic', 'gemini'] as const) {
    const prefix = PREFIX[family]
    if (pathname === prefix || pathname.startsWith(`${prefix}/`)) {
      return { family, path: pathname.slice(prefix.length) || '/' }
    }
  }
  if (headers['anthropic-version']) return { family: 'anthropic', path: pathname }
  if (headers['x-goog-api-key'] || headers['x-goog-api-client']) return { family: 'gemini', path: pathname }
  return { family: 'openai', path: pathname }
}

// biome-ignore lint/suspicious/noExplicitAny: a request body of any of the four wire formats.
function routeOf(family: Family, method: string, path: string, body: any): Route {
  if (family === 'openai') {
    if (method === 'POST' && path === '/v1/responses') {
      return { kind: 'openai-responses', model: body?.model ?? '', stream: body?.stream === true }
    }
    if (method === 'POST' && path === '/v1/chat/completions') {
      return { kind: 'openai-chat', model: body?.model ?? '', stream: body?.stream === true }
    }
    if (method === 'GET' && path === '/v1/models') return { kind: 'models' }
    if (method === 'POST' && path === '/v1/images/generations') {
      return { kind: 'images', render: () => openaiImages(body?.model, body?.n ?? 1) }
    }
    return { kind: 'unknown' }
  }
  if (family === 'anthropic') {
    if (method === 'POST' && path === '/v1/messages') {
      return { kind: 'anthropic', model: body?.model ?? '', stream: body?.stream === true }
    }
    if (method === 'GET' && path === '/v1/models') return { kind: 'models' }
    const entry = /^\/v1\/models\/([^/]+)$/.exec(path)
    if (method === 'GET' && entry) return { kind: 'models', model: decodeURIComponent(entry[1] ?? '') }
    return { kind: 'unknown' }
  }
  // Gemini: /{version}/models/{model}:{method}; Vertex mode puts publishers/… or projects/… before models.
  if (method === 'GET' && /^\/v1\w*\/models$/.test(path)) return { kind: 'models' }
  const entry = /^\/v1\w*\/models\/([^/:]+)$/.exec(path)
  if (method === 'GET' && entry) return { kind: 'models', model: decodeURIComponent(entry[1] ?? '') }
  const call = /^\/v1\w*\/(?:.*\/)?models\/([^/:]+):(\w+)$/.exec(path)
  if (method !== 'POST' || !call) return { kind: 'unknown' }
  const [, model = '', action] = call
  if (action === 'predict') {
    return { kind: 'images', render: () => imagenPredictions(body?.parameters?.sampleCount ?? 1) }
  }
  if (action === 'generateContent' && model.includes('image')) {
    return { kind: 'images', render: () => geminiImage(model) }
  }
  if (action === 'generateContent') return { kind: 'gemini', model, stream: false }
  if (action === 'streamGenerateContent') return { kind: 'gemini', model, stream: true }
  return { kind: 'unknown' }
}

// ── Plumbing ───────────────────────────────────────────────────────────────────────────────────────

interface SseEvent {
  event?: string
  data: string
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function sleep(ms: number | undefined): Promise<void> {
  return ms ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve()
}

function id(prefix: string, bytes = 12): string {
  return `${prefix}${randomBytes(bytes).toString('hex')}`
}

/** An opaque base64 token, as providers hand out for reasoning state. */
function opaqueToken(): string {
  return randomBytes(48).toString('base64')
}

function requestIdHeader(family: Family): Record<string, string> {
  if (family === 'openai') return { 'x-request-id': id('req_') }
  if (family === 'anthropic') return { 'request-id': id('req_') }
  return {}
}

function sendJson(res: ServerResponse, family: Family, body: unknown, status = 200, headers = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...requestIdHeader(family), ...headers })
  res.end(JSON.stringify(body))
}

function sendError(
  res: ServerResponse,
  family: Family,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, family, ERROR_BODIES[family](status, message), status, headers)
}

/** Writes the events one by one (after `delayMs` each), or drops the connection after `dropAfterChunks`. */
async function writeStream(
  res: ServerResponse,
  family: Family,
  events: SseEvent[],
  script: Pick<ScriptedResponse, 'delayMs' | 'dropAfterChunks'>,
) {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...requestIdHeader(family),
  })
  res.flushHeaders()
  // Gemini ends its events with CRLF pairs (@google/genai splits on \n\n, \r\r and \r\n\r\n alike).
  const end = family === 'gemini' ? '\r\n\r\n' : '\n\n'
  for (const [index, { event, data }] of events.entries()) {
    if (index === script.dropAfterChunks) {
      res.destroy()
      return
    }
    await sleep(script.delayMs)
    if (res.destroyed) return
    await new Promise<void>((resolve) =>
      res.write(`${event ? `event: ${event}\n` : ''}data: ${data}${end}`, () => resolve()),
    )
  }
  res.end()
}

// ── Errors and model lists ─────────────────────────────────────────────────────────────────────────

/** Each provider's words for an HTTP error status: OpenAI type and code, Anthropic type, Gemini status. */
const ERROR_NAMES: Record<number, [string, string | null, string, string]> = {
  400: ['invalid_request_error', null, 'invalid_request_error', 'INVALID_ARGUMENT'],
  401: ['invalid_request_error', 'invalid_api_key', 'authentication_error', 'UNAUTHENTICATED'],
  403: ['invalid_request_error', null, 'permission_error', 'PERMISSION_DENIED'],
  404: ['invalid_request_error', 'model_not_found', 'not_found_error', 'NOT_FOUND'],
  413: ['invalid_request_error', null, 'request_too_large', 'INVALID_ARGUMENT'],
  429: ['requests', 'rate_limit_exceeded', 'rate_limit_error', 'RESOURCE_EXHAUSTED'],
  500: ['server_error', null, 'api_error', 'INTERNAL'],
  503: ['server_error', null, 'api_error', 'UNAVAILABLE'],
  529: ['server_error', null, 'overloaded_error', 'UNAVAILABLE'],
}

function errorNames(status: number) {
  const [openaiType, openaiCode, anthropicType, geminiStatus] =
    ERROR_NAMES[status] ?? ERROR_NAMES[status >= 500 ? 500 : 400] ?? []
  return { openaiType, openaiCode, anthropicType, geminiStatus }
}

const ERROR_BODIES: Record<Family, (status: number, message: string) => unknown> = {
  openai: (status, message) => {
    const { openaiType, openaiCode } = errorNames(status)
    return { error: { message, type: openaiType, param: null, code: openaiCode } }
  },
  anthropic: (status, message) => ({
    type: 'error',
    error: { type: errorNames(status).anthropicType, message },
    request_id: id('req_'),
  }),
  gemini: (status, message) => ({
    error: { code: status, message, status: errorNames(status).geminiStatus },
  }),
}

/** One model as each family lists it, with its window where the fake was given one. */
const MODEL_ENTRIES: Record<Family, (fake: FakeProvider, model: string) => object> = {
  openai: (fake, model) => {
    const window = fake.modelWindows[model]
    return {
      id: model,
      object: 'model',
      created: 1_700_000_000,
      owned_by: 'fake',
      ...(window !== undefined && { [fake.listingWindowField]: window }),
    }
  },
  anthropic: (fake, model) => {
    const window = fake.modelWindows[model]
    return {
      id: model,
      type: 'model',
      display_name: model,
      created_at: '2025-01-01T00:00:00Z',
      ...(window !== undefined && { max_input_tokens: window }),
    }
  },
  gemini: (fake, model) => {
    const window = fake.modelWindows[model]
    return {
      name: `models/${model}`,
      displayName: model,
      supportedGenerationMethods: ['generateContent', 'countTokens'],
      ...(window !== undefined && { inputTokenLimit: window }),
    }
  },
}

const MODEL_LISTS: Record<Family, (fake: FakeProvider) => unknown> = {
  openai: (fake) => ({
    object: 'list',
    data: fake.models.map((model) => MODEL_ENTRIES.openai(fake, model)),
  }),
  anthropic: (fake) => ({
    data: fake.models.map((model) => MODEL_ENTRIES.anthropic(fake, model)),
    has_more: false,
    first_id: fake.models[0] ?? null,
    last_id: fake.models.at(-1) ?? null,
  }),
  gemini: (fake) => ({
    models: fake.models.map((model) => MODEL_ENTRIES.gemini(fake, model)),
  }),
}

// ── Context overflow ───────────────────────────────────────────────────────────────────────────────

const RESPONSES_OVERFLOW = {
  type: 'invalid_request_error',
  code: 'context_length_exceeded',
  message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
  param: 'input',
}

/** The 400 body of a request longer than the context window, in each service's words. */
const OVERFLOW_BODIES: Record<FakeKind, (overflow: ScriptedOverflow) => unknown> = {
  'openai-responses': () => ({ error: RESPONSES_OVERFLOW }),
  'openai-chat': (overflow) => {
    const limit = overflow.limitTokens
    const prompt = promptTokensOf(overflow)
    switch (overflow.server ?? 'openai') {
      case 'openai':
        return {
          error: {
            message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${prompt} tokens. Please reduce the length of the messages.`,
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        }
      case 'vllm':
        return {
          object: 'error',
          message: `This model's maximum context length is ${limit} tokens. However, you requested ${prompt} tokens (${prompt - 1000} in the messages, 1000 in the completion). Please reduce the length of the messages or completion.`,
          type: 'BadRequestError',
          param: null,
          code: 400,
        }
      case 'llama.cpp':
        return {
          error: {
            code: 400,
            message: `request (${prompt} tokens) exceeds the available context size (${limit} tokens), try increasing it`,
            type: 'exceed_context_size_error',
            n_prompt_tokens: prompt,
            n_ctx: limit,
          },
        }
      case 'lm-studio':
        return {
          error: `Trying to keep the first ${prompt} tokens when context the overflows. However, the model is loaded with context length of only ${limit} tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input`,
        }
    }
  },
  anthropic: (overflow) => ({
    type: 'error',
    error: {
      type: 'invalid_request_error',
      message: `prompt is too long: ${promptTokensOf(overflow)} tokens > ${overflow.limitTokens} maximum`,
    },
    request_id: id('req_'),
  }),
  gemini: (overflow) => {
    const message = `The input token count (${promptTokensOf(overflow)}) exceeds the maximum number of tokens allowed (${overflow.limitTokens}).`
    return {
      error: {
        code: 400,
        message,
        errors: [{ message, domain: 'global', reason: 'badRequest' }],
        status: 'INVALID_ARGUMENT',
      },
    }
  },
}

function promptTokensOf(overflow: ScriptedOverflow): number {
  return overflow.promptTokens ?? overflow.limitTokens + 1000
}

/** The streaming Responses API's refusal: the response is created, then an `error` event ends it. */
// biome-ignore lint/suspicious/noExplicitAny: the request body, echoed where the provider echoes it.
function responsesOverflowStream(model: string, body: any): SseEvent[] {
  const response = {
    id: id('resp_', 24),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'in_progress',
    error: null,
    incomplete_details: null,
    instructions: body?.instructions ?? null,
    model,
    output: [],
    usage: null,
  }
  const event = (type: string, sequence: number, fields: object): SseEvent => ({
    event: type,
    data: JSON.stringify({ type, sequence_number: sequence, ...fields }),
  })
  return [
    event('response.created', 0, { response }),
    event('response.in_progress', 1, { response }),
    event('error', 2, { error: RESPONSES_OVERFLOW }),
  ]
}

// ── Images ─────────────────────────────────────────────────────────────────────────────────────────

function openaiImages(model: string | undefined, count: number) {
  return {
    created: Math.floor(Date.now() / 1000),
    data: Array.from({ length: count }, () => ({ b64_json: FAKE_PNG.toString('base64') })),
    output_format: 'png',
    size: '1024x1024',
    quality: 'low',
    ...(model?.startsWith('gpt-image') && {
      usage: {
        input_tokens: 10,
        output_tokens: 100,
        total_tokens: 110,
        input_tokens_details: { text_tokens: 10 },
      },
    }),
  }
}

function imagenPredictions(count: number) {
  return {
    predictions: Array.from({ length: count }, () => ({
      bytesBase64Encoded: FAKE_PNG.toString('base64'),
      mimeType: 'image/png',
    })),
  }
}

function geminiImage(model: string) {
  return {
    candidates: [
      {
        content: {
          role: 'model',
          parts: [{ inlineData: { mimeType: 'image/png', data: FAKE_PNG.toString('base64') } }],
        },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1290, totalTokenCount: 1300 },
    modelVersion: model,
    responseId: id(''),
  }
}

// ── Chat turns ─────────────────────────────────────────────────────────────────────────────────────

/** A scripted response with its defaults filled in, ready to render. */
interface Turn {
  text: string | undefined
  calls: ScriptedToolCall[]
  reasoning: boolean
  webSearch: ScriptedWebSearch | undefined
  /** Splits text or arguments into the deltas the stream sends. */
  pieces(text: string): string[]
  usage: ScriptedUsage
}

interface TurnContext {
  model: string
  // biome-ignore lint/suspicious/noExplicitAny: the request body, echoed where the provider echoes it.
  body: any
}

interface Renderer {
  stream(turn: Turn, context: TurnContext): SseEvent[]
  json(turn: Turn, context: TurnContext): unknown
}

function turnOf(script: ScriptedResponse): Turn {
  const size = Math.max(1, script.chunkSize ?? 8)
  return {
    text: script.text,
    calls: script.toolCalls ?? [],
    reasoning: script.reasoning ?? false,
    webSearch: script.webSearch,
    pieces: (text) => {
      const characters = Array.from(text)
      const pieces: string[] = []
      for (let start = 0; start < characters.length; start += size) {
        pieces.push(characters.slice(start, start + size).join(''))
      }
      return pieces
    },
    usage: script.usage ?? { inputTokens: 10, outputTokens: 5 },
  }
}

const THINKING = 'The user asked something; the fake provider thinks about it briefly.'

const RENDERERS: Record<FakeKind, Renderer> = {
  'openai-responses': {
    stream: (turn, context) => responsesTurn(turn, context).events,
    json: (turn, context) => responsesTurn(turn, context).response,
  },
  'openai-chat': { stream: chatStream, json: chatJson },
  gemini: { stream: geminiStream, json: geminiJson },
  anthropic: { stream: anthropicStream, json: anthropicJson },
}

// OpenAI Responses: lifecycle events around one added…done bracket per output item.

function responsesTurn(turn: Turn, { model, body }: TurnContext) {
  const events: SseEvent[] = []
  let sequence = 0
  const emit = (type: string, fields: object) => {
    events.push({ event: type, data: JSON.stringify({ type, sequence_number: sequence++, ...fields }) })
  }
  const responseId = id('resp_', 24)
  const createdAt = Math.floor(Date.now() / 1000)
  const snapshot = (status: string, output: unknown[], usage: unknown) => ({
    id: responseId,
    object: 'response',
    created_at: createdAt,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body?.instructions ?? null,
    max_output_tokens: body?.max_output_tokens ?? null,
    model,
    output,
    parallel_tool_calls: body?.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: body?.reasoning ?? { effort: null, summary: null },
    store: body?.store ?? true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: body?.tools ?? [],
    top_p: 1,
    truncation: 'disabled',
    usage,
    metadata: {},
  })
  const output: object[] = []
  const item = (added: object, done: object, between: (outputIndex: number) => void = () => {}) => {
    const output_index = output.length
    emit('response.output_item.added', { output_index, item: added })
    between(output_index)
    emit('response.output_item.done', { output_index, item: done })
    output.push(done)
  }

  emit('response.created', { response: snapshot('in_progress', [], null) })
  emit('response.in_progress', { response: snapshot('in_progress', [], null) })
  if (turn.reasoning) {
    const reasoning = { id: id('rs_', 24), type: 'reasoning', summary: [] }
    item(reasoning, { ...reasoning, encrypted_content: opaqueToken() })
  }
  const search = turn.webSearch
  if (search) {
    const call = { id: id('ws_', 24), type: 'web_search_call' }
    const sources = search.sources.map(({ url }) => ({ type: 'url', url }))
    item(
      { ...call, status: 'in_progress', action: { type: 'search', query: search.query } },
      { ...call, status: 'completed', action: { type: 'search', query: search.query, sources } },
    )
  }
  if (turn.text !== undefined) {
    const text = turn.text
    const message = { id: id('msg_', 24), type: 'message', role: 'assistant' }
    const part = { type: 'output_text', annotations: [], logprobs: [], text: '' }
    const annotations = (search?.sources ?? []).map(({ url, title }) => ({
      type: 'url_citation',
      start_index: 0,
      end_index: text.length,
      url,
      title,
    }))
    const fullPart = { ...part, annotations, text }
    item(
      { ...message, status: 'in_progress', content: [] },
      { ...message, status: 'completed', content: [fullPart] },
      (output_index) => {
        const at = { item_id: message.id, output_index, content_index: 0 }
        emit('response.content_part.added', { ...at, part })
        for (const delta of turn.pieces(text))
          emit('response.output_text.delta', { ...at, delta, logprobs: [] })
        emit('response.output_text.done', { ...at, text, logprobs: [] })
        emit('response.content_part.done', { ...at, part: fullPart })
      },
    )
  }
  for (const scripted of turn.calls) {
    const call = {
      id: id('fc_', 24),
      type: 'function_call',
      call_id: scripted.id ?? id('call_'),
      name: scripted.name,
    }
    item(
      { ...call, status: 'in_progress', arguments: '' },
      { ...call, status: 'completed', arguments: scripted.arguments },
      (output_index) => {
        const at = { item_id: call.id, output_index }
        for (const delta of turn.pieces(scripted.arguments)) {
          emit('response.function_call_arguments.delta', { ...at, delta })
        }
        emit('response.function_call_arguments.done', { ...at, arguments: scripted.arguments })
      },
    )
  }
  const { inputTokens, outputTokens, cachedTokens = 0, reasoningTokens = 0 } = turn.usage
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: cachedTokens },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: inputTokens + outputTokens,
  }
  const response = { ...snapshot('completed', output, usage), completed_at: Math.floor(Date.now() / 1000) }
  emit('response.completed', { response })
  return { events, response }
}

// OpenAI Chat Completions: one delta per chunk, tool calls by index, usage last when asked for.

function chatUsage({ inputTokens, outputTokens, cachedTokens = 0, reasoningTokens = 0 }: ScriptedUsage) {
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens, audio_tokens: 0 },
  }
}

function chatCallIds(turn: Turn): string[] {
  return turn.calls.map((call) => call.id ?? id('call_'))
}

function chatStream(turn: Turn, { model, body }: TurnContext): SseEvent[] {
  const includeUsage = body?.stream_options?.include_usage === true
  const base = {
    id: id('chatcmpl-'),
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  }
  const chunk = (delta: object, finish_reason: string | null = null): SseEvent => ({
    data: JSON.stringify({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason }],
      ...(includeUsage && { usage: null }),
    }),
  })
  const events = [chunk({ role: 'assistant', content: turn.text === undefined ? null : '', refusal: null })]
  for (const content of turn.pieces(turn.text ?? '')) events.push(chunk({ content }))
  const ids = chatCallIds(turn)
  for (const [index, call] of turn.calls.entries()) {
    const opening = { index, id: ids[index], type: 'function', function: { name: call.name, arguments: '' } }
    events.push(chunk({ tool_calls: [opening] }))
    for (const piece of turn.pieces(call.arguments)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
    }
  }
  events.push(chunk({}, turn.calls.length > 0 ? 'tool_calls' : 'stop'))
  if (includeUsage)
    events.push({ data: JSON.stringify({ ...base, choices: [], usage: chatUsage(turn.usage) }) })
  events.push({ data: '[DONE]' })
  return events
}

function chatJson(turn: Turn, { model }: TurnContext) {
  const ids = chatCallIds(turn)
  const toolCalls = turn.calls.map((call, index) => ({
    id: ids[index],
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }))
  return {
    id: id('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: turn.text ?? null,
          refusal: null,
          annotations: [],
          ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
        },
        logprobs: null,
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: chatUsage(turn.usage),
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  }
}

// Gemini: whole GenerateContentResponse objects; text streams in pieces, each call arrives whole.

/** The parts of the answer, each as the stream sends it (text in pieces, one call per part). */
function geminiParts(turn: Turn, pieces: (text: string) => string[]): object[] {
  const parts: object[] = pieces(turn.text ?? '').map((text) => ({ text }))
  if (turn.reasoning && turn.calls.length === 0 && parts[0])
    parts[0] = { ...parts[0], thoughtSignature: opaqueToken() }
  for (const call of turn.calls) {
    const args = JSON.parse(call.arguments || '{}')
    parts.push({
      functionCall: { ...(call.id && { id: call.id }), name: call.name, args },
      ...(turn.reasoning && { thoughtSignature: opaqueToken() }),
    })
  }
  return parts
}

/** Google Search grounding as Gemini reports it: the queries, the pages, and the text resting on all of them. */
function geminiGrounding({ query, sources }: ScriptedWebSearch, text: string) {
  return {
    webSearchQueries: [query],
    groundingChunks: sources.map(({ url, title }) => ({ web: { uri: url, title } })),
    groundingSupports: [
      {
        segment: { startIndex: 0, endIndex: text.length, text },
        groundingChunkIndices: sources.map((_, index) => index),
      },
    ],
    searchEntryPoint: { renderedContent: '<div>Google Search suggestions</div>' },
  }
}

function geminiResponse(turn: Turn, model: string, responseId: string, parts: object[], last: boolean) {
  const { inputTokens, outputTokens, cachedTokens, reasoningTokens } = turn.usage
  const grounding = last && turn.webSearch && geminiGrounding(turn.webSearch, turn.text ?? '')
  return {
    candidates: [
      {
        content: { parts, role: 'model' },
        ...(last && { finishReason: 'STOP' }),
        ...(grounding && { groundingMetadata: grounding }),
        index: 0,
      },
    ],
    ...(last && {
      usageMetadata: {
        // promptTokenCount includes the cached part; thoughts are counted apart from the candidates.
        promptTokenCount: inputTokens,
        candidatesTokenCount: outputTokens - (reasoningTokens ?? 0),
        totalTokenCount: inputTokens + outputTokens,
        ...(cachedTokens !== undefined && { cachedContentTokenCount: cachedTokens }),
        ...(reasoningTokens !== undefined && { thoughtsTokenCount: reasoningTokens }),
      },
    }),
    modelVersion: model,
    responseId,
  }
}

function geminiStream(turn: Turn, { model }: TurnContext): SseEvent[] {
  const responseId = id('')
  const parts = geminiParts(turn, turn.pieces)
  // An answer with no parts still ends with a chunk that carries the finish reason.
  const chunks = parts.length > 0 ? parts.map((part) => [part]) : [[]]
  return chunks.map((chunkParts, index) => ({
    data: JSON.stringify(geminiResponse(turn, model, responseId, chunkParts, index === chunks.length - 1)),
  }))
}

function geminiJson(turn: Turn, { model }: TurnContext) {
  return geminiResponse(
    turn,
    model,
    id(''),
    geminiParts(turn, (text) => (text ? [text] : [])),
    true,
  )
}

// Anthropic Messages: named events, content blocks opened, filled by deltas, and closed by index.

interface AnthropicBlock {
  start: object
  deltas: object[]
  whole: () => object
}

function anthropicBlocks(turn: Turn): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = []
  if (turn.reasoning) {
    const signature = opaqueToken()
    blocks.push({
      start: { type: 'thinking', thinking: '', signature: '' },
      deltas: [
        ...turn.pieces(THINKING).map((thinking) => ({ type: 'thinking_delta', thinking })),
        { type: 'signature_delta', signature },
      ],
      whole: () => ({ type: 'thinking', thinking: THINKING, signature }),
    })
  }
  const search = turn.webSearch
  const citations = (search?.sources ?? []).map(({ url, title }) => ({
    type: 'web_search_result_location',
    url,
    title,
    cited_text: turn.text ?? '',
    encrypted_index: opaqueToken(),
  }))
  if (search) {
    const searchId = id('srvtoolu_01')
    const input = JSON.stringify({ query: search.query })
    blocks.push({
      start: { type: 'server_tool_use', id: searchId, name: 'web_search', input: {} },
      deltas: turn.pieces(input).map((partial_json) => ({ type: 'input_json_delta', partial_json })),
      whole: () => ({
        type: 'server_tool_use',
        id: searchId,
        name: 'web_search',
        input: { query: search.query },
      }),
    })
    const result = {
      type: 'web_search_tool_result',
      tool_use_id: searchId,
      content: search.sources.map(({ url, title }) => ({
        type: 'web_search_result',
        url,
        title,
        encrypted_content: opaqueToken(),
        page_age: null,
      })),
    }
    blocks.push({ start: result, deltas: [], whole: () => result })
  }
  if (turn.text !== undefined) {
    const text = turn.text
    blocks.push({
      start: { type: 'text', text: '', ...(search && { citations: [] }) },
      deltas: [
        ...turn.pieces(text).map((piece) => ({ type: 'text_delta', text: piece })),
        ...citations.map((citation) => ({ type: 'citations_delta', citation })),
      ],
      whole: () => ({ type: 'text', text, ...(search && { citations }) }),
    })
  }
  for (const call of turn.calls) {
    const toolUse = { type: 'tool_use', id: call.id ?? id('toolu_01'), name: call.name }
    blocks.push({
      start: { ...toolUse, input: {} },
      deltas: turn.pieces(call.arguments).map((partial_json) => ({ type: 'input_json_delta', partial_json })),
      whole: () => ({ ...toolUse, input: JSON.parse(call.arguments || '{}') }),
    })
  }
  return blocks
}

function anthropicMessage(turn: Turn, model: string, content: object[], outputTokens: number) {
  return {
    id: id('msg_01'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    container: null,
    stop_reason: null as string | null,
    stop_sequence: null,
    stop_details: null,
    usage: {
      ...anthropicInput(turn.usage),
      cache_creation: null,
      output_tokens: outputTokens,
      server_tool_use: null,
      service_tier: 'standard',
    },
  }
}

/** Anthropic's input_tokens are what follows the last cache breakpoint; read and written parts apart. */
function anthropicInput({ inputTokens, cachedTokens = 0, cacheWriteTokens = 0 }: ScriptedUsage) {
  return {
    input_tokens: inputTokens - cachedTokens - cacheWriteTokens,
    cache_creation_input_tokens: cacheWriteTokens,
    cache_read_input_tokens: cachedTokens,
  }
}

function anthropicStopReason(turn: Turn): string {
  return turn.calls.length > 0 ? 'tool_use' : 'end_turn'
}

function anthropicStream(turn: Turn, { model }: TurnContext): SseEvent[] {
  const events: SseEvent[] = []
  const emit = (type: string, fields: object = {}) =>
    events.push({ event: type, data: JSON.stringify({ type, ...fields }) })
  emit('message_start', { message: anthropicMessage(turn, model, [], 1) })
  emit('ping')
  for (const [index, block] of anthropicBlocks(turn).entries()) {
    emit('content_block_start', { index, content_block: block.start })
    for (const delta of block.deltas) emit('content_block_delta', { index, delta })
    emit('content_block_stop', { index })
  }
  emit('message_delta', {
    delta: {
      stop_reason: anthropicStopReason(turn),
      stop_sequence: null,
      stop_details: null,
      container: null,
    },
    usage: {
      ...anthropicInput(turn.usage),
      output_tokens: turn.usage.outputTokens,
      server_tool_use: null,
    },
  })
  emit('message_stop')
  return events
}

function anthropicJson(turn: Turn, { model }: TurnContext) {
  const content = anthropicBlocks(turn).map((block) => block.whole())
  return {
    ...anthropicMessage(turn, model, content, turn.usage.outputTokens),
    stop_reason: anthropicStopReason(turn),
  }
}
