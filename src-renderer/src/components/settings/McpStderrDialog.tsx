import { useCallback, useEffect, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { errorMessage } from '../../errors'
import { Modal } from '../chat/Modal'
import { Notice } from './Notice'

/** What a stdio server's process wrote to stderr: its logs, and often why it failed to start. */
export function McpStderrDialog({ api, name, onClose }: { api: AtelierApi; name: string; onClose(): void }) {
  const [text, setText] = useState<string>()
  const [error, setError] = useState<string>()

  const load = useCallback(
    () =>
      api.mcp.stderr({ name }).then(
        (result) => {
          setText(result.text)
          setError(undefined)
        },
        (failure: unknown) => setError(errorMessage(failure)),
      ),
    [api, name],
  )

  useEffect(() => {
    void load()
  }, [load])

  return (
    <Modal
      title={`Stderr of ${name}`}
      className="mcp-dialog"
      description="What the server’s process wrote to its error stream while it ran: its log, and often the reason it failed."
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
      {text === undefined && !error && <p className="muted">Loading…</p>}
      {text === '' && <p className="muted">Nothing written yet.</p>}
      {text && (
        <pre
          className="mcp-stderr"
          role="log"
          aria-label={`Stderr of ${name}`}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
          tabIndex={0}
        >
          {text}
        </pre>
      )}
    </Modal>
  )
}
