import { type KeyboardEvent, type ReactNode, useCallback, useMemo, useRef, useState } from 'react'
import type { ApprovalMode } from '../../../../src-shared/approvals'
import type { RestoreOutcome, RestoreScope } from '../../../../src-shared/checkpoints'
import { slashActionOf } from '../../../../src-shared/commands'
import type { Chat } from '../../../../src-shared/contract'
import { useApi } from './api-context'
import { type ComposerAttachment, toAttachment } from './attachments'
import { BranchNotice } from './BranchNotice'
import { ChatIcon } from './ChatIcon'
import { Composer } from './Composer'
import { CheckpointsContext, type CheckpointsContextValue } from './checkpoints-context'
import {
  callKey,
  latestPlan,
  type RevealedMessage,
  rowKeyOfMessage,
  runningTurn,
  withChangesRows,
} from './conversation'
import { EmptyConversation } from './EmptyConversation'
import { MessageList } from './MessageList'
import { MessageActionsContext } from './message-actions-context'
import { PlanChecklist } from './PlanCards'
import { promptsOf, promptText } from './prompt-history'
import { QuestionsContext, type QuestionsContextValue } from './questions-context'
import { RewindDialog } from './RewindDialog'
import { RewindListDialog } from './RewindListDialog'
import { RewindNotice } from './RewindNotice'
import { RevealedCallContext } from './revealed-call-context'
import { SubagentsContext } from './subagents-context'
import { TurnBanners } from './TurnBanners'
import { changedCount, useCheckpoints } from './useCheckpoints'
import type { useConversation } from './useConversation'
import { useMessageActions } from './useMessageActions'
import { useSlashActions } from './useSlashActions'

interface ChatBodyProps {
  /** The chat's conversation (its pane holds it: the header shows its context and compacts it). */
  conversation: ReturnType<typeof useConversation>
  chat: Chat
  /** The mode the chat's next turn runs in (its own, or its profile's). */
  approvalMode: ApprovalMode
  /** The providers list came back empty: the empty state explains how to add one. */
  noProvider: boolean
  /** Opens another chat (the fork a rewind made); absent where chats cannot be switched. */
  onOpenChat?: ((chatId: string) => void) | undefined
  /** The message the list opens at (a search result's). */
  reveal?: RevealedMessage | undefined
  /** The message box takes the keyboard when shown (a chat just made). */
  autoFocus?: boolean
  /** The composer's toolbar controls beside the paperclip (the provider and model). */
  toolbar?: ReactNode
}

/** Two Escapes this close together (ms), with no turn running, open the rewind list. */
const DOUBLE_ESCAPE_MS = 500

