import type { ToolProgress } from './tools'

/** A count that only grows, out of a total when the tool knows one. */
export type CountedProgress = Extract<ToolProgress, { kind: 'progress' }>

/** "2 of 3 · Copying files", "Copying files" or "7" when there is neither total nor message. */
export function countedProgressText({ done, total, message }: CountedProgress): string {
  const count = total !== undefined ? `${done.toLocaleString()} of ${total.toLocaleString()}` : undefined
  return [count, message].filter(Boolean).join(' · ') || done.toLocaleString()
}
