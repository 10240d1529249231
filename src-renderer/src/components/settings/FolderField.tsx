import { useEffect, useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { isAtelierErrorPayload } from '../../../../src-shared/errors'
import { errorMessage } from '../../errors'
import { FolderBrowserDialog } from '../chat/FolderBrowserDialog'
import { type FolderBrowserStart, prepareFolderBrowser } from '../chat/folder-browser-start'

interface FolderFieldProps {
  api: AtelierApi
  label: string
  value: string
  onChange(value: string): void
  hint?: string
}

/** Remembered for the session: once the OS dialog is known to be missing, Browse opens ours at once. */
let osDialogUnsupported = false

/**
 * A folder: typed, picked with the OS dialog in the desktop app (or the app's own browser on the web
 * host), or chosen among the folders recently bound to chats.
 */
export function FolderField({ api, label, value, onChange, hint }: FolderFieldProps) {
  const id = useId()
  const [recent, setRecent] = useState<string[]>([])
  // The folder browser's first screen, once fetched; the browser shows only then, never "Loading…".
  const [browsing, setBrowsing] = useState<FolderBrowserStart>()
  const [error, setError] = useState<string>()

  useEffect(() => {
    let live = true
    api.folders.recent().then(
      (folders) => live && setRecent(folders),
      () => undefined,
    )
    return () => {
      live = false
    }
  }, [api])

  async function openBrowser() {
    try {
      setBrowsing(await prepareFolderBrowser(api, value.trim() || null))
    } catch (failure) {
      setError(errorMessage(failure))
    }
  }

  async function browse() {
    setError(undefined)
    if (osDialogUnsupported) return openBrowser()
    try {
      const { path } = await api.folders.pick()
      if (path) onChange(path)
    } catch (failure) {
      if (isAtelierErrorPayload(failure) && failure.code === 'unsupported') {
        osDialogUnsupported = true
        await openBrowser()
      } else {
        setError(errorMessage(failure))
      }
    }
  }

  const describedBy = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined
  return (
    <div className="field folder-field">
      <label className="field-label" htmlFor={`${id}-input`}>
        {label}
      </label>
      <div className="folder-field-row">
        <input
          id={`${id}-input`}
          type="text"
          value={value}
          spellCheck={false}
          placeholder="No folder"
          aria-describedby={describedBy}
          onChange={(event) => onChange(event.target.value)}
        />
        <button
          type="button"
          onClick={() => void browse()}
          aria-expanded={osDialogUnsupported ? browsing !== undefined : undefined}
        >
          Browse…
        </button>
        {recent.length > 0 && (
          <select
            aria-label="Recent folders"
            value=""
            onChange={(event) => event.target.value && onChange(event.target.value)}
          >
            <option value="">Recent…</option>
            {recent.map((folder) => (
              <option key={folder} value={folder}>
                {folder}
              </option>
            ))}
          </select>
        )}
      </div>
      {error && (
        <p className="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
      {hint && (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {browsing && (
        <FolderBrowserDialog
          api={api}
          initial={browsing}
          purpose="Pick the folder the tool runs in."
          onChoose={(path) => {
            onChange(path)
            setBrowsing(undefined)
          }}
          onClose={() => setBrowsing(undefined)}
        />
      )}
    </div>
  )
}
