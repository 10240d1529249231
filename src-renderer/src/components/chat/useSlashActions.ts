import { useCallback, useState } from 'react'
import type { Compaction } from '../../../../src-shared/agent'
import type { AtelierApi } from '../../../../src-shared/api'
import type { SlashAction } from '../../../../src-shared/commands'
import { errorMessage } from '../../errors'
import { compactionOutcome } from './CompactButton'
import { outcomeSentences } from './checkpoint-words'

/** What a built-in action did, or why it could not, for the line above the composer. */
export interface SlashNotice {
  text: string
  failed: boolean
}

interface SlashActionsOptions {
  chatId: string
  /** The conversation's "Compact now", which also shows the compaction in the list. */
  compact(): Promise<Compaction | null>
  /** Opens another chat; absent where chats cannot be switched. */
  onOpenChat: ((chatId: string) => void) | undefined
}

const PLAN_MODE_NOTICE =
  'Plan mode: the agent explores and changes nothing, then proposes a plan for you to approve. Change the mode in the header to leave it.'

/**
 * The built-ins the app does itself rather than send: `/compact` compacts now, `/clear` opens a new
 * chat in the same folder (`chats.create({ like })`), `/undo` undoes the last turn that changed the
 * folder, as its Undo button does — a conflict (a file changed since) is left to that button, which
 * lets the person choose file by file — and `/plan` sets the chat's approval mode to plan.
 */
export function useSlashActions(api: AtelierApi, { chatId, compact, onOpenChat }: SlashActionsOptions) {
  const [notice, setNotice] = useState<SlashNotice>()

  const undoLastTurn = useCallback(async (): Promise<string> => {
    const { checkpoints } = await api.checkpoints.list({ chatId })
    const last = checkpoints.findLast(
      (checkpoint) => checkpoint.kind === 'turn' && checkpoint.undoneBy === null,
    )
    if (!last) return 'Nothing to undo: no turn of this chat has changed its folder.'
    if (last.endedAt === null) return 'The turn is still running: stop it, then undo.'
    const preview = await api.checkpoints.undo({ id: last.id, preview: true })
    if (preview.conflicts.length > 0) {
      return 'Not undone: files the turn changed were changed again since. Use Undo under the turn to choose which version to keep.'
    }
    const outcome = await api.checkpoints.undo({ id: last.id })
    return ['Undone.', ...outcomeSentences(outcome)].join(' ')
  }, [api, chatId])

  const run = useCallback(
    async (action: SlashAction) => {
      setNotice(undefined)
      try {
        if (action === 'compact') setNotice({ text: compactionOutcome(await compact()), failed: false })
        else if (action === 'undo') setNotice({ text: await undoLastTurn(), failed: false })
        else if (action === 'plan') {
          await api.chats.configure({ id: chatId, approvalMode: 'plan' })
          setNotice({ text: PLAN_MODE_NOTICE, failed: false })
        } else {
          const chat = await api.chats.create({ like: chatId })
          if (onOpenChat) onOpenChat(chat.id)
          else setNotice({ text: `A new chat was made: “${chat.title}”.`, failed: false })
        }
      } catch (failure) {
        setNotice({ text: `/${action} failed: ${errorMessage(failure)}`, failed: true })
      }
    },
    [api, chatId, compact, onOpenChat, undoLastTurn],
  )

  return { run, notice, dismiss: useCallback(() => setNotice(undefined), []) }
}
