/**
 * Finds model servers running on this computer: Ollama, LM Studio, llama.cpp's server and vLLM, each
 * at its usual port on 127.0.0.1 — the loopback address only, so detection never reaches the
 * network — all at once, each with a short timeout, and lists the models each offers.
 */
import type { DetectedServer, LocalServerKind } from '../../src-shared/providers'

/** The host every probe goes to, and the only one. */
const LOOPBACK = '127.0.0.1'
/** A server on this computer answers at once; one that does not within this is not there. */
const PROBE_TIMEOUT_MS = 1500
/** Ollama is asked for each model's context length; past this many models, the rest go without. */
const MAX_DETAILED_MODELS = 20
/** The most of a server's answer read (a list of models is a few kilobytes), and of models listed. */
const MAX_ANSWER_BYTES = 1024 * 1024
const MAX_MODELS = 200

interface LocalServer {
  name: string
  port: number
  /** `ollama`: its own `/api/tags` (and `/api/show`); `openai`: an OpenAI-compatible `/v1/models`. */
  api: 'ollama' | 'openai'
}

export const LOCAL_SERVERS: Record<LocalServerKind, LocalServer> = {
  ollama: { name: 'Ollama', port: 11434, api: 'ollama' },
  'lm-studio': { name: 'LM Studio', port: 1234, api: 'openai' },
  'llama-cpp': { name: 'llama.cpp', port: 8080, api: 'openai' },
  vllm: { name: 'vLLM', port: 8000, api: 'openai' },
}

type Model = DetectedServer['models'][number]

/**
 * `http://127.0.0.1:PORT/PATH`, the one way a probe's address is made: a port that is not a whole
 * number from 1 to 65535 is refused, so nothing but loopback can be addressed.
 */
export function loopbackUrl(port: number, path: string): string {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new RangeError(`Not a port: ${port}`)
  return `http://${LOOPBACK}:${port}${path}`
}

/** Every local server that answers, with its models; ports default to each server's usual one. */
export async function detectLocalServers(
  ports: Partial<Record<LocalServerKind, number>> = {},
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<DetectedServer[]> {
  const probes = (Object.entries(LOCAL_SERVERS) as [LocalServerKind, LocalServer][]).map(
    async ([server, known]): Promise<DetectedServer | undefined> => {
      const port = ports[server] ?? known.port
      const signal = AbortSignal.timeout(timeoutMs)
      try {
        const models =
          known.api === 'ollama' ? await ollamaModels(port, signal) : await openAiModels(port, signal)
        return models && { server, name: known.name, baseUrl: loopbackUrl(port, '/v1'), models }
      } catch {
        // Nothing listening, not this kind of server, or too slow: not found.
        return undefined
      }
    },
  )
  return (await Promise.all(probes)).filter((found) => found !== undefined)
}

async function getJson(url: string, signal: AbortSignal, body?: unknown): Promise<unknown> {
  const response = await fetch(url, {
    signal,
    redirect: 'error',
    ...(body !== undefined && {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  })
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  // Whatever listens on the port answers, a hostile program included: read no more than a list of
  // models takes, and stop downloading there.
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength
    if (size > MAX_ANSWER_BYTES) {
      await response.body?.cancel()
      throw new Error(`${url} answered more than ${MAX_ANSWER_BYTES} bytes`)
    }
    chunks.push(chunk)
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined
}

/** Ollama's `/api/tags`; each model's context length from `/api/show` (`<architecture>.context_length`). */
async function ollamaModels(port: number, signal: AbortSignal): Promise<Model[] | undefined> {
  const listed = record(await getJson(loopbackUrl(port, '/api/tags'), signal))?.models
  if (!Array.isArray(listed)) return undefined
  const names = listed.slice(0, MAX_MODELS).flatMap((entry) => {
    const name = record(entry)?.name
    return typeof name === 'string' ? [name] : []
  })
  return Promise.all(
    names.map(async (id, index): Promise<Model> => {
      if (index >= MAX_DETAILED_MODELS) return { id }
      const contextLength = await getJson(loopbackUrl(port, '/api/show'), signal, { model: id }).then(
        (shown) => {
          const info = record(record(shown)?.model_info) ?? {}
          const key = Object.keys(info).find((name) => name.endsWith('.context_length'))
          return key ? positiveInteger(info[key]) : undefined
        },
        () => undefined,
      )
      return { id, ...(contextLength && { contextLength }) }
    }),
  )
}

/**
 * An OpenAI-compatible `/v1/models`. The context length where the server adds it to a model: vLLM's
 * `max_model_len`, LM Studio's `context_length` / `max_context_length`, llama.cpp's `meta.n_ctx_train`.
 */
async function openAiModels(port: number, signal: AbortSignal): Promise<Model[] | undefined> {
  const data = record(await getJson(loopbackUrl(port, '/v1/models'), signal))?.data
  if (!Array.isArray(data)) return undefined
  return data.slice(0, MAX_MODELS).flatMap((entry): Model[] => {
    const model = record(entry)
    if (typeof model?.id !== 'string') return []
    const contextLength =
      positiveInteger(model.max_model_len) ??
      positiveInteger(model.context_length) ??
      positiveInteger(model.max_context_length) ??
      positiveInteger(record(model.meta)?.n_ctx_train)
    return [{ id: model.id, ...(contextLength && { contextLength }) }]
  })
}
