/** Progress as MCP reports it: a count that only grows, out of a total when the server knows one. */
export interface CountedProgress {
  progress: number
  total?: number
  message?: string
}

/** A tool's progress report read as a count, if that is what it is (shell output chunks are not). */
export function countedProgress(progress: unknown): CountedProgress | undefined {
  if (typeof progress !== 'object' || progress === null) return undefined
  const report = progress as Record<string, unknown>
  if (typeof report.progress !== 'number' || !Number.isFinite(report.progress)) return undefined
  const total =
    typeof report.total === 'number' && Number.isFinite(report.total) && report.total > 0
      ? report.total
      : undefined
  return {
    progress: report.progress,
    ...(total !== undefined && { total }),
    ...(typeof report.message === 'string' && report.message.trim() && { message: report.message }),
  }
}

/** "2 of 3 · Copying files", "Copying files" or "7" when there is neither total nor message. */
export function countedProgressText({ progress, total, message }: CountedProgress): string {
  const count = total !== undefined ? `${progress.toLocaleString()} of ${total.toLocaleString()}` : undefined
  return [count, message].filter(Boolean).join(' · ') || progress.toLocaleString()
}
