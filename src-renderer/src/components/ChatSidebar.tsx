import {
  type ChangeEvent,
  type KeyboardEvent,
  type ReactNode,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react'
import type { Chat } from '../../../src-shared/contract'
import { ConfirmDialog } from './ConfirmDialog'
import { type ChatDay, groupByDay } from './chat-days'
import {
  ArchiveIcon,
  GearIcon,
  PencilIcon,
  PinIcon,
  PlusIcon,
  SearchIcon,
  SidebarIcon,
  TrashIcon,
} from './icons'

interface ChatSidebarProps {
  chats: Chat[]
  selectedId: string | undefined
  settingsOpen: boolean
  onSelect(id: string): void
  onCreate(): void
  /** Opens the search over every chat (Ctrl/Cmd+K). */
  onSearch(): void
  onRename(id: string, title: string): Promise<unknown>
  onDelete(id: string): Promise<unknown>
  onPin(id: string, pinned: boolean): Promise<unknown>
  onArchive(id: string, archived: boolean): Promise<unknown>
  /** A chat file's text (a JSON export) to import as a new chat. */
  onImport(text: string): Promise<unknown>
  onOpenSettings(): void
  /** Whether the list shows; folded, a rail keeps Show chats, New chat and Settings at hand. */
  shown: boolean
  /** The list opens over the chat (a narrow window) rather than beside it. */
  overlay: boolean
  onToggle(): void
  /** Folds a list open over the chat (Escape, a click elsewhere). */
  onDismiss(): void
}

export function ChatSidebar(props: ChatSidebarProps) {
  const { chats, selectedId, settingsOpen, onSelect, onCreate, onSearch, onOpenSettings, shown, overlay } =
    props
  const [renamingId, setRenamingId] = useState<string>()
  const [deleting, setDeleting] = useState<Chat>()
  // The archived chats instead of the list (the list's own toggle).
  const [showArchived, setShowArchived] = useState(false)
  const importInput = useRef<HTMLInputElement>(null)
  const toggleButton = useRef<HTMLButtonElement>(null)
  const aside = useRef<HTMLElement>(null)
  // The button pressed goes away with the state it showed: focus follows to the one that replaces it.
  const refocus = useRef(false)
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs after each fold or unfold, when the new button exists
  useEffect(() => {
    if (!refocus.current) return
    refocus.current = false
    toggleButton.current?.focus()
  }, [shown])

  const toggle = () => {
    refocus.current = true
    props.onToggle()
  }

  // A list open over the chat folds when the person clicks anywhere else.
  const { onDismiss } = props
  useEffect(() => {
    if (!overlay) return
    const outside = (event: PointerEvent) => {
      if (event.target instanceof Node && !aside.current?.contains(event.target)) onDismiss()
    }
    document.addEventListener('pointerdown', outside)
    return () => document.removeEventListener('pointerdown', outside)
  }, [overlay, onDismiss])

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (!overlay || event.key !== 'Escape' || event.defaultPrevented) return
    // Escape in the delete question or the title editor closes those, not the list.
    if (event.target instanceof Element && event.target.closest('dialog, input')) return
    event.preventDefault()
    refocus.current = true
    onDismiss()
  }

  const searchButton = (
    <button
      type="button"
      className="icon"
      aria-label="Search chats"
      title="Search chats (Ctrl+K)"
      onClick={onSearch}
    >
      <SearchIcon />
    </button>
  )
  const archivedCount = chats.filter((chat) => chat.archived).length
  const groups: ChatDay[] = showArchived
    ? [{ label: 'Archived', chats: chats.filter((chat) => chat.archived) }]
    : listGroups(chats.filter((chat) => !chat.archived))

  /** Reads the chosen file and imports it; the same file may be chosen again after. */
  const importFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0]
    event.target.value = ''
    if (file) await props.onImport(await file.text())
  }

  const rail = (
    <div className="sidebar-rail">
      <button
        ref={shown ? undefined : toggleButton}
        type="button"
        className="icon sidebar-toggle"
        aria-label="Show chats"
        title="Show chats"
        onClick={toggle}
      >
        <SidebarIcon />
      </button>
      <button
        type="button"
        className="icon"
        aria-label="New chat"
        title="New chat (Ctrl+N)"
        onClick={onCreate}
      >
        <PlusIcon />
      </button>
      {searchButton}
      <button
        type="button"
        className="icon sidebar-rail-settings"
        aria-label="Settings"
        title="Settings"
        aria-pressed={settingsOpen}
        onClick={onOpenSettings}
      >
        <GearIcon />
      </button>
    </div>
  )
  if (!shown) return rail

  return (
    <>
      {overlay && rail}
      {/* Escape anywhere in a list open over the chat folds it (see onKeyDown). */}
      <aside ref={aside} className={`sidebar${overlay ? ' sidebar--overlay' : ''}`} onKeyDown={onKeyDown}>
        <header className="sidebar-header">
          <button
            ref={toggleButton}
            type="button"
            className="icon sidebar-toggle"
            aria-label="Hide chats"
            title="Hide chats"
            onClick={toggle}
          >
            <SidebarIcon />
          </button>
          <span className="brand">Atelier</span>
          {searchButton}
          <button type="button" className="primary" onClick={onCreate} title="New chat (Ctrl+N)">
            New chat
          </button>
        </header>
        <nav aria-label="Chats" className="chat-list">
          {showArchived && archivedCount === 0 ? (
            <p className="muted">No archived chats.</p>
          ) : chats.length === 0 ? (
            <p className="muted">No chats yet.</p>
          ) : (
            groups.map((group) => (
              <ChatDayGroup key={group.label} label={group.label}>
                {group.chats.map((chat) =>
                  chat.id === renamingId ? (
                    <li key={chat.id} className="chat-row">
                      <RenameField
                        chat={chat}
                        onDone={async (title) => {
                          if (title !== undefined && title !== chat.title)
                            await props.onRename(chat.id, title)
                          setRenamingId(undefined)
                        }}
                      />
                    </li>
                  ) : (
                    <li key={chat.id} className="chat-row">
                      <button
                        type="button"
                        className="chat-link"
                        aria-current={chat.id === selectedId ? 'page' : undefined}
                        onClick={() => onSelect(chat.id)}
                        onDoubleClick={() => setRenamingId(chat.id)}
                      >
                        {chat.title}
                      </button>
                      <IconButton
                        label={`${chat.pinned ? 'Unpin' : 'Pin'} chat ${chat.title}`}
                        title={chat.pinned ? 'Unpin' : 'Pin to the top'}
                        pressed={chat.pinned}
                        onClick={() => void props.onPin(chat.id, !chat.pinned)}
                      >
                        <PinIcon />
                      </IconButton>
                      <IconButton
                        label={`${chat.archived ? 'Unarchive' : 'Archive'} chat ${chat.title}`}
                        title={chat.archived ? 'Back to the list' : 'Archive: keep it, out of the list'}
                        onClick={() => void props.onArchive(chat.id, !chat.archived)}
                      >
                        <ArchiveIcon />
                      </IconButton>
                      <IconButton
                        label={`Rename chat ${chat.title}`}
                        title="Rename"
                        onClick={() => setRenamingId(chat.id)}
                      >
                        <PencilIcon />
                      </IconButton>
                      <IconButton
                        label={`Delete chat ${chat.title}`}
                        title="Delete"
                        onClick={() => setDeleting(chat)}
                      >
                        <TrashIcon />
                      </IconButton>
                    </li>
                  ),
                )}
              </ChatDayGroup>
            ))
          )}
        </nav>
        <footer className="sidebar-footer">
          <button type="button" aria-pressed={settingsOpen} onClick={onOpenSettings}>
            Settings
          </button>
          <button
            type="button"
            className="ghost"
            aria-label="Import chat"
            title="Import a chat from a JSON file exported by Atelier"
            onClick={() => importInput.current?.click()}
          >
            Import
          </button>
          <input
            ref={importInput}
            type="file"
            accept=".json,application/json"
            aria-label="Chat file to import"
            hidden
            onChange={(event) => void importFile(event)}
          />
          <button
            type="button"
            className="ghost"
            aria-pressed={showArchived}
            title={showArchived ? 'Back to the chats' : 'The archived chats'}
            onClick={() => setShowArchived((shown) => !shown)}
          >
            Archived{archivedCount > 0 && ` (${archivedCount})`}
          </button>
        </footer>
        {deleting && (
          <ConfirmDialog
            title={`Delete “${deleting.title}”?`}
            message="The chat and everything in it are removed for good."
            confirmLabel="Delete"
            onCancel={() => setDeleting(undefined)}
            onConfirm={async () => {
              await props.onDelete(deleting.id)
              setDeleting(undefined)
            }}
          />
        )}
      </aside>
    </>
  )
}

