import { memo, useEffect, useId, useRef, useState } from 'react'
import type { Compaction, ContextStatus } from '../../../../src-shared/agent'
import type { AtelierApi } from '../../../../src-shared/api'
import { APPROVAL_MODES, type ApprovalMode } from '../../../../src-shared/approvals'
import type { Chat, ChatMode, MethodRequest } from '../../../../src-shared/contract'
import { isAtelierErrorPayload } from '../../../../src-shared/errors'
import type { AgentProfile, ProviderInfo } from '../../../../src-shared/providers'
import { errorMessage } from '../../errors'
import { APPROVAL_MODE_HINTS, APPROVAL_MODE_LABELS } from '../approval-words'
import { CapabilitiesDialog } from './CapabilitiesDialog'
import { ChatIcon } from './ChatIcon'
import { CompactButton } from './CompactButton'
import { ContextGauge } from './ContextGauge'
import { FolderBrowserDialog } from './FolderBrowserDialog'
import { FolderChip } from './FolderChip'
import { type FolderBrowserStart, prepareFolderBrowser } from './folder-browser-start'
import { ModelField } from './ModelField'
import { ModeSwitch } from './ModeSwitch'
import { SnapshotProgressStatus } from './SnapshotProgressStatus'
import { useFolderMissing } from './useFolderMissing'
import { useHomeFolder } from './useHomeFolder'

type Changes = Omit<MethodRequest<'chats.configure'>, 'id'>

interface ChatHeaderProps {
  api: AtelierApi
  chat: Chat
  providers: ProviderInfo[] | undefined
  agents: AgentProfile[] | undefined
  /** The mode the next turn runs in: the chat's own, or its profile's. */
  approvalMode: ApprovalMode
  /** How full the model's context is; null when not known. */
  context: ContextStatus | null
  /** A turn runs (Compact now waits). */
  running: boolean
  onCompact(): Promise<Compaction | null>
  onError(message: string): void
}

const KIND_NAMES: Record<ProviderInfo['kind'], string> = {
  'openai-responses': 'OpenAI',
  'openai-chat': 'OpenAI-compatible',
  gemini: 'Gemini',
  anthropic: 'Anthropic',
}

/** Remembered for the session: once the OS dialog is known to be missing, the browser opens at once. */
let osDialogUnsupported = false

/**
 * The chat's title, how full its context is, and everything that shapes its next turn: folder,
 * mode, approval mode, provider, model, profile. Memoized: the conversation streaming below does
 * not render it again.
 */
