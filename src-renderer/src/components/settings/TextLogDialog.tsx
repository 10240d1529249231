import { useCallback, useEffect, useState } from 'react'
import { errorMessage } from '../../errors'
import { Modal } from '../chat/Modal'
import { Notice } from './Notice'

/** What a log dialog shows: the text, and the file it was read from when there is one. */
export interface TextLog {
  text: string
  path?: string
}

interface TextLogDialogProps {
  /** The dialog's title, and the name of its log region. */
  title: string
  description: string
  /** Reads the log again; called on opening and on Refresh. */
  load(): Promise<TextLog>
  onClose(): void
}

/** A dialog showing a text log (a process's stderr, a module's log file), with Refresh. */
export function TextLogDialog({ title, description, load, onClose }: TextLogDialogProps) {
  const [log, setLog] = useState<TextLog>()
  const [error, setError] = useState<string>()

  const refresh = useCallback(
    () =>
      load().then(
        (result) => {
          setLog(result)
          setError(undefined)
        },
        (failure: unknown) => setError(errorMessage(failure)),
      ),
    [load],
  )

  useEffect(() => {
    void refresh()
  }, [refresh])

  return (
    <Modal
      title={title}
      className="mcp-dialog"
      description={description}
      onClose={onClose}
      footer={
        <button type="button" onClick={() => void refresh()}>
          Refresh
        </button>
      }
    >
      {error && (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      )}
      {log === undefined && !error && <p className="muted">Loading…</p>}
      {log?.path !== undefined && (
        <p className="muted text-log-path">
          <code>{log.path}</code>
        </p>
      )}
      {log?.text === '' && <p className="muted">Nothing written yet.</p>}
      {log?.text && (
        <pre
          className="mcp-stderr"
          role="log"
          aria-label={title}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
          tabIndex={0}
        >
          {log.text}
        </pre>
      )}
    </Modal>
  )
}
