import { useMemo, useState } from 'react'
import type { ToolDisplay } from '../../../../src-shared/tools'
import { ChatIcon } from './ChatIcon'
import { OpenFileDialog } from './OpenFileDialog'

type MatchesDisplay = Extract<ToolDisplay, { kind: 'matches' }>
type Match = MatchesDisplay['matches'][number]

/** Matches in the order grep sorted them (by file, then line), one group per file. */
function byFile(matches: Match[]): [string, Match[]][] {
  const groups = new Map<string, Match[]>()
  for (const match of matches) {
    const group = groups.get(match.file)
    if (group) group.push(match)
    else groups.set(match.file, [match])
  }
  return [...groups]
}

export function matchesSize(display: MatchesDisplay): string {
  const files = new Set(display.matches.map((match) => match.file)).size
  const count = display.matches.length
  if (count === 0) return 'no matches'
  return `${count.toLocaleString()} ${count === 1 ? 'match' : 'matches'} in ${files.toLocaleString()} ${files === 1 ? 'file' : 'files'}`
}

const SKIP_REASONS: Record<string, string> = {
  too_large: 'too large',
  unreadable: 'unreadable',
  moved: 'moved while searched',
}

/** "2 files not searched (too large): logs/a.log, b.log" — what grep passed over in the folder. */
export function skippedText(skipped: NonNullable<MatchesDisplay['skipped']>): string {
  const why = Object.entries(skipped.reasons)
    .map(([reason, count]) => `${count.toLocaleString()} ${SKIP_REASONS[reason] ?? reason}`)
    .join(', ')
  const named = skipped.files.map((file) => file.file).join(', ')
  const more = skipped.count > skipped.files.length ? ', …' : ''
  const files = skipped.count === 1 ? 'file' : 'files'
  return `${skipped.count.toLocaleString()} ${files} not searched (${why}): ${named}${more}`
}

/**
 * grep's matches grouped by file. Each file and each matching line is a button that opens the file
 * for reading in the chat's folder, at that line.
 */
export function GrepMatchesView({ display }: { display: MatchesDisplay }) {
  const groups = useMemo(() => byFile(display.matches), [display.matches])
  const [opened, setOpened] = useState<{ path: string; line?: number }>()

  const skipped = display.skipped && <p className="tool-result-note">{skippedText(display.skipped)}</p>
  if (groups.length === 0)
    return (
      <>
        <p className="tool-result-empty">No line matched.</p>
        {skipped}
      </>
    )
  return (
    <div className="grep-matches">
      <ul className="grep-files" aria-label="Matches by file">
        {groups.map(([file, matches]) => (
          <li key={file} className="grep-file">
            <button
              type="button"
              className="grep-file-name"
              title={file}
              aria-label={`Open ${file}`}
              onClick={() => setOpened({ path: file })}
            >
              <ChatIcon name="file" size={13} />
              <span>{file}</span>
              <span className="grep-file-count">{matches.length}</span>
            </button>
            <ol className="grep-lines">
              {matches.map((match) => (
                <li key={match.line}>
                  <button
                    type="button"
                    className="grep-line"
                    aria-label={`Open ${file} at line ${match.line}`}
                    onClick={() => setOpened({ path: file, line: match.line })}
                  >
                    <span className="grep-line-number">{match.line}</span>
                    <code className="grep-line-text">{match.text}</code>
                  </button>
                </li>
              ))}
            </ol>
          </li>
        ))}
      </ul>
      {display.truncated && (
        <p className="tool-result-note">More lines matched than were sent to the model.</p>
      )}
      {skipped}
      {opened && (
        <OpenFileDialog
          path={opened.path}
          {...(opened.line !== undefined && { line: opened.line })}
          onClose={() => setOpened(undefined)}
        />
      )}
    </div>
  )
}
