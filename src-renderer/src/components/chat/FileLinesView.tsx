import { type CSSProperties, useEffect, useMemo, useRef } from 'react'
import { CopyButton } from './CopyButton'
import { HighlightedTokens } from './HighlightedTokens'
import { highlightLines, languageForPath } from './highlight'

interface FileLinesViewProps {
  path: string
  startLine: number
  endLine: number
  /** Absent when the file was too large to read to its end: only the window is known. */
  totalLines?: number | undefined
  lines: string[]
  truncated: boolean
  /** A line to mark and bring into view (a grep match opened from its card). */
  focusLine?: number
}

/**
 * Where the window sits in the file, as a person reads it: "lines 1–200 of 912", or "lines 1–50 of a
 * large file" when the file was not read to its end.
 */
export function windowText(startLine: number, endLine: number, totalLines: number | undefined): string {
  if (totalLines === 0) return 'empty file'
  const of = totalLines === undefined ? 'a large file' : totalLines.toLocaleString()
  if (endLine < startLine) return `no lines of ${of}`
  if (startLine === endLine) return `line ${startLine.toLocaleString()} of ${of}`
  return `lines ${startLine.toLocaleString()}–${endLine.toLocaleString()} of ${of}`
}

/** A window of a text file as read_file saw it: a path header, the window, numbered highlighted lines. */
export function FileLinesView({
  path,
  startLine,
  endLine,
  totalLines,
  lines,
  truncated,
  focusLine,
}: FileLinesViewProps) {
  const language = languageForPath(path)
  const tokens = useMemo(() => highlightLines(lines.join('\n'), language), [lines, language])
  const focused = useRef<HTMLDivElement>(null)
  const window = windowText(startLine, endLine, totalLines)

  useEffect(() => {
    focused.current?.scrollIntoView({ block: 'center' })
  }, [])

  return (
    <section className="file-lines" aria-label={`${path}, ${window}`}>
      <header className="file-lines-head">
        <code className="file-lines-path" title={path}>
          {path}
        </code>
        <span className="file-lines-window">{window}</span>
        {language && <span className="file-lines-language">{language}</span>}
        <CopyButton label={`Copy the lines of ${path}`} text={() => lines.join('\n')} />
      </header>
      <div
        className="file-lines-body"
        // Numbers right-aligned in one column as wide as the window's last number.
        style={{ '--line-digits': String(Math.max(2, String(endLine).length)) } as CSSProperties}
      >
        {tokens.map((line, index) => {
          const number = startLine + index
          const marked = number === focusLine
          return (
            <div
              // Lines never move within a window: the number is a stable key.
              key={number}
              ref={marked ? focused : undefined}
              className={`file-line${marked ? ' file-line--marked' : ''}`}
              aria-current={marked ? 'true' : undefined}
            >
              <span className="file-line-number">{number}</span>
              <code className="file-line-text">
                <HighlightedTokens line={line} />
              </code>
            </div>
          )
        })}
      </div>
      {truncated && (
        <p className="file-lines-note">
          Cut to fit what the model reads: long lines are shortened, or fewer lines were sent than asked for.
        </p>
      )}
    </section>
  )
}
