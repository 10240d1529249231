import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { Checkpoint } from '../../../../src-shared/checkpoints'

/** Changes, in files, a checkpoint records. */
export function changedCount(checkpoint: Checkpoint): number {
  return checkpoint.added + checkpoint.modified + checkpoint.deleted
}

/**
 * A chat's checkpoints, loaded when it opens and again on each `checkpoints.changed` for it (a turn's
 * was recorded or ended, a restore ran). `byTurn` holds each turn's; `changedTurns` the ended turns
 * that changed something, which get a Changes row.
 */
export function useCheckpoints(api: AtelierApi, chatId: string) {
  const [checkpoints, setCheckpoints] = useState<Checkpoint[]>([])
  /** Counts loads: an answer to an older one than the latest is out of date. */
  const asked = useRef(0)

  const reload = useCallback(async () => {
    const load = ++asked.current
    try {
      const list = await api.checkpoints.list({ chatId })
      if (load === asked.current) setCheckpoints(list.checkpoints)
    } catch {
      // Checkpoints are off, or the store cannot be read: the chat shows no Changes, as without any.
    }
  }, [api, chatId])

  useEffect(() => {
    const unsubscribe = api.checkpoints.onChanged(({ chatId: id }) => {
      if (id === chatId) void reload()
    })
    void reload()
    return unsubscribe
  }, [api, chatId, reload])

  const byTurn = useMemo(
    () =>
      new Map(
        checkpoints.flatMap((checkpoint) =>
          checkpoint.kind === 'turn' && checkpoint.turnId !== null ? [[checkpoint.turnId, checkpoint]] : [],
        ),
      ),
    [checkpoints],
  )
  const changedTurns = useMemo(
    () =>
      new Set(
        [...byTurn].flatMap(([turnId, checkpoint]) =>
          checkpoint.endedAt !== null && changedCount(checkpoint) > 0 ? [turnId] : [],
        ),
      ),
    [byTurn],
  )
  return { checkpoints, byTurn, changedTurns, reload }
}
