import { useCallback } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { TextLogDialog } from './TextLogDialog'

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
  const load = useCallback(() => api.customTools.log({ file }), [api, file])
  return (
    <TextLogDialog
      title={`Log of ${name}`}
      description="What the module wrote with its logger or console, and the errors of its lifecycle hooks: the newest part of its log file."
      load={load}
      onClose={onClose}
    />
  )
}
