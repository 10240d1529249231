import { memo, useEffect, useId, useRef, useState } from 'react'
import type { Compaction, ContextStatus } from '../../../../src-shared/agent'
import type { AtelierApi } from '../../../../src-shared/api'
import { APPROVAL_MODES, type ApprovalMode } from '../../../../src-shared/approvals'
import type { Chat, ChatMode, MethodRequest } from '../../../../src-shared/contract'
import { isAtelierErrorPayload } from '../../../../src-shared/errors'
import type { AgentProfile } from '../../../../src-shared/providers'
import type { UsageTotal } from '../../../../src-shared/usage'
import { errorMessage } from '../../errors'
import { APPROVAL_MODE_HINTS, APPROVAL_MODE_LABELS } from '../approval-words'
import { CapabilitiesDialog } from './CapabilitiesDialog'
import { ChatExportMenu } from './ChatExportMenu'
import { ChatIcon } from './ChatIcon'
import { ChatUsage } from './ChatUsage'
import { CompactButton } from './CompactButton'
import { ContextGauge } from './ContextGauge'
import { FolderBrowserDialog } from './FolderBrowserDialog'
import { FolderChip } from './FolderChip'
import { type FolderBrowserStart, prepareFolderBrowser } from './folder-browser-start'
import { InstructionsChip } from './InstructionsChip'
import { ModeSwitch } from './ModeSwitch'
import { SnapshotProgressStatus } from './SnapshotProgressStatus'
import { useFolderMissing } from './useFolderMissing'
import { useHomeFolder } from './useHomeFolder'

/** What a chat's settings may change: its folder, mode, approval mode, provider, model, profile. */
export type ChatChanges = Omit<MethodRequest<'chats.configure'>, 'id'>

interface ChatHeaderProps {
  api: AtelierApi
  chat: Chat
  agents: AgentProfile[] | undefined
  /** The mode the next turn runs in: the chat's own, or its profile's. */
  approvalMode: ApprovalMode
  /** How full the model's context is; null when not known. */
  context: ContextStatus | null
  /** What the chat has used so far, its subagents included. */
  usage: UsageTotal
  /** A turn runs (Compact now waits). */
  running: boolean
  onCompact(): Promise<Compaction | null>
  /** Saves a change to the chat's settings (its failure is shown by the pane). */
  onConfigure(changes: ChatChanges): Promise<void>
  onError(message: string): void
}

/** Remembered for the session: once the OS dialog is known to be missing, the browser opens at once. */
let osDialogUnsupported = false

/**
 * One row: the chat's title, its folder and mode, the next turn's approval mode and profile as
 * chips, how full its context is, Compact now and Capabilities. The provider and model are chosen
 * in the composer's toolbar. Ctrl/Cmd+O chooses the folder. Memoized: the conversation streaming
 * below does not render it again.
 */
export const ChatHeader = memo(function ChatHeader({
  api,
  chat,
  agents,
  approvalMode,
  context,
  usage,
  running,
  onCompact,
  onConfigure,
  onError,
}: ChatHeaderProps) {
  // The folder browser's first screen, once fetched; the browser shows only then, never "Loading…".
  const [browsing, setBrowsing] = useState<FolderBrowserStart>()
  const [inspecting, setInspecting] = useState(false)
  // Where the header is narrow, the approval mode and profile chips fold under "More".
  const [moreOpen, setMoreOpen] = useState(false)
  const moreButton = useRef<HTMLButtonElement>(null)
  const morePanel = useRef<HTMLDivElement>(null)
  const moreId = useId()
  const home = useHomeFolder(api)
  const folderMissing = useFolderMissing(api, chat, running)
  const approvalHintId = useId()

  /** Binding the first folder turns agent mode on: a folder is what agent mode works in. */
  const bind = (path: string) =>
    onConfigure(
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

  // Ctrl/Cmd+O chooses the folder from anywhere in the chat, as Open does in other apps.
  const chooseFolderKey = useRef(chooseFolder)
  chooseFolderKey.current = chooseFolder
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.shiftKey || event.altKey) return
      if (event.key.toLowerCase() !== 'o' || event.defaultPrevented) return
      // A dialog open (the folder browser itself, say) keeps the keyboard.
      if (document.querySelector('dialog[open]')) return
      event.preventDefault()
      void chooseFolderKey.current()
    }
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [])

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
          onClear={() => void onConfigure({ workingDir: null })}
        />
        <SnapshotProgressStatus api={api} folder={chat.workingDir} />
        <InstructionsChip api={api} chat={chat} />
        <ModeSwitch
          mode={chat.mode}
          hasFolder={chat.workingDir !== null}
          onChange={(mode: ChatMode) => void onConfigure({ mode })}
        />
        {/* Chips where the header is wide; where it is narrow, a menu under More (see daily-chat.css). */}
        <div
          ref={morePanel}
          id={moreId}
          className={`chat-head-chips${moreOpen ? ' chat-head-chips--open' : ''}`}
        >
          <span className="head-chip" title={APPROVAL_MODE_HINTS[approvalMode]}>
            <ChatIcon name="shield" size={13} />
            <select
              className="head-chip-select"
              aria-label="Approval mode"
              aria-describedby={approvalHintId}
              value={approvalMode}
              onChange={(event) => void onConfigure({ approvalMode: event.target.value as ApprovalMode })}
            >
              {APPROVAL_MODES.map((mode) => (
                <option key={mode} value={mode}>
                  {APPROVAL_MODE_LABELS[mode]}
                </option>
              ))}
            </select>
            <span id={approvalHintId} className="visually-hidden">
              {APPROVAL_MODE_HINTS[approvalMode]}
              {chat.approvalMode === null && ' (the agent profile’s default)'}
            </span>
          </span>
          <span className="head-chip" title="Agent profile: its prompt, tools and default modes">
            <ChatIcon name="sparkle" size={13} />
            <select
              className="head-chip-select"
              aria-label="Agent profile"
              value={chat.agent ?? 'default'}
              onChange={(event) => void onConfigure({ agent: event.target.value })}
            >
              {(agents ?? []).length === 0 && <option value="default">Default</option>}
              {agents?.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agent.name}
                </option>
              ))}
              {!knownAgent && chat.agent && <option value={chat.agent}>Removed profile</option>}
            </select>
          </span>
        </div>
        <ContextGauge context={context} />
        <ChatUsage usage={usage} />
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
        <ChatExportMenu api={api} chatId={chat.id} onError={onError} />
        {/* Shown only where the header is narrow (see daily-chat.css): the chips fold under it. */}
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
