import { classifyDiffLine, type FileChange } from './tool-display'

/** Long changes are shown in part; the full text is in the result. */
const MAX_LINES = 400

/** The file names above the first hunk repeat the title: drop them. */
function withoutFileHeader(lines: string[]): string[] {
  const firstHunk = lines.findIndex((line) => line.startsWith('@@'))
  return firstHunk > 0 ? lines.slice(firstHunk) : lines
}

/** A file change: a unified diff with added and removed lines tinted, or a whole new file as added lines. */
export function DiffView({ change }: { change: FileChange }) {
  const lines =
    change.kind === 'diff'
      ? withoutFileHeader(change.diff.replace(/\n$/, '').split('\n'))
      : change.content
          .replace(/\n$/, '')
          .split('\n')
          .map((line) => `+${line}`)
  const shown = lines.slice(0, MAX_LINES)
  const title =
    change.kind === 'whole'
      ? `${change.created === false ? 'Rewrote' : change.created ? 'Created' : 'Writes'} ${change.path ?? 'a file'}`
      : `Changes to ${change.path ?? 'the file'}`
  return (
    <figure className="diff">
      <figcaption className="diff-title">{title}</figcaption>
      <pre
        className="diff-body"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
        tabIndex={0}
      >
        {shown.map((line, index) => {
          const kind = change.kind === 'whole' ? 'added' : classifyDiffLine(line)
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one diff never move
            <span key={index} className={`diff-line diff-${kind}`}>
              {line === '' ? ' ' : line}
            </span>
          )
        })}
      </pre>
      {lines.length > MAX_LINES && (
        <p className="diff-more">{lines.length - MAX_LINES} more lines are in the result below.</p>
      )}
    </figure>
  )
}
