import { useEffect, useState } from 'react'
import type { ToolDisplay } from '../../../../src-shared/tools'
import { errorMessage } from '../../errors'
import { useApi } from './api-context'
import { useChat } from './chat-context'
import { FileLinesView } from './FileLinesView'
import { Modal } from './Modal'

type FileDisplay = Extract<ToolDisplay, { kind: 'file' }>

/** read_file's default window; a match further down starts the window a little above it. */
const WINDOW_LINES = 2000
const LINES_ABOVE = 100

type Reading = { kind: 'loading' } | { kind: 'read'; file: FileDisplay } | { kind: 'failed'; message: string }

/**
 * A file a tool named, opened for reading in the chat's folder. It is read with read_file through
 * the same executor as the playground (`tools.run`): the same settings, containment and denied
 * paths as the model's own reads, so it works alike in the desktop app and the web host.
 */
export function OpenFileDialog({ path, line, onClose }: { path: string; line?: number; onClose(): void }) {
  const api = useApi()
  const chat = useChat()
  const [reading, setReading] = useState<Reading>({ kind: 'loading' })

  useEffect(() => {
    let live = true
    const startLine = line !== undefined && line > WINDOW_LINES - LINES_ABOVE ? line - LINES_ABOVE : 1
    api.tools
      .run({
        name: 'read_file',
        arguments: JSON.stringify({ path, startLine }),
        workingDir: chat?.workingDir ?? null,
        mode: chat?.mode ?? 'agent',
      })
      .then(
        (result) => {
          if (!live) return
          if (result.display?.kind === 'file') setReading({ kind: 'read', file: result.display })
          else setReading({ kind: 'failed', message: result.content })
        },
        (error: unknown) => live && setReading({ kind: 'failed', message: errorMessage(error) }),
      )
    return () => {
      live = false
    }
  }, [api, chat?.workingDir, chat?.mode, path, line])

  return (
    <Modal title={path} onClose={onClose} className="file-dialog">
      {reading.kind === 'loading' && (
        <p className="muted" role="status">
          Reading {path}…
        </p>
      )}
      {reading.kind === 'failed' && (
        <p className="file-dialog-error" role="alert">
          {reading.message}
        </p>
      )}
      {reading.kind === 'read' && (
        <FileLinesView {...reading.file} {...(line !== undefined && { focusLine: line })} />
      )}
    </Modal>
  )
}
