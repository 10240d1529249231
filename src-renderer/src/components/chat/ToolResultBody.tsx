import { useMemo } from 'react'
import type { ToolDisplay } from '../../../../src-shared/tools'
import { SettingsLinkText } from '../SettingsLinkText'
import type { ToolResultView } from './conversation'
import { FileLinesView } from './FileLinesView'
import { GrepMatchesView, matchesSize } from './GrepMatchesView'
import { HighlightedTokens } from './HighlightedTokens'
import { highlightLines } from './highlight'
import { PathTreeView, pathsSize } from './PathTreeView'
import { parseJson } from './tool-display'
import { WebPageView, webPageSize } from './WebPageView'

/** The display payloads a result body draws itself; diffs, shells and images have their own place on the card. */
type BodyDisplay = Extract<ToolDisplay, { kind: 'file' | 'matches' | 'paths' | 'web-page' }>

function bodyDisplay(result: ToolResultView): BodyDisplay | undefined {
  const display = result.display
  if (result.isError || !display) return undefined
  return display.kind === 'file' ||
    display.kind === 'matches' ||
    display.kind === 'paths' ||
    display.kind === 'web-page'
    ? display
    : undefined
}

/** JSON content indented (an MCP server's may come on one line); any other text as it is. */
function prettyContent(content: string): { text: string; json: boolean } {
  const trimmed = content.trim()
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return { text: content, json: false }
  const value = parseJson(trimmed)
  return value === undefined
    ? { text: content, json: false }
    : { text: JSON.stringify(value, null, 2), json: true }
}

function countOf(count: number, one: string, many: string): string {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`
}

/** A folder's entries (its names), rather than paths found below it. */
function isListing(name: string): boolean {
  return name === 'list_directory'
}

/** What the result's summary line counts: the file's lines, the matches, the paths — else the text's lines. */
export function resultSize(result: ToolResultView, name: string): string {
  const display = bodyDisplay(result)
  if (display?.kind === 'file') return countOf(display.lines.length, 'line', 'lines')
  if (display?.kind === 'matches') return matchesSize(display)
  if (display?.kind === 'paths' && isListing(name)) return countOf(display.entries.length, 'entry', 'entries')
  if (display?.kind === 'paths') return pathsSize(display)
  if (display?.kind === 'web-page') return webPageSize(display)
  const { text } = prettyContent(result.content)
  const lines = text.split('\n').length
  if (lines > 1) return countOf(lines, 'line', 'lines')
  return countOf(text.length, 'character', 'characters')
}

/**
 * Whether the result is drawn from its display (a file's lines, matches, a tree, a page's preview)
 * rather than shown as the text the model receives: the playground then shows that text beside it.
 */
export function isDrawnResult(result: ToolResultView): boolean {
  return bodyDisplay(result) !== undefined
}

/** Longer JSON is shown plain: highlighting a result near the executor's cap would hold up the page. */
const HIGHLIGHT_LIMIT = 50_000

/** JSON, indented and highlighted as the answer's code blocks are. */
function JsonContent({ text }: { text: string }) {
  const lines = useMemo(
    () => highlightLines(text, text.length > HIGHLIGHT_LIMIT ? undefined : 'json'),
    [text],
  )
  return (
    <pre className="tool-result-content">
      {lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the lines of a finished result never move
        <span key={index}>
          {index > 0 && '\n'}
          <HighlightedTokens line={line} />
        </span>
      ))}
    </pre>
  )
}

/**
 * A finished call's result, read per kind: a file's lines, grep's matches by file, found paths as
 * a tree, a fetched page with its preview, and anything else as (pretty) JSON or its text. Errors stay their text.
 */
export function ToolResultBody({ name, result }: { name: string; result: ToolResultView }) {
  const display = bodyDisplay(result)
  const content = useMemo(() => prettyContent(result.content), [result.content])
  if (display?.kind === 'file') return <FileLinesView {...display} />
  if (display?.kind === 'matches') return <GrepMatchesView display={display} />
  if (display?.kind === 'web-page') return <WebPageView display={display} />
  if (display?.kind === 'paths') {
    const label = isListing(name) ? `Entries of ${display.root}` : `Paths found by ${name}`
    return <PathTreeView display={display} label={label} />
  }
  if (content.json && !result.isError) return <JsonContent text={content.text} />
  return (
    <pre className="tool-result-content">
      {/* An error may say where to fix it ("turn it on in Settings → Tools"): that is a link. */}
      {result.isError ? <SettingsLinkText text={content.text} /> : content.text}
    </pre>
  )
}
