import { useState } from 'react'
import type { ProviderTestResult } from '../../../../src-shared/providers'

type Test =
  | { kind: 'idle' }
  | { kind: 'testing' }
  | { kind: 'ok'; models: string[] }
  | { kind: 'unlisted' }
  | { kind: 'failed'; message: string }

interface ConnectionTestRun {
  /** Asks the provider for its models (and, listing none, whether it answers a chat); rejects with a readable failure. */
  run(): Promise<ProviderTestResult>
  /** Why it cannot run yet (an invalid address), shown instead of running. */
  blocked?: string | undefined
  errorMessage(error: unknown): string
}

/** A connection test's state, and what starts it: the form's and a provider card's. */
export function useConnectionTest({ run, blocked, errorMessage }: ConnectionTestRun) {
  const [test, setTest] = useState<Test>({ kind: 'idle' })

  async function start() {
    if (blocked) {
      setTest({ kind: 'failed', message: blocked })
      return
    }
    setTest({ kind: 'testing' })
    try {
      const { models, unlisted } = await run()
      setTest(unlisted ? { kind: 'unlisted' } : { kind: 'ok', models })
    } catch (error) {
      setTest({ kind: 'failed', message: errorMessage(error) })
    }
  }

  return { test, start }
}

interface ConnectionTestResultProps {
  /** Who is asked, in "Asking … for its models". */
  name: string
  test: Test
  /** Offered for each model listed: fills the form's Default model. */
  onPick?: ((model: string) => void) | undefined
  /** Shown before the first test, where there is something to say. */
  idle?: string
}

/**
 * What a connection test found: the models listed, a server that answers chat but lists none, or
 * why the provider could not be reached.
 */
export function ConnectionTestResult({ name, test, onPick, idle }: ConnectionTestResultProps) {
  return (
    <>
      <div className="test-result" role="status">
        {test.kind === 'idle' && idle && <span className="muted">{idle}</span>}
        {test.kind === 'testing' && <span className="muted">Asking {name} for its models…</span>}
        {test.kind === 'unlisted' && (
          <span>
            <span className="ok-mark" aria-hidden="true">
              ✓
            </span>{' '}
            The server answers chat but lists no models — type the model name.
          </span>
        )}
        {test.kind === 'ok' && (
          <details open={onPick !== undefined && test.models.length <= 12}>
            <summary>
              <span className="ok-mark" aria-hidden="true">
                ✓
              </span>{' '}
              Connected: {test.models.length} {test.models.length === 1 ? 'model' : 'models'} available
            </summary>
            <ul className="model-list">
              {test.models.map((model) => (
                <li key={model}>
                  {onPick ? (
                    <button
                      type="button"
                      className="link-button"
                      aria-label={`Use ${model} as the default model`}
                      onClick={() => onPick(model)}
                    >
                      <code>{model}</code>
                    </button>
                  ) : (
                    <code>{model}</code>
                  )}
                </li>
              ))}
            </ul>
          </details>
        )}
      </div>
      {test.kind === 'failed' && (
        <p className="field-error" role="alert">
          Connection failed: {test.message}
        </p>
      )}
    </>
  )
}

interface ConnectionTestProps extends ConnectionTestRun {
  /** Who is asked, in "Asking … for its models". */
  name: string
  /** Offered for each model listed: fills the form's Default model. */
  onPick?: (model: string) => void
}

/**
 * Test connection for the settings as typed, before they are saved: the models the provider lists,
 * each one a choice for Default model, or why it could not be reached.
 */
export function ConnectionTest({ name, onPick, ...running }: ConnectionTestProps) {
  const { test, start } = useConnectionTest(running)
  return (
    <div className="connection-test field-wide">
      <button
        type="button"
        onClick={() => void start()}
        disabled={test.kind === 'testing'}
        aria-busy={test.kind === 'testing' || undefined}
      >
        Test connection
      </button>
      <ConnectionTestResult
        name={name}
        test={test}
        onPick={onPick}
        idle="Checks these settings without saving them."
      />
    </div>
  )
}
