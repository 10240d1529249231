/** Gemini over `@google/genai`: function declarations, thought signatures kept on their calls. */
import { randomUUID } from 'node:crypto'
import type { Content, FinishReason, GenerateContentResponse, GroundingMetadata, Part } from '@google/genai'
import type { ProviderStreamEvent, StopReason, WebSource } from '../../src-shared/agent'
import type { Usage } from '../../src-shared/usage'
import { lazily, loadGoogleGenAI } from './lazily'
import { ProviderError, streamEndedEarly } from './provider-error'
import { toolDefsToGeminiInteractions } from './tool-mapper'
import {
  argumentsObject,
  type ModelMessage,
  NO_KEY,
  type ProviderAdapter,
  type ProviderConfig,
  userContent,
} from './types'

/** What a Gemini call carries besides name and arguments, kept so the next request can return it. */
interface GeminiCallData {
  /** The id Gemini gave the call, if any (ids Atelier made up are not sent back). */
  callId?: string
  /** Required back on the call part for reasoning models to continue a tool loop. */
  thoughtSignature?: string
}

/**
 * What Google documents to send as a call's thoughtSignature when the real one is not at hand (history
 * from another model, or a step whose signature compaction dropped): Gemini 3 rejects a current-turn
 * call without one, and this value skips that check (Gemini API and Vertex AI alike; see
 * ai.google.dev/gemini-api/docs/thought-signatures, FAQ).
 */
export const PLACEHOLDER_THOUGHT_SIGNATURE = 'skip_thought_signature_validator'

/** The SDK loads on first use: the CLI and the app start without it. */
export async function geminiClient(config: ProviderConfig) {
  const GoogleGenAI = await loadGoogleGenAI()
  return new GoogleGenAI({
    apiKey: config.apiKey || NO_KEY,
    ...(config.baseUrl && { httpOptions: { baseUrl: config.baseUrl } }),
  })
}

export function createGeminiAdapter(config: ProviderConfig): ProviderAdapter {
  const ai = lazily(() => geminiClient(config))
  return {
    kind: 'gemini',
    async *stream(request, signal) {
      const declarations = toolDefsToGeminiInteractions(request.tools)
      const stream = await (await ai()).models.generateContentStream({
        model: request.model,
        contents: toContents(request.messages),
        config: {
          systemInstruction: request.system,
          ...((declarations.length > 0 || config.hostedSearch) && {
            tools: [
              ...(declarations.length > 0 ? [{ functionDeclarations: declarations }] : []),
              // Grounding with Google Search: Gemini searches itself and says what it found.
              ...(config.hostedSearch ? [{ googleSearch: {} }] : []),
            ],
          }),
          ...(request.maxOutputTokens && { maxOutputTokens: request.maxOutputTokens }),
          abortSignal: signal,
        },
      })
      yield* readGeminiStream(stream)
    },
    async listModels(signal) {
      const names: string[] = []
      const pager = await (await ai()).models.list({ config: { abortSignal: signal } })
      for await (const model of pager) {
        const canChat = model.supportedActions?.includes('generateContent') ?? true
        if (model.name && canChat) names.push(model.name.replace(/^models\//, ''))
      }
      return names.sort()
    },
    async contextWindowOf(model, signal) {
      try {
        const { inputTokenLimit } = await (await ai()).models.get({ model, config: { abortSignal: signal } })
        return typeof inputTokenLimit === 'number' && inputTokenLimit > 0 ? inputTokenLimit : undefined
      } catch {
        return undefined
      }
    },
  }
}

async function* readGeminiStream(
  stream: AsyncIterable<GenerateContentResponse>,
): AsyncIterable<ProviderStreamEvent> {
  let finish: FinishReason | undefined
  let calledTools = false
  let usage: Usage | undefined
  let grounding: GroundingMetadata | undefined
  for await (const chunk of stream) {
    const blocked = chunk.promptFeedback?.blockReason
    if (blocked)
      throw new ProviderError('provider_rejected', `Gemini refused the prompt (${blocked}).`, false)
    const candidate = chunk.candidates?.[0]
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) {
        calledTools = true
        const { id, name = '', args = {} } = part.functionCall
        const callId = id || `call_${randomUUID()}`
        const text = JSON.stringify(args)
        const providerData: GeminiCallData = {
          ...(id && { callId: id }),
          ...(part.thoughtSignature && { thoughtSignature: part.thoughtSignature }),
        }
        // Gemini sends each call whole; the neutral stream still tells it in three steps.
        yield { type: 'tool_call_started', id: callId, name }
        yield { type: 'tool_call_arguments_delta', id: callId, delta: text }
        yield { type: 'tool_call_completed', id: callId, name, arguments: text, providerData }
      } else if (part.text && !part.thought) {
        yield { type: 'text_delta', text: part.text }
      }
    }
    finish = candidate?.finishReason ?? finish
    // Each chunk's grounding tells all so far; the last one is the whole of it.
    grounding = candidate?.groundingMetadata ?? grounding
    const metadata = chunk.usageMetadata
    if (metadata) {
      // promptTokenCount includes cachedContentTokenCount; thinking is output outside the candidates.
      const cached = metadata.cachedContentTokenCount
      usage = {
        inputTokens: metadata.promptTokenCount ?? 0,
        outputTokens: (metadata.candidatesTokenCount ?? 0) + (metadata.thoughtsTokenCount ?? 0),
        ...(typeof cached === 'number' && { cachedTokens: cached }),
      }
    }
  }
  if (!finish) throw streamEndedEarly('gemini')
  if (grounding) yield* groundingEvents(grounding)
  if (usage) yield { type: 'usage', usage }
  yield { type: 'done', stopReason: stopReason(finish, calledTools) }
}

