import { useEffect, useState } from 'react'
import type { AtelierApi } from '../../../src-shared/api'
import { type ApprovalMode, DEFAULT_APPROVAL_MODE } from '../../../src-shared/approvals'
import type { Chat } from '../../../src-shared/contract'
import type { AgentProfile, ProviderInfo } from '../../../src-shared/providers'
import { ApiContext } from './chat/api-context'
import { ChatBody } from './chat/ChatBody'
import { ChatHeader } from './chat/ChatHeader'
import { ChatIcon } from './chat/ChatIcon'
import { TrustNotice } from './chat/TrustNotice'
import '../chat.css'

/** The chat's own mode, else its profile's (null: the built-in default profile). */
function effectiveApprovalMode(chat: Chat, agents: AgentProfile[] | undefined): ApprovalMode {
  const profile = agents?.find((agent) => agent.id === (chat.agent ?? 'default'))
  return chat.approvalMode ?? profile?.approvalMode ?? DEFAULT_APPROVAL_MODE
}

/**
 * A chat: its header (folder, mode, approval mode, provider, model, profile, capabilities), the conversation as it
 * streams, and the composer. The conversation is keyed by chat, so switching chats starts clean.
 */
export function ChatPane({ api, chat }: { api: AtelierApi; chat: Chat }) {
  const [providers, setProviders] = useState<ProviderInfo[]>()
  const [agents, setAgents] = useState<AgentProfile[]>()
  const [notice, setNotice] = useState<string>()

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

  const approvalMode = effectiveApprovalMode(chat, agents)

  return (
    <ApiContext.Provider value={api}>
      <section className="chat-view" aria-labelledby="chat-title">
        <ChatHeader
          api={api}
          chat={chat}
          providers={providers}
          agents={agents}
          approvalMode={approvalMode}
          onError={setNotice}
        />
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
        <ChatBody
          key={chat.id}
          api={api}
          chat={chat}
          approvalMode={approvalMode}
          noProvider={providers?.length === 0}
        />
      </section>
    </ApiContext.Provider>
  )
}
