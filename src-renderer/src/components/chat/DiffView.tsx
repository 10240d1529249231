import { useId } from 'react'
import type { FileDiagnostic } from '../../../../src-shared/code-intelligence'
import { classifyDiffLine } from './tool-display'

/** Long changes are shown in part: a whole rewritten file would push the rest of the chat away. */
const MAX_LINES = 400

/** The hunks: the file names above the first repeat the title, and a patch without one changed nothing. */
function hunkLines(patch: string): string[] {
  const lines = patch.replace(/\n$/, '').split('\n')
  const firstHunk = lines.findIndex((line) => line.startsWith('@@'))
  return firstHunk === -1 ? [] : lines.slice(firstHunk)
}

/** For each shown line, its number in the file after the change (removed and header lines have none). */
function newLineNumbers(lines: readonly string[]): (number | undefined)[] {
  let next = 0
  return lines.map((line) => {
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)/.exec(line)
    if (hunk) {
      next = Number(hunk[1])
      return undefined
    }
    const kind = classifyDiffLine(line)
    return kind === 'added' || kind === 'context' ? next++ : undefined
  })
}

/**
 * A file change as a unified diff, added and removed lines tinted; below it, the problems the
 * change brought as its language server reported them, each linked to its line in the diff.
 */
export function DiffView({
  path,
  patch,
  diagnostics = [],
}: {
  path: string
  patch: string
  diagnostics?: readonly FileDiagnostic[]
}) {
  const id = useId()
  const lines = hunkLines(patch)
  const numbers = newLineNumbers(lines)
  const lineId = (line: number) => `${id}-line-${line}`
  const flagged = new Set(diagnostics.map((diagnostic) => diagnostic.line))
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
            <span
              // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one diff never move
              key={index}
              id={numbers[index] === undefined ? undefined : lineId(numbers[index])}
              className={`diff-line diff-${classifyDiffLine(line)}${flagged.has(numbers[index] ?? 0) ? ' diff-flagged' : ''}`}
            >
              {line === '' ? ' ' : line}
            </span>
          ))}
        </pre>
      )}
      {lines.length > MAX_LINES && (
        <p className="diff-more">{(lines.length - MAX_LINES).toLocaleString()} more lines are not shown.</p>
      )}
      {diagnostics.length > 0 && (
        <ul className="diff-diagnostics" aria-label="Problems the change brought">
          {diagnostics.map((diagnostic) => {
            const shown = numbers.slice(0, MAX_LINES).includes(diagnostic.line)
            const where = `${diagnostic.line}:${diagnostic.column}`
            return (
              <li
                key={`${where} ${diagnostic.message}`}
                className={`diff-diagnostic diagnostic-${diagnostic.severity}`}
              >
                {shown ? <a href={`#${lineId(diagnostic.line)}`}>{where}</a> : <span>{where}</span>}{' '}
                <span className="diagnostic-severity">{diagnostic.severity}</span> {diagnostic.message}
                {diagnostic.source && <span className="muted"> ({diagnostic.source})</span>}
              </li>
            )
          })}
        </ul>
      )}
    </figure>
  )
}
