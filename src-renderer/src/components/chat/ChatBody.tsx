import { type KeyboardEvent, useCallback, useMemo, useRef, useState } from 'react'
import type { ApprovalMode } from '../../../../src-shared/approvals'
import type { Chat } from '../../../../src-shared/contract'
import { type ComposerAttachment, toAttachment } from './attachments'
import { Composer } from './Composer'
import { runningTurn } from './conversation'
import { EmptyConversation } from './EmptyConversation'
import { MessageList } from './MessageList'
import { promptsOf } from './prompt-history'
import { QuestionsContext, type QuestionsContextValue } from './questions-context'
import { TurnBanners } from './TurnBanners'
import type { useConversation } from './useConversation'

interface ChatBodyProps {
  /** The chat's conversation (its pane holds it: the header shows its context and compacts it). */
  conversation: ReturnType<typeof useConversation>
  chat: Chat
  /** The mode the chat's next turn runs in (its own, or its profile's). */
  approvalMode: ApprovalMode
  /** The providers list came back empty: the empty state explains how to add one. */
  noProvider: boolean
}

/** One chat's conversation and composer; mounted per chat, so nothing leaks from one to the next. */
export function ChatBody({ conversation, chat, approvalMode, noProvider }: ChatBodyProps) {
  const { state, rows, running, send, stop, retryPrompt, retry, answer } = conversation
  const [draft, setDraft] = useState('')
  const [attachments, setAttachments] = useState<ComposerAttachment[]>([])
  const textarea = useRef<HTMLTextAreaElement>(null)
  const promptHistory = useMemo(() => promptsOf(state.messages), [state.messages])
  /** Counts sends and retries: each brings the list to its end, to the new prompt. */
  const [follow, setFollow] = useState(0)

  // Only when focus went nowhere: the next waiting card may already have taken it.
  const returnFocus = useCallback(() => {
    if (!document.activeElement || document.activeElement === document.body) textarea.current?.focus()
  }, [])
  const questions = useMemo<QuestionsContextValue>(() => ({ answer, returnFocus }), [answer, returnFocus])

  const submit = async (prompt: string, fromComposer: boolean, attached: ComposerAttachment[]) => {
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

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || event.defaultPrevented || !running) return
    // Escape in a dialog (a compaction's summary, say) closes the dialog, not the turn.
    if (event.target instanceof Element && event.target.closest('dialog')) return
    event.preventDefault()
    onStop()
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
        <MessageList
          rows={rows}
          calls={state.calls}
          output={state.output}
          activeTurnId={runningTurn(state)?.id}
          follow={follow}
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
      </QuestionsContext.Provider>
      <div className="composer-dock">
        <TurnBanners retry={state.retry} unavailableServers={state.unavailableServers} />
        <Composer
          value={draft}
          onChange={setDraft}
          onSend={() => void submit(draft.trim(), true, attachments)}
          attachments={attachments}
          onAttachmentsChange={setAttachments}
          chatId={chat.id}
          folder={chat.workingDir}
          history={promptHistory}
          onStop={onStop}
          running={running}
          textarea={textarea}
          placeholder={
            chat.workingDir && chat.mode === 'agent'
              ? `Ask about ${chat.workingDir.split(/[\\/]/).filter(Boolean).at(-1) ?? 'the project'}, or ask for a change…`
              : 'Ask anything…'
          }
        />
      </div>
    </div>
  )
}
