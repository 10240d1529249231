import { useCallback, useEffect, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { errorMessage } from '../../errors'
import { Modal } from '../chat/Modal'
import { Notice } from './Notice'

/** What a custom tool module wrote to its log: its `logger`, its console, its `onSession` errors. */
export function CustomToolLogDialog({
  api,
  file,
  name,
  onClose,
}: {
  api: AtelierApi
  file: string
  name: string
  onClose(): void
}) {
  const [log, setLog] = useState<{ path: string; text: string }>()
  const [error, setError] = useState<string>()

  const load = useCallback(
    () =>
      api.customTools.log({ file }).then(
        (result) => {
          setLog(result)
          setError(undefined)
        },
        (failure: unknown) => setError(errorMessage(failure)),
      ),
    [api, file],
  )

  useEffect(() => {
    void load()
  }, [load])

  return (
    <Modal
      title={`Log of ${name}`}
      className="mcp-dialog"
      description="What the module wrote with its logger or console, and the errors of its lifecycle hooks: the newest part of its log file."
      onClose={onClose}
      footer={
        <button type="button" onClick={() => void load()}>
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
      {log && (
        <p className="muted custom-log-path">
          <code>{log.path}</code>
        </p>
      )}
      {log?.text === '' && <p className="muted">Nothing written yet.</p>}
      {log?.text && (
        <pre
          className="mcp-stderr"
          role="log"
          aria-label={`Log of ${name}`}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
          tabIndex={0}
        >
          {log.text}
        </pre>
      )}
    </Modal>
  )
}
