import { useEffect, useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { FolderListing } from '../../../../src-shared/contract'
import { errorMessage } from '../../errors'

interface FolderBrowserProps {
  api: AtelierApi
  /** Where to start; the home folder when empty or unreadable. */
  start: string
  onChoose(path: string): void
  onCancel(): void
}

/** A folder browser drawn by the app, for the web host where a browser cannot pick a local path. */
export function FolderBrowser({ api, start, onChoose, onCancel }: FolderBrowserProps) {
  const headingId = useId()
  const [listing, setListing] = useState<FolderListing>()
  const [error, setError] = useState<string>()
  const [loading, setLoading] = useState(false)

  async function open(path: string | undefined, fallBackHome = false) {
    setLoading(true)
    try {
      setListing(await api.folders.list(path ? { path } : {}))
      setError(undefined)
    } catch (failure) {
      if (fallBackHome) return open(undefined)
      setError(errorMessage(failure))
    } finally {
      setLoading(false)
    }
  }

  // biome-ignore lint/correctness/useExhaustiveDependencies: opens once, where it was asked to start
  useEffect(() => {
    void open(start.trim() || undefined, true)
  }, [])

  return (
    <section className="folder-picker" aria-labelledby={headingId} aria-busy={loading || undefined}>
      <div className="folder-picker-bar">
        <h4 id={headingId}>Choose a folder</h4>
        <button
          type="button"
          className="small"
          disabled={!listing?.parent}
          onClick={() => listing?.parent && void open(listing.parent)}
        >
          Up
        </button>
        <button type="button" className="small" onClick={() => void open(listing?.home)}>
          Home
        </button>
      </div>
      <p className="folder-picker-path">
        <code>{listing?.path ?? '…'}</code>
      </p>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {listing &&
        (listing.folders.length === 0 ? (
          <p className="muted folder-picker-empty">No folders inside.</p>
        ) : (
          <ul className="folder-picker-list" aria-label={`Folders in ${listing.path}`}>
            {listing.folders.map((folder) => (
              <li key={folder.path}>
                <button type="button" className="ghost" onClick={() => void open(folder.path)}>
                  <span className="folder-name">{folder.name}</span>
                  <span className="folder-open" aria-hidden="true">
                    ›
                  </span>
                </button>
              </li>
            ))}
          </ul>
        ))}
      <div className="form-actions">
        <button
          type="button"
          className="primary"
          disabled={!listing}
          onClick={() => listing && onChoose(listing.path)}
        >
          Use this folder
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  )
}
