import { useCallback, useEffect, useRef, useState } from 'react'
import type { AtelierApi } from '../../src-shared/api'
import {
  type AppInfo,
  type Chat,
  type ChatSearchResult,
  chatFileTooLarge,
  type Preferences,
} from '../../src-shared/contract'
import { ChatPane } from './components/ChatPane'
import { ChatSearchDialog } from './components/ChatSearchDialog'
import { ChatSidebar } from './components/ChatSidebar'
import type { ChatLineage } from './components/chat/ChatLineageBar'
import type { RevealedMessage } from './components/chat/conversation'
import { SettingsView } from './components/SettingsView'
import { useSidebarFold } from './components/useSidebarFold'
import { Welcome } from './components/Welcome'
import { errorMessage } from './errors'
import type { SettingsTarget } from './settings-navigation'
import { applyTheme } from './theme'
import { useTurnNotifications } from './turn-notifications'

/** Settings opened at a target carry when, so opening the same target again goes there again. */
type View = { kind: 'chat' } | { kind: 'settings'; target?: SettingsTarget & { at: number } }

export function App({ api }: { api: AtelierApi }) {
  const [chats, setChats] = useState<Chat[]>([])
  const [selectedId, setSelectedId] = useState<string>()
  const [preferences, setPreferences] = useState<Preferences>()
  const [info, setInfo] = useState<AppInfo>()
  const [view, setView] = useState<View>({ kind: 'chat' })
  const [error, setError] = useState<string>()
  const sidebar = useSidebarFold()
  /**
   * Chats this window has just created: known to be empty, they show their help at once instead of
   * a blank pane while their (empty) conversation loads.
   */
  const [created, setCreated] = useState<ReadonlySet<string>>(() => new Set())
  /** The chat the person just made: its message box takes the keyboard. */
  const [justMade, setJustMade] = useState<string>()
  const [searching, setSearching] = useState(false)
  /** The message a search result opened its chat at. */
  const [revealed, setRevealed] = useState<RevealedMessage & { chatId: string }>()

  /** Runs a call, showing its failure in the error banner instead of losing it. */
  const attempt = useCallback(async <T,>(call: () => Promise<T>): Promise<T | undefined> => {
    try {
      const value = await call()
      setError(undefined)
      return value
    } catch (failure) {
      setError(errorMessage(failure))
      return undefined
    }
  }, [])

  useEffect(() => {
    void attempt(async () => {
      const [initialChats, initialPreferences, appInfo] = await Promise.all([
        api.chats.list(),
        api.preferences.get(),
        api.app.info(),
      ])
      setChats(initialChats)
      setSelectedId((current) => current ?? firstListed(initialChats))
      setPreferences(initialPreferences)
      setInfo(appInfo)
    })
    const unsubscribeChats = api.chats.onChanged(({ chats: next }) => setChats(next))
    const unsubscribePreferences = api.preferences.onChanged(setPreferences)
    return () => {
      unsubscribeChats()
      unsubscribePreferences()
    }
  }, [api, attempt])

  useEffect(() => applyTheme(preferences?.theme ?? 'system'), [preferences?.theme])

  // The selected chat may disappear (deleted here or in another window): fall back to the first listed.
  useEffect(() => {
    if (selectedId !== undefined && !chats.some((chat) => chat.id === selectedId))
      setSelectedId(firstListed(chats))
  }, [chats, selectedId])

  // A chat left before anything was written in it goes (the server checks it is still empty and untitled).
  const shownId = useRef<string>(undefined)
  useEffect(() => {
    const left = shownId.current
    shownId.current = selectedId
    if (left === undefined || left === selectedId) return
    api.chats.discardIfEmpty({ id: left }).catch((failure: unknown) => setError(errorMessage(failure)))
  }, [api, selectedId])

  /** Shows a chat just made here (by New chat, or by the first run). */
  const showCreated = useCallback((chat: Chat) => {
    setChats((current) => (current.some((c) => c.id === chat.id) ? current : [chat, ...current]))
    setCreated((current) => new Set(current).add(chat.id))
    setJustMade(chat.id)
    setSelectedId(chat.id)
    setView({ kind: 'chat' })
  }, [])

  /** A new chat where the person is: the current chat's folder, mode, provider, model and profile. */
  const createChat = useCallback(async () => {
    const chat = await attempt(() => api.chats.create(selectedId ? { like: selectedId } : {}))
    if (chat) showCreated(chat)
  }, [api, attempt, selectedId, showCreated])

  /** Shows the change at once; the saved value (or the old one, on failure) then settles it. */
  const updatePreferences = useCallback(
    async (changes: Partial<Preferences>) => {
      const previous = preferences
      setPreferences((current) => current && { ...current, ...changes })
      const saved = await attempt(() => api.preferences.update(changes))
      setPreferences(saved ?? previous)
    },
    [api, attempt, preferences],
  )

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.shiftKey || event.altKey) return
      const key = event.key.toLowerCase()
      if (key === 'n') {
        event.preventDefault()
        void createChat()
      } else if (key === 'k') {
        event.preventDefault()
        setSearching(true)
      }
    }
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [createChat])

  const openChat = useCallback((id: string) => {
    setSelectedId(id)
    setView({ kind: 'chat' })
  }, [])
  useTurnNotifications(api, chats, preferences?.notifications, openChat)

  const selected = chats.find((chat) => chat.id === selectedId)
  /** Opens the chat a search result is in, scrolled to its message. */
  const openResult = useCallback(
    (result: ChatSearchResult) => {
      setSearching(false)
      setJustMade(undefined)
      setSelectedId(result.chatId)
      setView({ kind: 'chat' })
      const { chatId, messageId, turnId, callId } = result
      setRevealed({ chatId, messageId, turnId, ...(callId !== undefined && { callId }), at: Date.now() })
      sidebar.closeDrawer()
    },
    [sidebar.closeDrawer],
  )
  const openSettings = useCallback(
    (target: SettingsTarget) => setView({ kind: 'settings', target: { ...target, at: Date.now() } }),
    [],
  )

  return (
    <div className={`app${sidebar.shown && !sidebar.overlay ? '' : ' app--folded'}`}>
      <ChatSidebar
        chats={chats}
        selectedId={view.kind === 'chat' ? selectedId : undefined}
        settingsOpen={view.kind === 'settings'}
        onSelect={(id) => {
          setJustMade(undefined)
          setSelectedId(id)
          setView({ kind: 'chat' })
          sidebar.closeDrawer()
        }}
        onCreate={() => {
          sidebar.closeDrawer()
          void createChat()
        }}
        onSearch={() => setSearching(true)}
        onRename={(id, title) => attempt(() => api.chats.rename({ id, title }))}
        onDelete={(id) => attempt(() => api.chats.delete({ id }))}
        onPin={(id, pinned) => attempt(() => api.chats.pin({ id, pinned }))}
        onArchive={(id, archived) => attempt(() => api.chats.archive({ id, archived }))}
        onImport={async (text) => {
          // Said before a large file is sent at all, and in words, rather than as a refused request.
          const tooLarge = chatFileTooLarge(text.length)
          if (tooLarge) return setError(tooLarge)
          const chat = await attempt(() => api.chats.import({ text }))
          if (!chat) return
          setSelectedId(chat.id)
          setView({ kind: 'chat' })
          sidebar.closeDrawer()
        }}
        onOpenSettings={() => {
          sidebar.closeDrawer()
          setView({ kind: 'settings' })
        }}
        shown={sidebar.shown}
        overlay={sidebar.overlay}
        onToggle={sidebar.toggle}
        onDismiss={sidebar.closeDrawer}
      />
      <main className="main">
        {error && (
          <div className="error-banner" role="alert">
            <span>{error}</span>
            <button
              type="button"
              className="ghost"
              onClick={() => setError(undefined)}
              aria-label="Dismiss error"
            >
              ×
            </button>
          </div>
        )}
        {view.kind === 'settings' ? (
          <SettingsView
            api={api}
            info={info}
            preferences={preferences}
            folder={selected?.workingDir ?? null}
            target={view.target}
            onChange={updatePreferences}
            onClose={() => setView({ kind: 'chat' })}
          />
        ) : selected ? (
          <ChatPane
            api={api}
            chat={selected}
            lineage={lineageOf(selected, chats)}
            fresh={created.has(selected.id)}
            focusComposer={justMade === selected.id}
            onOpenSettings={openSettings}
            onOpenChat={setSelectedId}
            {...(revealed?.chatId === selected.id && { reveal: revealed })}
          />
        ) : (
          <Welcome api={api} onOpen={showCreated} />
        )}
      </main>
      {searching && <ChatSearchDialog api={api} onOpen={openResult} onClose={() => setSearching(false)} />}
    </div>
  )
}

/** The chat to show first: the first of the list (pinned first), an archived one only if all are. */
function firstListed(chats: readonly Chat[]): string | undefined {
  return (chats.find((chat) => !chat.archived) ?? chats[0])?.id
}

/** The chat a fork was made from (null: deleted since) and the forks made from the chat. */
function lineageOf(chat: Chat, chats: readonly Chat[]): ChatLineage {
  const sourceId = chat.forkedFrom?.chatId
  return {
    source: sourceId === undefined ? undefined : (chats.find((each) => each.id === sourceId) ?? null),
    forks: chats.filter((each) => each.forkedFrom?.chatId === chat.id),
  }
}
