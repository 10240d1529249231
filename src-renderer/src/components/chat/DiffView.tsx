import { classifyDiffLine } from './tool-display'

/** Long changes are shown in part: a whole rewritten file would push the rest of the chat away. */
const MAX_LINES = 400

/** The hunks: the file names above the first repeat the title, and a patch without one changed nothing. */
function hunkLines(patch: string): string[] {
  const lines = patch.replace(/\n$/, '').split('\n')
  const firstHunk = lines.findIndex((line) => line.startsWith('@@'))
  return firstHunk === -1 ? [] : lines.slice(firstHunk)
}

/** A file change as a unified diff, added and removed lines tinted. */
export function DiffView({ path, patch }: { path: string; patch: string }) {
  const lines = hunkLines(patch)
  return (
    <figure className="diff">
      <figcaption className="diff-title">Changes to {path}</figcaption>
      {lines.length === 0 ? (
        <p className="diff-more">The content is unchanged.</p>
      ) : (
        <pre
          className="diff-body"
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
          tabIndex={0}
        >
          {lines.slice(0, MAX_LINES).map((line, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one diff never move
            <span key={index} className={`diff-line diff-${classifyDiffLine(line)}`}>
              {line === '' ? ' ' : line}
            </span>
          ))}
        </pre>
      )}
      {lines.length > MAX_LINES && (
        <p className="diff-more">{(lines.length - MAX_LINES).toLocaleString()} more lines are not shown.</p>
      )}
    </figure>
  )
}
