import { useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { DetectedServer, ProviderInfo } from '../../../../src-shared/providers'
import { errorMessage } from '../../errors'
import { shortTokens } from '../chat/tokens'

type Detection =
  | { kind: 'idle' }
  | { kind: 'detecting' }
  | { kind: 'done'; servers: DetectedServer[] }
  | { kind: 'failed'; message: string }

/** One server that answered: its models, one to start with, and the button that adds it. */
function FoundServer({
  server,
  onAdd,
}: {
  server: DetectedServer
  onAdd(server: DetectedServer, model: string | undefined): Promise<void>
}) {
  const id = useId()
  const [model, setModel] = useState(server.models[0]?.id)
  const [adding, setAdding] = useState(false)
  return (
    <li className="found-server" aria-labelledby={`${id}-name`}>
      <div>
        <strong id={`${id}-name`}>{server.name}</strong> <code>{server.baseUrl}</code>
      </div>
      {server.models.length === 0 ? (
        <p className="muted">It lists no models yet.</p>
      ) : (
        <label className="found-server-model">
          Default model{' '}
          <select value={model} onChange={(event) => setModel(event.target.value)}>
            {server.models.map(({ id: name, contextLength }) => (
              <option key={name} value={name}>
                {contextLength ? `${name} (${shortTokens(contextLength)} context)` : name}
              </option>
            ))}
          </select>
        </label>
      )}
      <button
        type="button"
        className="small primary"
        disabled={adding}
        onClick={() => {
          setAdding(true)
          void onAdd(server, model).finally(() => setAdding(false))
        }}
      >
        Add {server.name}
      </button>
    </li>
  )
}

/**
 * Detect local servers: looks for Ollama, LM Studio, llama.cpp and vLLM on this computer (127.0.0.1
 * only) and adds the one chosen as an OpenAI-compatible provider in one click.
 */
export function LocalServerDetection({
  api,
  onAdded,
}: {
  api: AtelierApi
  onAdded(provider: ProviderInfo): void
}) {
  const [detection, setDetection] = useState<Detection>({ kind: 'idle' })
  const [error, setError] = useState<string>()

  async function detect() {
    setDetection({ kind: 'detecting' })
    try {
      setDetection({ kind: 'done', servers: await api.providers.detectLocal({}) })
    } catch (failure) {
      setDetection({ kind: 'failed', message: errorMessage(failure) })
    }
  }

  async function add(server: DetectedServer, model: string | undefined) {
    try {
      onAdded(
        await api.providers.create({
          kind: 'openai-chat',
          name: server.name,
          baseUrl: server.baseUrl,
          ...(model && { defaultModel: model }),
        }),
      )
    } catch (failure) {
      setError(errorMessage(failure))
    }
  }

  return (
    <div className="local-detection">
      <button
        type="button"
        onClick={() => void detect()}
        disabled={detection.kind === 'detecting'}
        aria-busy={detection.kind === 'detecting' || undefined}
      >
        Detect local servers
      </button>
      <div aria-live="polite">
        {detection.kind === 'detecting' && <p className="muted">Looking on 127.0.0.1…</p>}
        {detection.kind === 'failed' && <p role="alert">{detection.message}</p>}
        {detection.kind === 'done' && detection.servers.length === 0 && (
          <p className="muted">
            None answered on 127.0.0.1 (Ollama :11434, LM Studio :1234, llama.cpp :8080, vLLM :8000). Start
            one, or fill in the form below.
          </p>
        )}
        {detection.kind === 'done' && detection.servers.length > 0 && (
          <ul className="found-servers" aria-label="Local servers found">
            {detection.servers.map((server) => (
              <FoundServer key={server.server} server={server} onAdd={add} />
            ))}
          </ul>
        )}
        {error && <p role="alert">{error}</p>}
      </div>
    </div>
  )
}