/** The chats started on one day (or stretch of days): a heading, then their list, named by it. */
function ChatDayGroup({ label, children }: { label: string; children: ReactNode }) {
  const id = useId()
  return (
    <section className="chat-day" aria-labelledby={id}>
      <h2 id={id} className="chat-day-label">
        {label}
      </h2>
      <ul>{children}</ul>
    </section>
  )
}

/** Inline title editor: Enter saves, Escape cancels, leaving the field saves. */
function RenameField({ chat, onDone }: { chat: Chat; onDone(title: string | undefined): void }) {
  const [value, setValue] = useState(chat.title)
  const finish = (title: string | undefined) => onDone(title?.trim() ? title.trim() : undefined)
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') finish(value)
    if (event.key === 'Escape') finish(undefined)
  }
  return (
    <input
      className="rename-field"
      aria-label="Chat title"
      // biome-ignore lint/a11y/noAutofocus: the field appears because the user asked to rename
      autoFocus
      maxLength={200}
      value={value}
      onChange={(event) => setValue(event.target.value)}
      onKeyDown={onKeyDown}
      onBlur={() => finish(value)}
    />
  )
}

/** The pinned chats first, under their own heading; then the others by the day they started. */
function listGroups(chats: Chat[]): ChatDay[] {
  const pinned = chats.filter((chat) => chat.pinned)
  return [
    ...(pinned.length > 0 ? [{ label: 'Pinned', chats: pinned }] : []),
    ...groupByDay(chats.filter((chat) => !chat.pinned)),
  ]
}

function IconButton(props: {
  label: string
  title: string
  pressed?: boolean
  onClick(): void
  children: ReactNode
}) {
  return (
    <button
      type="button"
      className={`icon${props.pressed ? ' icon--on' : ''}`}
      aria-label={props.label}
      title={props.title}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  )
}
