import { useId } from 'react'
import type { ToolRunResult } from '../../../../src-shared/contract'
import { DiffView } from '../chat/DiffView'
import { isDrawnResult, ToolResultBody } from '../chat/ToolResultBody'

/**
 * What one playground call returned, shown as the chat shows it (a file's lines, matches by file, a
 * tree of paths, a fetched page, JSON), with the model's exact text beside a view that is not that text, how the
 * call went, and a file's change.
 */
export function PlaygroundResult({ name, result }: { name: string; result: ToolRunResult }) {
  const id = useId()
  // Text and JSON views already are what the model receives; a file, matches, a tree or a page are drawn from it.
  const drawn = isDrawnResult(result)
  return (
    <section
      className={`playground-result${result.isError ? ' is-error' : ''}`}
      aria-labelledby={`${id}-title`}
    >
      <div className="playground-result-bar">
        <h3 id={`${id}-title`}>{result.isError ? 'Error' : 'Result'}</h3>
        {result.errorType && <code className="tag tag-danger">{result.errorType}</code>}
        {result.truncated && <span className="tag tag-warning">Truncated</span>}
        <span className="muted playground-duration">{formatDuration(result.durationMs)}</span>
      </div>
      <div className="playground-output">
        <ToolResultBody name={name} result={result} />
      </div>
      {drawn && (
        <details className="playground-data">
          <summary>What the model receives</summary>
          <pre className="tool-output">{result.content || ' '}</pre>
        </details>
      )}
      {result.display?.kind === 'diff' && (
        <DiffView path={result.display.path} patch={result.display.patch} />
      )}
      {result.data !== undefined && (
        <details className="playground-data">
          <summary>Data for the app (not sent to the model)</summary>
          <pre className="tool-output">{JSON.stringify(result.data, null, 2)}</pre>
        </details>
      )}
    </section>
  )
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
}