/**
 * What Google Search grounding reports: the searches run and the pages found (as a card), and the
 * pages the answer's sentences rest on (its citations; all found pages where it links none).
 */
function* groundingEvents(grounding: GroundingMetadata): Iterable<ProviderStreamEvent> {
  const pages = (grounding.groundingChunks ?? []).map(({ web }): WebSource | undefined =>
    web?.uri ? { url: web.uri, ...(web.title && { title: web.title }) } : undefined,
  )
  const found = pages.filter((page) => page !== undefined)
  const queries = grounding.webSearchQueries ?? []
  if (queries.length === 0 && found.length === 0) return
  yield { type: 'web_search', queries, sources: found }
  const supported = new Set(
    (grounding.groundingSupports ?? []).flatMap((support) => support.groundingChunkIndices ?? []),
  )
  const cited = supported.size > 0 ? [...supported].sort((a, b) => a - b).map((index) => pages[index]) : found
  const sources = cited.filter((page) => page !== undefined)
  if (sources.length > 0) yield { type: 'citations', sources }
}

function stopReason(finish: FinishReason, calledTools: boolean): StopReason {
  if (finish === 'MAX_TOKENS') return 'max_tokens'
  if (['SAFETY', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'RECITATION'].includes(finish))
    return 'content_filter'
  return calledTools ? 'tool_calls' : 'end_turn'
}

function toContents(messages: ModelMessage[]): Content[] {
  const callData = new Map<string, GeminiCallData>()
  for (const message of messages) {
    if (message.role !== 'assistant') continue
    for (const part of message.parts) {
      if (part.type === 'tool_call') callData.set(part.id, (part.providerData ?? {}) as GeminiCallData)
    }
  }
  return messages.flatMap((message) => toContent(message, callData))
}

function toContent(message: ModelMessage, callData: Map<string, GeminiCallData>): Content[] {
  switch (message.role) {
    case 'user': {
      const { text, images } = userContent(message)
      // Gemini takes an image's bytes inline, as inlineData beside the text.
      const inline = images.map(({ mimeType, base64 }) => ({ inlineData: { mimeType, data: base64 } }))
      return [{ role: 'user', parts: [...inline, { text }] }]
    }
    case 'tool':
      return [
        {
          role: 'user',
          parts: message.results.map((result) => {
            const callId = callData.get(result.callId)?.callId
            return {
              functionResponse: {
                ...(callId && { id: callId }),
                name: result.name,
                response: result.isError ? { error: result.content } : { output: result.content },
              },
            }
          }),
        },
      ]
    case 'assistant': {
      // Gemini signs the first call of a step (only that one in a parallel batch). Calls that come
      // without Gemini's data (another provider's, or a step whose data compaction dropped) get the
      // documented placeholder on the step's first call, so that Gemini 3 still takes the step.
      // Calls Gemini itself made unsigned (older models) go back as they came.
      const calls = message.parts.filter((part) => part.type === 'tool_call')
      const signed = calls.some((part) => callData.get(part.id)?.thoughtSignature)
      const placeholderFor = !signed && calls[0]?.providerData === undefined ? calls[0] : undefined
      const parts = message.parts.flatMap((part): Part[] => {
        if (part.type === 'text') return part.text ? [{ text: part.text }] : []
        if (part.type !== 'tool_call') return []
        const data = callData.get(part.id) ?? {}
        const thoughtSignature =
          data.thoughtSignature ?? (part === placeholderFor ? PLACEHOLDER_THOUGHT_SIGNATURE : undefined)
        return [
          {
            functionCall: {
              ...(data.callId && { id: data.callId }),
              name: part.name,
              args: argumentsObject(part.arguments),
            },
            ...(thoughtSignature && { thoughtSignature }),
          },
        ]
      })
      return parts.length > 0 ? [{ role: 'model', parts }] : []
    }
  }
}
