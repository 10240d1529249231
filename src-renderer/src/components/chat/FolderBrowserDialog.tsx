import { type KeyboardEvent, useCallback, useEffect, useId, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { FolderListing } from '../../../../src-shared/contract'
import { errorMessage } from '../../errors'
import { ChatIcon } from './ChatIcon'
import type { FolderBrowserStart } from './folder-browser-start'
import { Modal } from './Modal'

interface FolderBrowserDialogProps {
  api: AtelierApi
  /** The first screen, already fetched (see prepareFolderBrowser): the browser opens on it at once. */
  initial: FolderBrowserStart
  onChoose(path: string): void
  onClose(): void
  /** What the folder is for; by default, the chat's project folder. */
  purpose?: string
}

const hidden = (name: string) => name.startsWith('.')

/**
 * The folder chooser where there is no OS dialog (a browser on the web host): Atelier lists the
 * folders of this computer, with their files greyed to recognise a project by, and the person
 * walks to one — by pointer or by keyboard (↑/↓ between rows, Enter opens) — and uses it.
 */
export function FolderBrowserDialog({
  api,
  initial,
  onChoose,
  onClose,
  purpose = 'Pick the project folder this chat works in. The agent reads and edits files there in agent mode.',
}: FolderBrowserDialogProps) {
  const [listing, setListing] = useState<FolderListing>(initial.listing)
  const [error, setError] = useState<string>()
  const [typed, setTyped] = useState(initial.listing.path)
  const [filter, setFilter] = useState('')
  const [showHidden, setShowHidden] = useState(false)
  const pathId = useId()
  const filterField = useRef<HTMLInputElement>(null)
  const rows = useRef<HTMLUListElement>(null)
  // Only the latest listing asked for lands: one answering late must not replace a folder the
  // person has since typed or opened.
  const latest = useRef(0)
  // Opened from a row: the row is gone with its folder, so focus goes on to the new rows.
  const focusRows = useRef(false)

  const open = useCallback(
    async (path: string | undefined, fromRow = false) => {
      const ticket = ++latest.current
      try {
        const next = await api.folders.list(path === undefined ? {} : { path })
        if (ticket !== latest.current) return
        focusRows.current = fromRow
        setListing(next)
        setTyped(next.path)
        setFilter('')
        setError(undefined)
      } catch (failure) {
        if (ticket === latest.current) setError(errorMessage(failure))
      }
    },
    [api],
  )

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once each new listing is on screen
  useEffect(() => {
    if (!focusRows.current) return
    focusRows.current = false
    const first = rows.current?.querySelector<HTMLButtonElement>('button.folder-entry')
    ;(first ?? filterField.current)?.focus()
  }, [listing])

  const query = filter.trim().toLowerCase()
  // A filter starting with a dot is looking for hidden entries: it finds them too.
  const visible = (name: string) =>
    (showHidden || !hidden(name) || (query.startsWith('.') && hidden(name))) &&
    (!query || name.toLowerCase().includes(query))
  const folders = listing.folders.filter((folder) => visible(folder.name))
  const files = listing.files.filter((file) => visible(file.name))
  const hiddenCount =
    listing.folders.filter((folder) => hidden(folder.name)).length +
    listing.files.filter((file) => hidden(file.name)).length
  const cut = listing.fileCount > listing.files.length

  /** ↑/↓ move between the folder rows (↑ from the first goes back to the filter); Home/End jump. */
  const onRowKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    const buttons = [...(rows.current?.querySelectorAll<HTMLButtonElement>('button.folder-entry') ?? [])]
    const index = buttons.indexOf(event.currentTarget)
    const target =
      event.key === 'ArrowDown'
        ? buttons[index + 1]
        : event.key === 'ArrowUp'
          ? (buttons[index - 1] ?? filterField.current)
          : event.key === 'Home'
            ? buttons[0]
            : event.key === 'End'
              ? buttons.at(-1)
              : undefined
    if (!target) return
    event.preventDefault()
    target.focus()
  }

  const onFilterKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const first = rows.current?.querySelector<HTMLButtonElement>('button.folder-entry')
    if (event.key === 'ArrowDown' && first) {
      event.preventDefault()
      first.focus()
    } else if (event.key === 'Enter' && query && folders[0]) {
      // Enter takes the first folder that matches: type a few letters, Enter, and in you go.
      event.preventDefault()
      void open(folders[0].path, true)
    }
  }

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
          <button type="button" className="primary" onClick={() => onChoose(listing.path)}>
            Use this folder
          </button>
        </>
      }
    >
      <div className="folder-browser-bar">
        <button
          type="button"
          disabled={!listing.parent}
          onClick={() => listing.parent && void open(listing.parent)}
        >
          <ChatIcon name="up" size={14} />
          Up
        </button>
        <button type="button" onClick={() => void open(listing.home)}>
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
        <section className="folder-browser-list" aria-label="Folder contents">
          <div className="folder-browser-head">
            <p className="folder-browser-current" title={listing.path}>
              <ChatIcon name="folder" size={14} />
              <span>
                <bdi>{listing.path}</bdi>
              </span>
            </p>
            <input
              ref={filterField}
              type="search"
              className="input folder-browser-filter"
              aria-label="Filter"
              placeholder="Filter"
              spellCheck={false}
              value={filter}
              onChange={(event) => setFilter(event.target.value)}
              onKeyDown={onFilterKeyDown}
            />
          </div>
          {folders.length === 0 && files.length === 0 ? (
            <p className="folder-browser-empty">
              {query ? `Nothing here matches “${filter.trim()}”.` : 'This folder is empty. Use it, or go up.'}
            </p>
          ) : (
            <ul ref={rows}>
              {folders.map((folder) => (
                <li key={folder.path}>
                  <button
                    type="button"
                    className="folder-entry"
                    title={`Open ${folder.path}`}
                    onClick={() => void open(folder.path, true)}
                    onKeyDown={onRowKeyDown}
                  >
                    <ChatIcon name="folder" size={14} />
                    <span>{folder.name}</span>
                  </button>
                </li>
              ))}
              {/* Files are there to recognise the folder by; only folders can be opened or chosen. */}
              {files.map((file) => (
                <li
                  key={file.name}
                  className="folder-entry folder-entry--file"
                  title="A file: choose its folder"
                >
                  <ChatIcon name="file" size={14} />
                  <span>{file.name}</span>
                </li>
              ))}
            </ul>
          )}
          {cut && (
            <p className="folder-browser-note">
              Showing the first {listing.files.length} of {listing.fileCount} files.
            </p>
          )}
          {hiddenCount > 0 && (
            <label className="check">
              <input
                type="checkbox"
                checked={showHidden}
                onChange={(event) => setShowHidden(event.target.checked)}
              />
              Show hidden items ({hiddenCount})
            </label>
          )}
        </section>
        {initial.recent.length > 0 && (
          <section className="folder-browser-recent" aria-labelledby={`${pathId}-recent`}>
            <h3 id={`${pathId}-recent`}>Recent</h3>
            <ul aria-label="Recent folders">
              {initial.recent.map((path) => (
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
