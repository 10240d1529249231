import { useEffect, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { Chat } from '../../../../src-shared/contract'

/**
 * Whether the chat's bound folder is gone, in which case its tools are refused. Nothing tells the
 * app when a folder is deleted or a drive unmounted, so it is asked when the chat or its folder
 * changes, when a turn ends (its tools may just have been refused) and when the window comes back.
 */
export function useFolderMissing(api: AtelierApi, chat: Chat, running: boolean): boolean {
  const [missing, setMissing] = useState(false)
  const { id, workingDir } = chat
  useEffect(() => {
    if (workingDir === null) {
      setMissing(false)
      return
    }
    // Asked again once the turn has ended.
    if (running) return
    let live = true
    const check = () => {
      api.folders.status({ chatId: id }).then(
        (status) => live && setMissing(status.missing),
        // Not knowing is not "missing": the tools themselves still say so.
        () => {},
      )
    }
    check()
    window.addEventListener('focus', check)
    return () => {
      live = false
      window.removeEventListener('focus', check)
    }
  }, [api, id, workingDir, running])
  return missing
}
