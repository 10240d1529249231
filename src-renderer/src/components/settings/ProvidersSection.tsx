import { useEffect, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { KeyStorage, ProviderInfo } from '../../../../src-shared/providers'
import { errorMessage } from '../../errors'
import { ConfirmDialog } from '../ConfirmDialog'
import { Notice } from './Notice'
import { ProviderCard } from './ProviderCard'
import { ProviderForm } from './ProviderForm'
import { LOCAL_PRESETS, type ProviderPreset } from './provider-kinds'
import { upsertById } from './upsert'

type Editing = { kind: 'create'; preset?: ProviderPreset } | { kind: 'edit'; provider: ProviderInfo }

/** Where models run: the providers set up, a form to add or edit one, and a test for each. */
interface ProvidersSectionProps {
  api: AtelierApi
  /** A provider to open for editing once the list has loaded (Settings opened at it from an error). */
  editing?: string | undefined
  /** When that was asked, so asking again for the same provider opens it again. */
  editingAt?: number | undefined
}

export function ProvidersSection({ api, editing: editingId, editingAt }: ProvidersSectionProps) {
  const [providers, setProviders] = useState<ProviderInfo[]>()
  const [keyStorage, setKeyStorage] = useState<KeyStorage>({
    available: false,
    plainText: false,
    environmentKeys: [],
  })
  const [editing, setEditing] = useState<Editing>()
  const [deleting, setDeleting] = useState<ProviderInfo>()
  const [error, setError] = useState<string>()
  const top = useRef<HTMLDivElement>(null)

  useEffect(() => {
    let live = true
    const apply = (list: { providers: ProviderInfo[]; keyStorage: KeyStorage }) => {
      if (!live) return
      setProviders(list.providers)
      setKeyStorage(list.keyStorage)
    }
    api.providers.list().then(apply, (failure: unknown) => live && setError(errorMessage(failure)))
    const unsubscribe = api.providers.onChanged(apply)
    return () => {
      live = false
      unsubscribe()
    }
  }, [api])

  const loaded = providers !== undefined
  // biome-ignore lint/correctness/useExhaustiveDependencies: opened once per request, when the list is there
  useEffect(() => {
    const provider = editingId ? providers?.find((p) => p.id === editingId) : undefined
    if (provider) startEditing({ kind: 'edit', provider })
  }, [editingId, editingAt, loaded])

  function startEditing(next: Editing) {
    setEditing(next)
    const opener = document.activeElement
    requestAnimationFrame(() => {
      // Not over a field the person has already moved to: what they type there must stay there.
      const moved = document.activeElement !== opener && document.activeElement !== document.body
      if (!moved) top.current?.querySelector<HTMLElement>('.editor input:not([disabled])')?.focus()
    })
  }

  async function remove(provider: ProviderInfo) {
    setDeleting(undefined)
    try {
      await api.providers.delete({ id: provider.id })
      setProviders((current) => current?.filter((p) => p.id !== provider.id))
      setError(undefined)
    } catch (failure) {
      setError(errorMessage(failure))
    }
  }

  const empty = providers?.length === 0
  return (
    <div className="settings-section" ref={top} aria-busy={!providers && !error ? true : undefined}>
      <header className="section-intro section-intro-row">
        <div>
          <h2>Providers</h2>
          <p className="muted">
            Where models run. A chat uses the provider chosen for it, or the first one listed here.
          </p>
        </div>
        {!editing && providers && (
          <button type="button" className="primary" onClick={() => startEditing({ kind: 'create' })}>
            Add provider
          </button>
        )}
      </header>
      {error && (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      )}
      {!providers && !error && <p className="muted">Loading providers…</p>}
      {providers && !keyStorage.available && (
        <Notice tone="info" title="Keys come from the environment here">
          This window cannot store API keys: only the desktop app can, encrypted with the system keychain. Set
          OPENAI_API_KEY, GEMINI_API_KEY or ANTHROPIC_API_KEY before starting Atelier; each is sent only to
          its official API, so a server at another address gets no key from here.
        </Notice>
      )}
      {editing && (
        <ProviderForm
          key={editing.kind === 'edit' ? editing.provider.id : `new-${editing.preset?.name ?? ''}`}
          api={api}
          keyStorage={keyStorage}
          provider={editing.kind === 'edit' ? editing.provider : undefined}
          preset={editing.kind === 'create' ? editing.preset : undefined}
          onCancel={() => setEditing(undefined)}
          onDone={(saved) => {
            setProviders((current) => upsertById(current, saved))
            setEditing(undefined)
          }}
        />
      )}
      {empty && !editing && (
        <div className="empty-teaching">
          <h3>No providers yet</h3>
          <p>Atelier needs a model to talk to. Either:</p>
          <ul>
            <li>
              Set an API key in the environment before starting Atelier — <code>OPENAI_API_KEY</code>,{' '}
              <code>GEMINI_API_KEY</code> or <code>ANTHROPIC_API_KEY</code>. It is used even with no provider
              listed here, and sent only to that company’s official API.
            </li>
            <li>
              Or run a model on this computer with an OpenAI-compatible server: Ollama at{' '}
              <code>http://127.0.0.1:11434/v1</code>, LM Studio at <code>http://127.0.0.1:1234/v1</code>. No
              key needed.
            </li>
          </ul>
          <div className="form-actions">
            {LOCAL_PRESETS.map((preset) => (
              <button
                key={preset.name}
                type="button"
                onClick={() => startEditing({ kind: 'create', preset })}
              >
                Set up {preset.name}
              </button>
            ))}
          </div>
        </div>
      )}
      {providers && providers.length > 0 && (
        <div className="item-list">
          {providers.map((provider) => (
            <ProviderCard
              key={provider.id}
              api={api}
              provider={provider}
              onEdit={() => startEditing({ kind: 'edit', provider })}
              onDelete={() => setDeleting(provider)}
            />
          ))}
        </div>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete “${deleting.name}”?`}
          message="Chats set to use it switch to the first provider set up. A key stored for it is deleted with it."
          confirmLabel="Delete"
          onCancel={() => setDeleting(undefined)}
          onConfirm={() => void remove(deleting)}
        />
      )}
    </div>
  )
}
