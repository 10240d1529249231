import { useCallback } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { TextLogDialog } from './TextLogDialog'

/** What a stdio server's process wrote to stderr: its logs, and often why it failed to start. */
export function McpStderrDialog({ api, name, onClose }: { api: AtelierApi; name: string; onClose(): void }) {
  const load = useCallback(() => api.mcp.stderr({ name }), [api, name])
  return (
    <TextLogDialog
      title={`Stderr of ${name}`}
      description="What the server’s process wrote to its error stream while it ran: its log, and often the reason it failed."
      load={load}
      onClose={onClose}
    />
  )
}
