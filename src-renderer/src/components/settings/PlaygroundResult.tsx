import { useId } from 'react'
import type { ToolRunResult } from '../../../../src-shared/contract'
import { DiffView } from '../chat/DiffView'

/** What one playground call returned: the model's text, exactly, how the call went, and a file's change. */
export function PlaygroundResult({ result }: { result: ToolRunResult }) {
  const id = useId()
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
      <figure className="playground-output">
        <figcaption className="field-hint">What the model receives</figcaption>
        <pre className="tool-output">{result.content || ' '}</pre>
      </figure>
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
