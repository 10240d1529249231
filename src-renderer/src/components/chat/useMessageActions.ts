import { useCallback, useMemo, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { errorMessage } from '../../errors'
import type { BranchOutcome } from './BranchNotice'
import type { Row } from './conversation'
import type { MessageActionsValue } from './message-actions-context'

interface MessageActionsOptions {
  chatId: string
  rows: readonly Row[]
  running: boolean
  /** Loads the conversation anew (an edit or a regenerate cut it). */
  resync: () => Promise<void>
  /** A turn was started from a message: the list goes to its end. */
  onStarted: () => void
  /** Opens another chat (a fork); absent where chats cannot be switched. */
  onOpenChat: ((chatId: string) => void) | undefined
  /** Whether the agent changed the folder after a turn (its checkpoints say). */
  filesChangedAfter: (turnId: string) => boolean
}

/**
 * The chat's side of the messages' actions: edit and resend, regenerate and fork from here, and
 * the notice of what the latest one did (where the earlier turns are kept, or why it was refused).
 */
export function useMessageActions(
  api: AtelierApi,
  { chatId, rows, running, resync, onStarted, onOpenChat, filesChangedAfter }: MessageActionsOptions,
) {
  const [outcome, setOutcome] = useState<BranchOutcome>()
  const lastRow = rows.findLast((row) => row.kind === 'user' || row.kind === 'assistant')
  const lastResponse = lastRow?.kind === 'assistant' && !lastRow.live ? lastRow.parts : undefined

  const edit = useCallback(
    async (turnId: string, prompt: string) => {
      const { fork } = await api.turns.edit({ chatId, turnId, prompt })
      setOutcome({ kind: 'kept', what: 'version', fork })
      onStarted()
      await resync()
    },
    [api, chatId, onStarted, resync],
  )

  const regenerate = useCallback(
    (turnId: string) => {
      api.turns.regenerate({ chatId, turnId }).then(
        ({ fork }) => {
          setOutcome({ kind: 'kept', what: 'answer', fork })
          onStarted()
          return resync()
        },
        (error) => setOutcome({ kind: 'failed', message: errorMessage(error) }),
      )
    },
    [api, chatId, onStarted, resync],
  )

  const fork = useCallback(
    (turnId: string, withFiles = false) => {
      api.chats.fork({ id: chatId, turnId, ...(withFiles && { restoreFiles: true }) }).then(
        ({ chat, restore }) => {
          const unrestored = [
            ...(restore?.conflicts.map((conflict) => conflict.path) ?? []),
            ...(restore?.notRestorable.map((item) => item.path) ?? []),
          ]
          // Files the restore left as they are: the person is told here, with the way to the fork.
          if (unrestored.length > 0) setOutcome({ kind: 'forked', fork: chat, unrestored })
          else onOpenChat?.(chat.id)
        },
        (error) => setOutcome({ kind: 'failed', message: errorMessage(error) }),
      )
    },
    [api, chatId, onOpenChat],
  )

  const value = useMemo<MessageActionsValue>(
    () => ({ running, lastResponse, edit, regenerate, fork, filesChangedAfter }),
    [running, lastResponse, edit, regenerate, fork, filesChangedAfter],
  )
  return { value, outcome, dismiss: () => setOutcome(undefined) }
}
