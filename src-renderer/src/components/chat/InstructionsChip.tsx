import { useCallback, useEffect, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { Chat } from '../../../../src-shared/contract'
import type { InstructionFileInfo } from '../../../../src-shared/instructions'

/**
 * "AGENTS.md" beside the folder when the project's instruction files reach the model; its title
 * lists them. Read again when the chat's folder or mode changes, and when a turn ends (it may have
 * taken in a subfolder's).
 */
export function InstructionsChip({ api, chat }: { api: AtelierApi; chat: Chat }) {
  const [files, setFiles] = useState<InstructionFileInfo[]>([])
  const { id, workingDir, mode } = chat
  // biome-ignore lint/correctness/useExhaustiveDependencies: the folder and mode decide the files
  const load = useCallback(() => {
    api.chats.instructions({ id }).then(
      (answer) => setFiles(answer.files),
      () => setFiles([]),
    )
  }, [api, id, workingDir, mode])
  useEffect(() => {
    load()
    return api.turns.onEvent(({ chatId, event }) => {
      if (chatId === id && (event.type === 'turn_completed' || event.type === 'turn_error')) load()
    })
  }, [api, id, load])
  if (files.length === 0) return null
  const names = files.map((file) => `${file.label} (about ${file.tokens} tokens${file.cut ? ', cut' : ''})`)
  return (
    <span className="head-chip instructions-chip" title={`Project instructions: ${names.join(', ')}`}>
      {files.length === 1 ? files[0]?.label.split('/').pop() : `${files.length} instruction files`}
    </span>
  )
}