export const ChatHeader = memo(function ChatHeader({
  api,
  chat,
  providers,
  agents,
  approvalMode,
  context,
  running,
  onCompact,
  onError,
}: ChatHeaderProps) {
  // The folder browser's first screen, once fetched; the browser shows only then, never "Loading…".
  const [browsing, setBrowsing] = useState<FolderBrowserStart>()
  const [inspecting, setInspecting] = useState(false)
  // Where the header is narrow, the next turn's settings (approval, provider, model, profile) fold under "More".
  const [moreOpen, setMoreOpen] = useState(false)
  const moreButton = useRef<HTMLButtonElement>(null)
  const morePanel = useRef<HTMLDivElement>(null)
  const moreId = useId()
  const home = useHomeFolder(api)
  const folderMissing = useFolderMissing(api, chat, running)
  const approvalId = useId()
  const providerId = useId()
  const agentId = useId()

  const configure = async (changes: Changes) => {
    try {
      await api.chats.configure({ id: chat.id, ...changes })
    } catch (failure) {
      onError(errorMessage(failure))
    }
  }

  /** Binding the first folder turns agent mode on: a folder is what agent mode works in. */
  const bind = (path: string) =>
    configure(
      chat.workingDir === null && chat.mode === 'chat'
        ? { workingDir: path, mode: 'agent' }
        : { workingDir: path },
    )

  const browse = async () => {
    try {
      setBrowsing(await prepareFolderBrowser(api, chat.workingDir))
    } catch (failure) {
      onError(errorMessage(failure))
    }
  }

  const chooseFolder = async () => {
    if (osDialogUnsupported) return browse()
    try {
      const { path } = await api.folders.pick()
      if (path) await bind(path)
    } catch (failure) {
      if (isAtelierErrorPayload(failure) && failure.code === 'unsupported') {
        osDialogUnsupported = true
        await browse()
      } else onError(errorMessage(failure))
    }
  }

  // An open menu folds again when the person clicks or moves focus anywhere else.
  useEffect(() => {
    if (!moreOpen) return
    const outside = (event: Event) => {
      const target = event.target as Node | null
      if (target && (morePanel.current?.contains(target) || moreButton.current?.contains(target))) return
      setMoreOpen(false)
    }
    // Escape folds it too, and focus goes back to More (a dialog's Escape is the dialog's own).
    const onEscape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return
      if (event.target instanceof Element && event.target.closest('dialog')) return
      event.preventDefault()
      setMoreOpen(false)
      moreButton.current?.focus()
    }
    document.addEventListener('pointerdown', outside)
    document.addEventListener('focusin', outside)
    document.addEventListener('keydown', onEscape)
    return () => {
      document.removeEventListener('pointerdown', outside)
      document.removeEventListener('focusin', outside)
      document.removeEventListener('keydown', onEscape)
    }
  }, [moreOpen])

  const first = providers?.[0]
  const effective = chat.provider === null ? first : providers?.find((p) => p.id === chat.provider)
  const knownProvider = chat.provider === null || providers === undefined || effective !== undefined
  const knownAgent = chat.agent === null || agents === undefined || agents.some((a) => a.id === chat.agent)

  return (
    <header className="chat-head">
      <div className="chat-head-top">
        <h1 id="chat-title" className="chat-title" title={chat.title}>
          {chat.title}
        </h1>
        <FolderChip
          folder={chat.workingDir}
          missing={folderMissing}
          home={home}
          onChoose={() => void chooseFolder()}
          onClear={() => void configure({ workingDir: null })}
        />
        <SnapshotProgressStatus api={api} folder={chat.workingDir} />
        <ModeSwitch
          mode={chat.mode}
          hasFolder={chat.workingDir !== null}
          onChange={(mode: ChatMode) => void configure({ mode })}
        />
        <ContextGauge context={context} />
        <CompactButton running={running} onCompact={onCompact} onError={onError} />
        <button
          type="button"
          className="head-button"
          title="Capabilities"
          onClick={() => setInspecting(true)}
        >
          <ChatIcon name="layers" size={14} />
          <span className="head-button-label">Capabilities</span>
        </button>
        {/* Shown only where the header is narrow (see chat.css): the next turn's settings fold under it. */}
        <button
          ref={moreButton}
          type="button"
          className="head-button chat-head-more"
          aria-expanded={moreOpen}
          aria-controls={moreId}
          onClick={() => setMoreOpen((open) => !open)}
        >
          <span className="visually-hidden">More chat settings</span>
          <span aria-hidden="true">More</span>
          <ChatIcon name={moreOpen ? 'chevron-up' : 'chevron-down'} size={14} />
        </button>
      </div>

      <div
        ref={morePanel}
        id={moreId}
        className={`chat-head-controls${moreOpen ? ' chat-head-controls--open' : ''}`}
      >
        <div className="header-field" title={APPROVAL_MODE_HINTS[approvalMode]}>
          <label htmlFor={approvalId} className="header-field-label">
            Approval mode
          </label>
          <select
            id={approvalId}
            className="header-input"
            value={approvalMode}
            aria-describedby={`${approvalId}-hint`}
            onChange={(event) => void configure({ approvalMode: event.target.value as ApprovalMode })}
          >
            {APPROVAL_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {APPROVAL_MODE_LABELS[mode]}
              </option>
            ))}
          </select>
          <span id={`${approvalId}-hint`} className="visually-hidden">
            {APPROVAL_MODE_HINTS[approvalMode]}
            {chat.approvalMode === null && ' (the agent profile’s default)'}
          </span>
        </div>

        <div className="chat-head-model">
          <div className="header-field">
            <label htmlFor={providerId} className="header-field-label">
              Provider
            </label>
            <select
              id={providerId}
              className="header-input"
              value={chat.provider ?? first?.id ?? ''}
              title={effective ? `${effective.name} · ${KIND_NAMES[effective.kind]}` : undefined}
              onChange={(event) => void configure({ provider: event.target.value || null })}
            >
              {/* Each provider once, by its name: a chat that names none uses the first, shown as chosen.
                  The kind joins a name only where two share it; the select's title tells it always. */}
              {!first && <option value="">First provider set up</option>}
              {providers?.map((provider) => (
                <option key={provider.id} value={provider.id}>
                  {providers.some((other) => other !== provider && other.name === provider.name)
                    ? `${provider.name} · ${KIND_NAMES[provider.kind]}`
                    : provider.name}
                </option>
              ))}
              {!knownProvider && chat.provider && <option value={chat.provider}>Removed provider</option>}
            </select>
          </div>

          <ModelField
            api={api}
            providerId={effective?.id}
            value={chat.model}
            placeholder={effective?.defaultModel ?? 'Provider default'}
            onCommit={(model) => void configure({ model })}
          />

          <div className="header-field">
            <label htmlFor={agentId} className="header-field-label">
              Agent profile
            </label>
            <select
              id={agentId}
              className="header-input"
              value={chat.agent ?? 'default'}
              onChange={(event) => void configure({ agent: event.target.value })}
            >
              {(agents ?? []).length === 0 && <option value="default">Default</option>}
              {agents?.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agent.name}
                </option>
              ))}
              {!knownAgent && chat.agent && <option value={chat.agent}>Removed profile</option>}
            </select>
          </div>
        </div>
      </div>

      {browsing && (
        <FolderBrowserDialog
          api={api}
          initial={browsing}
          onClose={() => setBrowsing(undefined)}
          onChoose={(path) => {
            setBrowsing(undefined)
            void bind(path)
          }}
        />
      )}
      {inspecting && <CapabilitiesDialog api={api} chatId={chat.id} onClose={() => setInspecting(false)} />}
    </header>
  )
})