/** One chat's conversation and composer; mounted per chat, so nothing leaks from one to the next. */
export function ChatBody({
  conversation,
  chat,
  approvalMode,
  noProvider,
  onOpenChat,
  reveal,
  autoFocus = false,
  toolbar,
}: ChatBodyProps) {
  const { state, rows, running, send, stop, retryPrompt, retry, answer, resync, compact } = conversation
  const api = useApi()
  const { byTurn, changedTurns } = useCheckpoints(api, chat.id)
  const shownRows = useMemo(() => withChangesRows(rows, changedTurns), [rows, changedTurns])
  const plan = useMemo(() => latestPlan(state), [state])
  /** The prompt whose Rewind dialog is open, by its turn. */
  const [rewinding, setRewinding] = useState<string>()
  const [choosingRewind, setChoosingRewind] = useState(false)
  const [rewound, setRewound] = useState<{ outcome: RestoreOutcome; scope: RestoreScope }>()
  const lastEscape = useRef(Number.NEGATIVE_INFINITY)
  const checkpoints = useMemo<CheckpointsContextValue>(
    () => ({ byTurn, running, rewind: setRewinding }),
    [byTurn, running],
  )
  const prompts = useMemo(() => state.messages.filter((message) => message.role === 'user'), [state.messages])
  const rewindPrompt = prompts.find((message) => message.turnId === rewinding)
  const [draft, setDraft] = useState('')
  const [attachments, setAttachments] = useState<ComposerAttachment[]>([])
  const textarea = useRef<HTMLTextAreaElement>(null)
  const promptHistory = useMemo(() => promptsOf(state.messages), [state.messages])
  /** Counts sends and retries: each brings the list to its end, to the new prompt. */
  const [follow, setFollow] = useState(0)
  const revealedCall = reveal?.callId === undefined ? undefined : callKey(reveal.turnId, reveal.callId)
  const revealedRow = useMemo(() => {
    const key = reveal && rowKeyOfMessage(state.messages, reveal)
    return key === undefined || !reveal ? undefined : { key, at: reveal.at }
  }, [reveal, state.messages])

  // Only when focus went nowhere: the next waiting card may already have taken it.
  const returnFocus = useCallback(() => {
    if (!document.activeElement || document.activeElement === document.body) textarea.current?.focus()
  }, [])
  const questions = useMemo<QuestionsContextValue>(() => ({ answer, returnFocus }), [answer, returnFocus])
  // An edited prompt or a regenerated answer is a send: the list follows it, the box has focus.
  const onBranched = useCallback(() => {
    setRewound(undefined)
    setFollow((count) => count + 1)
    textarea.current?.focus()
  }, [])
  const filesChangedAfter = useCallback(
    (turnId: string) => {
      const turns = [...new Set(state.messages.map((message) => message.turnId))]
      return turns.slice(turns.indexOf(turnId) + 1).some((later) => changedTurns.has(later))
    },
    [state.messages, changedTurns],
  )
  const messageActions = useMessageActions(api, {
    chatId: chat.id,
    rows,
    running,
    resync,
    onStarted: onBranched,
    onOpenChat,
    filesChangedAfter,
  })

  const slash = useSlashActions(api, { chatId: chat.id, compact, onOpenChat })

  const submit = async (prompt: string, fromComposer: boolean, attached: ComposerAttachment[]) => {
    setRewound(undefined)
    messageActions.dismiss()
    slash.dismiss()
    // `/compact`, `/clear`, `/undo` are done here, not sent; what was attached stays for the next prompt.
    const action = slashActionOf(prompt)
    if (action) {
      if (fromComposer) setDraft('')
      textarea.current?.focus()
      await slash.run(action)
      return
    }
    if (fromComposer) {
      setDraft('')
      setAttachments([])
    }
    textarea.current?.focus()
    setFollow((count) => count + 1)
    const sent = await send(prompt, attached.map(toAttachment), attached)
    // A refused prompt comes back to the box, unless something new was typed meanwhile.
    if (!sent && fromComposer) {
      setDraft((current) => (current === '' ? prompt : current))
      setAttachments((current) => (current.length === 0 ? attached : current))
    }
  }

  const onStop = () => {
    void stop()
    textarea.current?.focus()
  }

  // Escape stops a running turn; with none running, Esc Esc opens the rewind list (as peers do).
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || event.defaultPrevented) return
    // Escape in a dialog (a compaction's summary, say) closes the dialog, not the turn.
    if (event.target instanceof Element && event.target.closest('dialog')) return
    if (running) {
      event.preventDefault()
      onStop()
      return
    }
    if (event.timeStamp - lastEscape.current > DOUBLE_ESCAPE_MS) {
      lastEscape.current = event.timeStamp
      return
    }
    lastEscape.current = Number.NEGATIVE_INFINITY
    event.preventDefault()
    setChoosingRewind(true)
  }

  const onRewound = (outcome: RestoreOutcome, scope: RestoreScope) => {
    setRewinding(undefined)
    setRewound({ outcome, scope })
    if (scope === 'files') return
    void resync()
    // The prompt goes back to the composer, as it was before it was sent (unless something is being written).
    const text = rewindPrompt ? promptText(rewindPrompt) : ''
    setDraft((current) => (current === '' ? text : current))
    // After the dialog has closed and given focus back to what opened it (a prompt now gone).
    requestAnimationFrame(() => textarea.current?.focus())
  }

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Esc anywhere in the conversation stops the turn
    <div className="chat-body" onKeyDown={onKeyDown}>
      {state.loadError && (
        <p className="inline-error chat-body-error" role="alert">
          The conversation could not be loaded: {state.loadError}
        </p>
      )}
      <QuestionsContext.Provider value={questions}>
        <CheckpointsContext.Provider value={checkpoints}>
          <MessageActionsContext.Provider value={messageActions.value}>
            <SubagentsContext.Provider value={state.subagents}>
              <RevealedCallContext.Provider value={revealedCall}>
                <MessageList
                  rows={shownRows}
                  calls={state.calls}
                  output={state.output}
                  activeTurnId={runningTurn(state)?.id}
                  follow={follow}
                  reveal={revealedRow}
                  onRetry={
                    !running && retryPrompt
                      ? () => {
                          textarea.current?.focus()
                          setFollow((count) => count + 1)
                          void retry()
                        }
                      : undefined
                  }
                  empty={
                    state.loaded ? (
                      <EmptyConversation
                        noProvider={noProvider}
                        workingDir={chat.workingDir}
                        mode={chat.mode}
                        approvalMode={approvalMode}
                      />
                    ) : null
                  }
                />
              </RevealedCallContext.Provider>
            </SubagentsContext.Provider>
          </MessageActionsContext.Provider>
        </CheckpointsContext.Provider>
      </QuestionsContext.Provider>
      <div className="composer-dock">
        {rewound && (
          <RewindNotice
            outcome={rewound.outcome}
            scope={rewound.scope}
            onOpenChat={onOpenChat}
            onDismiss={() => setRewound(undefined)}
          />
        )}
        {messageActions.outcome && (
          <BranchNotice
            outcome={messageActions.outcome}
            onOpenChat={onOpenChat}
            onDismiss={messageActions.dismiss}
          />
        )}
        {slash.notice && (
          <div
            className={`rewind-notice${slash.notice.failed ? ' branch-notice--failed' : ''}`}
            role={slash.notice.failed ? 'alert' : 'status'}
          >
            <ChatIcon name={slash.notice.failed ? 'alert' : 'check'} size={14} />
            <p>{slash.notice.text}</p>
            <button type="button" className="icon-button" aria-label="Dismiss" onClick={slash.dismiss}>
              <ChatIcon name="close" size={14} />
            </button>
          </div>
        )}
        <TurnBanners retry={state.retry} unavailableServers={state.unavailableServers} />
        {plan && <PlanChecklist label="Plan" steps={plan.steps} explanation={plan.explanation} />}
        <Composer
          value={draft}
          onChange={setDraft}
          onSend={() => void submit(draft.trim(), true, attachments)}
          onCommand={(text) => void submit(text, true, attachments)}
          attachments={attachments}
          onAttachmentsChange={setAttachments}
          chatId={chat.id}
          folder={chat.workingDir}
          history={promptHistory}
          onStop={onStop}
          running={running}
          textarea={textarea}
          autoFocus={autoFocus}
          toolbar={toolbar}
          placeholder={
            chat.workingDir && chat.mode === 'agent'
              ? `Ask about ${chat.workingDir.split(/[\\/]/).filter(Boolean).at(-1) ?? 'the project'}, or ask for a change…`
              : 'Ask anything…'
          }
        />
      </div>
      {choosingRewind && (
        <RewindListDialog
          points={[...prompts].reverse().map((message) => {
            const checkpoint = byTurn.get(message.turnId)
            return {
              turnId: message.turnId,
              text: promptText(message),
              sentAt: message.createdAt,
              files: checkpoint && changedCount(checkpoint),
            }
          })}
          onChoose={(turnId) => {
            setChoosingRewind(false)
            setRewinding(turnId)
          }}
          onClose={() => setChoosingRewind(false)}
        />
      )}
      {rewindPrompt && (
        <RewindDialog
          chatId={chat.id}
          turnId={rewindPrompt.turnId}
          prompt={promptText(rewindPrompt)}
          onClose={() => setRewinding(undefined)}
          onRewound={onRewound}
        />
      )}
    </div>
  )
}
