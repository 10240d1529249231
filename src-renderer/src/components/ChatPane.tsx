import { useCallback, useEffect, useMemo, useState } from 'react'
import type { AtelierApi } from '../../../src-shared/api'
import { type ApprovalMode, DEFAULT_APPROVAL_MODE } from '../../../src-shared/approvals'
import type { Chat } from '../../../src-shared/contract'
import type { AgentProfile, ProviderInfo } from '../../../src-shared/providers'
import { errorMessage } from '../errors'
import { OpenSettingsContext, type SettingsTarget } from '../settings-navigation'
import { ApiContext } from './chat/api-context'
import { ChatBody } from './chat/ChatBody'
import { type ChatChanges, ChatHeader } from './chat/ChatHeader'
import { ChatIcon } from './chat/ChatIcon'
import { type ChatLineage, ChatLineageBar } from './chat/ChatLineageBar'
import { ChatContext } from './chat/chat-context'
import { conversationUsage, type RevealedMessage } from './chat/conversation'
import { ModelPicker } from './chat/ModelPicker'
import { TrustNotice } from './chat/TrustNotice'
import { useConversation } from './chat/useConversation'
import '../chat.css'
import '../daily-chat.css'

/** The chat's own mode, else its profile's (null: the built-in default profile). */
function effectiveApprovalMode(chat: Chat, agents: AgentProfile[] | undefined): ApprovalMode {
  const profile = agents?.find((agent) => agent.id === (chat.agent ?? 'default'))
  return chat.approvalMode ?? profile?.approvalMode ?? DEFAULT_APPROVAL_MODE
}

const NO_LINEAGE: ChatLineage = { source: undefined, forks: [] }

/**
 * A chat: its header (folder, mode, approval mode, profile, context, capabilities), the conversation as it
 * streams, and the composer with the provider and model. The conversation is keyed by chat, so switching
 * chats starts clean.
 */
export function ChatPane({
  api,
  chat,
  lineage = NO_LINEAGE,
  fresh = false,
  focusComposer = false,
  onOpenSettings,
  onOpenChat,
  reveal,
}: {
  api: AtelierApi
  chat: Chat
  /** The chat it was forked from and its forks, linked under the header. */
  lineage?: ChatLineage
  /** Created by this window, so known to be empty: its help shows before the (empty) load is back. */
  fresh?: boolean
  /** Just made by the person (New chat, Ctrl/Cmd+N): the message box takes the keyboard. */
  focusComposer?: boolean
  /** Opens Settings at a section: errors' actions and "Settings → …" links in messages use it. */
  onOpenSettings?: (target: SettingsTarget) => void
  /** Shows another chat: the fork a rewind moved the later turns to. */
  onOpenChat?: (chatId: string) => void
  /** The message the conversation opens at (a search result's), rather than at its end. */
  reveal?: RevealedMessage
}) {
  const [providers, setProviders] = useState<ProviderInfo[]>()
  const [agents, setAgents] = useState<AgentProfile[]>()

  useEffect(() => {
    api.providers.list().then(
      (list) => setProviders(list.providers),
      () => setProviders(undefined),
    )
    api.agents.list().then(setAgents, () => setAgents(undefined))
    const offProviders = api.providers.onChanged((list) => setProviders(list.providers))
    const offAgents = api.agents.onChanged(({ agents: list }) => setAgents(list))
    return () => {
      offProviders()
      offAgents()
    }
  }, [api])

  return (
    <ApiContext.Provider value={api}>
      <OpenSettingsContext.Provider value={onOpenSettings ?? null}>
        <ChatSession
          key={chat.id}
          api={api}
          chat={chat}
          lineage={lineage}
          fresh={fresh}
          focusComposer={focusComposer}
          providers={providers}
          agents={agents}
          onOpenChat={onOpenChat}
          reveal={reveal}
        />
      </OpenSettingsContext.Provider>
    </ApiContext.Provider>
  )
}

interface ChatSessionProps {
  api: AtelierApi
  chat: Chat
  lineage: ChatLineage
  fresh: boolean
  focusComposer: boolean
  providers: ProviderInfo[] | undefined
  agents: AgentProfile[] | undefined
  onOpenChat: ((chatId: string) => void) | undefined
  reveal: RevealedMessage | undefined
}

/** One chat on screen; keyed by chat, so its conversation (and the header's gauge) start clean. */
function ChatSession({
  api,
  chat,
  lineage,
  fresh,
  focusComposer,
  providers,
  agents,
  onOpenChat,
  reveal,
}: ChatSessionProps) {
  const [notice, setNotice] = useState<string>()
  const configure = useCallback(
    async (changes: ChatChanges) => {
      try {
        await api.chats.configure({ id: chat.id, ...changes })
      } catch (failure) {
        setNotice(errorMessage(failure))
      }
    },
    [api, chat.id],
  )
  const approvalMode = effectiveApprovalMode(chat, agents)
  // What the context window and the request's size depend on: asked again when any changes.
  const provider = chat.provider === null ? providers?.[0] : providers?.find((p) => p.id === chat.provider)
  const contextKey = JSON.stringify([
    chat.provider,
    chat.model,
    chat.agent,
    chat.mode,
    chat.workingDir,
    chat.approvalMode,
    provider?.id,
    provider?.defaultModel,
    provider?.contextWindow,
  ])
  const conversation = useConversation(api, chat.id, contextKey, fresh)
  const { messages, calls } = conversation.state
  const usage = useMemo(() => conversationUsage(messages, calls), [messages, calls])

  return (
    <section className="chat-view" aria-labelledby="chat-title">
      <ChatHeader
        api={api}
        chat={chat}
        agents={agents}
        approvalMode={approvalMode}
        context={conversation.state.context}
        usage={usage}
        running={conversation.running}
        onCompact={conversation.compact}
        onConfigure={configure}
        onError={setNotice}
      />
      <ChatLineageBar lineage={lineage} onOpenChat={onOpenChat} />
      <TrustNotice api={api} chat={chat} />
      {notice && (
        <div className="pane-notice" role="alert">
          <ChatIcon name="alert" size={16} />
          <span>{notice}</span>
          <button
            type="button"
            className="icon-button"
            aria-label="Dismiss"
            onClick={() => setNotice(undefined)}
          >
            <ChatIcon name="close" size={14} />
          </button>
        </div>
      )}
      <ChatContext.Provider value={chat}>
        <ChatBody
          conversation={conversation}
          chat={chat}
          approvalMode={approvalMode}
          noProvider={providers?.length === 0}
          onOpenChat={onOpenChat}
          reveal={reveal}
          autoFocus={focusComposer}
          toolbar={<ModelPicker api={api} chat={chat} providers={providers} onConfigure={configure} />}
        />
      </ChatContext.Provider>
    </section>
  )
}
