import { useCallback, useEffect, useMemo, useReducer, useRef } from 'react'
import type { ContextStatus } from '../../../../src-shared/agent'
import type { AtelierApi } from '../../../../src-shared/api'
import type { Attachment } from '../../../../src-shared/attachments'
import { isAtelierErrorPayload } from '../../../../src-shared/errors'
import type { Answer, Question } from '../../../../src-shared/questions'
import { errorMessage } from '../../errors'
import { type ComposerAttachment, toAttachment } from './attachments'
import { buildRows, conversationReducer, initialConversation, lastPrompt, runningTurn } from './conversation'

/**
 * One chat's conversation: loaded when the chat opens, kept live from `turns.event`, and settled
 * again from the database when a turn ends (so nothing a dropped event missed stays wrong). The
 * context gauge is asked for then too, and whenever `contextKey` (what the window depends on:
 * provider, model, their settings) changes. `fresh`: the chat was just created here, so it is empty.
 */
export function useConversation(api: AtelierApi, chatId: string, contextKey = '', fresh = false) {
  // A chat known to be empty (just created here) counts as loaded from the start: its help shows in
  // the first frame; the load still comes, and merges in whatever it finds.
  const [state, dispatch] = useReducer(conversationReducer, fresh, (empty) =>
    empty ? { ...initialConversation, loaded: true } : initialConversation,
  )
  /** Counts live `context` events: an answer of `chats.context` asked before one is out of date. */
  const liveContexts = useRef(0)

  const reloadContext = useCallback(async () => {
    const asked = liveContexts.current
    let context: ContextStatus | null
    try {
      context = await api.chats.context({ id: chatId })
    } catch {
      // No provider set up (or it is gone): the gauge has nothing to say.
      context = null
    }
    if (liveContexts.current === asked) dispatch({ type: 'context_loaded', context })
  }, [api, chatId])

  /** Loads the conversation again; `replace`: what is shown goes (a rewind cut it), else the load merges in. */
  const reload = useCallback(
    async (replace = false) => {
      try {
        const { messages, turns, compactions, calls } = await api.chats.messages({ id: chatId })
        dispatch({ type: 'loaded', messages, turns, compactions, calls, replace })
      } catch (failure) {
        dispatch({ type: 'load_failed', message: errorMessage(failure) })
      }
    },
    [api, chatId],
  )

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new contextKey is what asks again
  useEffect(() => {
    void reloadContext()
  }, [contextKey, reloadContext])

  /** "Compact now": resolves with the compaction (null: nothing to compact); rejects with the error. */
  const compact = useCallback(async () => {
    const { compaction } = await api.chats.compact({ id: chatId })
    if (compaction) dispatch({ type: 'compacted', compaction })
    void reloadContext()
    return compaction
  }, [api, chatId, reloadContext])

  useEffect(() => {
    // Subscribe first: an event arriving while the load is on its way is merged, not lost.
    const unsubscribe = api.turns.onEvent(({ chatId: id, turnId, event }) => {
      if (id !== chatId) return
      if (event.type === 'context') liveContexts.current++
      dispatch({ type: 'event', turnId, event })
      if (event.type === 'turn_completed' || event.type === 'turn_error') {
        void reload()
        void reloadContext()
      }
    })
    // A question still waiting (a reload, another window's turn) comes with its call.
    void reload()
    return unsubscribe
  }, [api, chatId, reload, reloadContext])

  // A retry notice goes away by itself once its wait is over (and a little after).
  useEffect(() => {
    if (!state.retry) return
    const timer = setTimeout(() => dispatch({ type: 'dismiss_retry' }), state.retry.delayMs + 4000)
    return () => clearTimeout(timer)
  }, [state.retry])

  const busy = useRef(false)
  const send = useCallback(
    async (
      prompt: string,
      attachments: Attachment[] = [],
      shown: ComposerAttachment[] = [],
    ): Promise<boolean> => {
      if (busy.current) return false
      busy.current = true
      dispatch({ type: 'starting' })
      try {
        await api.turns.start({ chatId, prompt, ...(attachments.length > 0 && { attachments }) })
        dispatch({ type: 'started' })
        return true
      } catch (failure) {
        const code = isAtelierErrorPayload(failure) ? failure.code : 'internal'
        dispatch({
          type: 'start_failed',
          failure: { prompt, attachments: shown, code, message: errorMessage(failure) },
        })
        // Another window may be running a turn here: show it.
        if (code === 'turn_running') void reload()
        return false
      } finally {
        busy.current = false
      }
    },
    [api, chatId, reload],
  )

  /**
   * Retry: a prompt that was refused (nothing stored) is sent again, with what it attached; a turn
   * that failed runs again from its stored prompt (its attachments are in it), so nothing is sent twice.
   */
  const retry = useCallback(async (): Promise<boolean> => {
    const failure = state.startFailure
    if (failure && !failure.rerun) {
      return send(failure.prompt, (failure.attachments ?? []).map(toAttachment), failure.attachments ?? [])
    }
    if (busy.current) return false
    busy.current = true
    dispatch({ type: 'starting' })
    try {
      await api.turns.retry({ chatId })
      dispatch({ type: 'started' })
      return true
    } catch (failure) {
      const code = isAtelierErrorPayload(failure) ? failure.code : 'internal'
      // Shown as a refused send, whose own Retry runs the turn again (never sends the prompt anew).
      const prompt = lastPrompt(state) ?? ''
      dispatch({
        type: 'start_failed',
        failure: { prompt, code, message: errorMessage(failure), rerun: true },
      })
      if (code === 'turn_running') void reload()
      return false
    } finally {
      busy.current = false
    }
  }, [api, chatId, reload, send, state])

  const stop = useCallback(async () => {
    try {
      await api.turns.stop({ chatId })
    } catch {
      // The turn may have ended on its own meanwhile; its events tell the rest.
    }
  }, [api, chatId])

  /**
   * Answers the question a call waits on. Rejects with the error payload (an answer that does not
   * fit), for the card to show; the call's next state ends the question either way.
   */
  const answer = useCallback(
    async (question: Question, reply: Answer) => {
      await api.calls.answer({ chatId, questionId: question.id, answer: reply })
    },
    [api, chatId],
  )

  const rows = useMemo(() => buildRows(state), [state])
  const running = state.starting || runningTurn(state) !== undefined
  const retryPrompt = lastPrompt(state)

  /** After a rewind cut the conversation: it is loaded anew, and the context gauge asked again. */
  const resync = useCallback(async () => {
    await reload(true)
    void reloadContext()
  }, [reload, reloadContext])

  return { state, rows, running, send, stop, retryPrompt, retry, answer, compact, resync }
}
