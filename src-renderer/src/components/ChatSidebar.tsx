import { type KeyboardEvent, type ReactNode, useState } from 'react'
import type { Chat } from '../../../src-shared/contract'
import { ConfirmDialog } from './ConfirmDialog'
import { PencilIcon, TrashIcon } from './icons'

interface ChatSidebarProps {
  chats: Chat[]
  selectedId: string | undefined
  settingsOpen: boolean
  onSelect(id: string): void
  onCreate(): void
  onRename(id: string, title: string): Promise<unknown>
  onDelete(id: string): Promise<unknown>
  onOpenSettings(): void
}

export function ChatSidebar(props: ChatSidebarProps) {
  const { chats, selectedId, settingsOpen, onSelect, onCreate, onOpenSettings } = props
  const [renamingId, setRenamingId] = useState<string>()
  const [deleting, setDeleting] = useState<Chat>()

  return (
    <aside className="sidebar">
      <header className="sidebar-header">
        <span className="brand">Atelier</span>
        <button type="button" className="primary" onClick={onCreate} title="New chat (Ctrl+N)">
          New chat
        </button>
      </header>
      <nav aria-label="Chats" className="chat-list">
        {chats.length === 0 ? (
          <p className="muted">No chats yet.</p>
        ) : (
          <ul>
            {chats.map((chat) =>
              chat.id === renamingId ? (
                <li key={chat.id} className="chat-row">
                  <RenameField
                    chat={chat}
                    onDone={async (title) => {
                      if (title !== undefined && title !== chat.title) await props.onRename(chat.id, title)
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
          </ul>
        )}
      </nav>
      <footer className="sidebar-footer">
        <button type="button" aria-pressed={settingsOpen} onClick={onOpenSettings}>
          Settings
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

function IconButton(props: { label: string; title: string; onClick(): void; children: ReactNode }) {
  return (
    <button
      type="button"
      className="icon"
      aria-label={props.label}
      title={props.title}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  )
}
