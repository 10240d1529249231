import { useCallback, useEffect, useId, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { FolderListing } from '../../../../src-shared/contract'
import { errorMessage } from '../../errors'
import { ChatIcon } from './ChatIcon'
import { Modal } from './Modal'

interface FolderBrowserDialogProps {
  api: AtelierApi
  /** Where to start: the chat's folder, else home. */
  start: string | null
  onChoose(path: string): void
  onClose(): void
  /** What the folder is for; by default, the chat's project folder. */
  purpose?: string
}

/**
 * The folder chooser where there is no OS dialog (a browser on the web host): Atelier lists the
 * folders of this computer, and the person walks to one and uses it.
 */
export function FolderBrowserDialog({
  api,
  start,
  onChoose,
  onClose,
  purpose = 'Pick the project folder this chat works in. The agent reads and edits files there in agent mode.',
}: FolderBrowserDialogProps) {
  const [listing, setListing] = useState<FolderListing>()
  const [error, setError] = useState<string>()
  const [typed, setTyped] = useState('')
  const [recent, setRecent] = useState<string[]>([])
  const [showHidden, setShowHidden] = useState(false)
  const pathId = useId()
  // Only the latest listing asked for lands: the first one (home) answering late must not replace
  // a folder the person has since typed or opened.
  const latest = useRef(0)

  const open = useCallback(
    async (path: string | undefined) => {
      const ticket = ++latest.current
      try {
        const next = await api.folders.list(path === undefined ? {} : { path })
        if (ticket !== latest.current) return
        setListing(next)
        setTyped(next.path)
        setError(undefined)
      } catch (failure) {
        if (ticket === latest.current) setError(errorMessage(failure))
      }
    },
    [api],
  )

  useEffect(() => {
    void open(start ?? undefined)
    api.folders.recent().then(setRecent, () => setRecent([]))
  }, [api, open, start])

  const folders = listing?.folders.filter((folder) => showHidden || !folder.name.startsWith('.')) ?? []
  const hiddenCount =
    (listing?.folders.length ?? 0) - (listing?.folders.filter((f) => !f.name.startsWith('.')).length ?? 0)

  return (
    <Modal
      title="Choose a folder"
      className="folder-browser"
      description={purpose}
      onClose={onClose}
      footer={
        <>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="primary"
            disabled={!listing}
            onClick={() => listing && onChoose(listing.path)}
          >
            Use this folder
          </button>
        </>
      }
    >
      <div className="folder-browser-bar">
        <button
          type="button"
          disabled={!listing?.parent}
          onClick={() => listing?.parent && void open(listing.parent)}
        >
          <ChatIcon name="up" size={14} />
          Up
        </button>
        <button type="button" onClick={() => void open(listing?.home)}>
          <ChatIcon name="home" size={14} />
          Home
        </button>
        <form
          className="folder-browser-path"
          onSubmit={(event) => {
            event.preventDefault()
            if (typed.trim()) void open(typed.trim())
          }}
        >
          <label htmlFor={pathId} className="visually-hidden">
            Folder path
          </label>
          <input
            id={pathId}
            className="input"
            value={typed}
            spellCheck={false}
            onChange={(event) => {
              latest.current++
              setTyped(event.target.value)
            }}
          />
          <button type="submit">Go</button>
        </form>
      </div>

      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}

      <div className="folder-browser-columns">
        <section className="folder-browser-list" aria-label="Folders">
          <p className="folder-browser-current" title={listing?.path}>
            <ChatIcon name="folder" size={14} />
            <span>
              <bdi>{listing?.path ?? 'Loading…'}</bdi>
            </span>
          </p>
          {listing && folders.length === 0 ? (
            <p className="folder-browser-empty">No folders inside. Use this one, or go up.</p>
          ) : (
            <ul>
              {folders.map((folder) => (
                <li key={folder.path}>
                  <button
                    type="button"
                    className="folder-entry"
                    title={`Open ${folder.path}`}
                    onClick={() => void open(folder.path)}
                  >
                    <ChatIcon name="folder" size={14} />
                    <span>{folder.name}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          {hiddenCount > 0 && (
            <label className="check">
              <input
                type="checkbox"
                checked={showHidden}
                onChange={(event) => setShowHidden(event.target.checked)}
              />
              Show hidden folders ({hiddenCount})
            </label>
          )}
        </section>
        {recent.length > 0 && (
          <section className="folder-browser-recent" aria-labelledby={`${pathId}-recent`}>
            <h3 id={`${pathId}-recent`}>Recent</h3>
            <ul aria-label="Recent folders">
              {recent.map((path) => (
                <li key={path}>
                  <button type="button" className="folder-entry" title={path} onClick={() => void open(path)}>
                    <span className="folder-entry-name">
                      {path.split(/[\\/]/).filter(Boolean).at(-1) ?? path}
                    </span>
                    <span className="folder-entry-path">
                      <bdi>{path}</bdi>
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
        )}
      </div>
    </Modal>
  )
}
