import { useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { Chat } from '../../../../src-shared/contract'
import { errorMessage } from '../../errors'
import { pathIn, useCustomTools } from '../useCustomTools'
import { ChatIcon } from './ChatIcon'

/** Files named in the notice; the rest are counted. */
const NAMED = 3

/** Folders whose notice was put off in this window ("Not now"), until the app reloads. */
const postponed = new Set<string>()

/**
 * Under the chat header: the bound project holds custom tool files that wait for the person's
 * trust — a cloned repository never runs code unasked, nor one that changed since it was trusted
 * (a `git pull`). Trusting loads them for the next turn.
 */
export function TrustNotice({ api, chat }: { api: AtelierApi; chat: Chat }) {
  const folder = chat.mode === 'agent' ? chat.workingDir : null
  const { info, refresh, track } = useCustomTools(api, folder, { enabled: folder !== null })
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const [, setPostponedCount] = useState(0)

  const waiting = info?.trustNeeded
  if (!folder || !waiting || waiting.folder !== folder || postponed.has(folder)) return null

  const files = waiting.files.map((file) => pathIn(folder, file))
  const named = files.slice(0, NAMED).join(', ')
  const more = files.length > NAMED ? `, and ${files.length - NAMED} more` : ''
  const count = files.length === 1 ? '1 custom tool file' : `${files.length} custom tool files`
  const changed = waiting.changedSinceTrusted

  async function trust(project: string) {
    setBusy(true)
    setError(undefined)
    try {
      await track(() => api.folders.trust({ folder: project }))
      await refresh()
    } catch (failure) {
      setError(errorMessage(failure))
    } finally {
      setBusy(false)
    }
  }

  return (
    <section className="pane-notice pane-notice--warning" aria-label="Custom tools in this folder">
      <ChatIcon name="shield" size={16} />
      <div className="trust-notice-text">
        {changed ? (
          <p>
            {count} changed since you trusted this folder ({named}
            {more}). {files.length === 1 ? 'It runs' : 'They run'} only once you trust the changes.
          </p>
        ) : (
          <p>
            This folder has {count} ({named}
            {more}). They run only if you trust the folder.
          </p>
        )}
        {error && (
          <p className="trust-notice-error" role="alert">
            Not trusted: {error}
          </p>
        )}
      </div>
      <div className="trust-notice-actions">
        <button type="button" className="primary" disabled={busy} onClick={() => void trust(folder)}>
          {changed ? 'Trust the changes' : 'Trust folder'}
        </button>
        <button
          type="button"
          className="ghost"
          disabled={busy}
          onClick={() => {
            postponed.add(folder)
            setPostponedCount(postponed.size)
          }}
        >
          Not now
        </button>
      </div>
    </section>
  )
}
