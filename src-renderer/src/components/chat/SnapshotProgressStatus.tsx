import { useEffect, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { SnapshotProgress } from '../../../../src-shared/checkpoints'

/**
 * While the first snapshot of the chat's folder is being taken (in the background, when it was
 * bound): how far it has got. Nothing once it is done, or for a folder already recorded.
 */
export function SnapshotProgressStatus({ api, folder }: { api: AtelierApi; folder: string | null }) {
  const [progress, setProgress] = useState<SnapshotProgress>()

  useEffect(() => {
    setProgress(undefined)
    if (folder === null) return
    return api.checkpoints.onProgress((report) => {
      if (report.folder === folder) setProgress(report.done ? undefined : report)
    })
  }, [api, folder])

  if (!progress) return null
  return (
    <span
      className="snapshot-progress"
      role="status"
      title="Checkpoints record the folder once, in the background; after that only what changes"
    >
      <span className="spinner" aria-hidden="true" />
      Recording folder for checkpoints… {progress.files.toLocaleString()} files
    </span>
  )
}
