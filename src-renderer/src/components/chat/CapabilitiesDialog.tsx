import { useEffect, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { Capabilities } from '../../../../src-shared/contract'
import { errorMessage } from '../../errors'
import { CopyButton } from './CopyButton'
import { Modal } from './Modal'

const KIND_NAMES: Record<Capabilities['provider']['kind'], string> = {
  'openai-responses': 'OpenAI Responses',
  'openai-chat': 'OpenAI Chat Completions',
  gemini: 'Gemini',
  anthropic: 'Anthropic',
}

/** What this chat's next turn sends: provider, model, and every tool exactly as it goes on the wire. */
export function CapabilitiesDialog({
  api,
  chatId,
  onClose,
}: {
  api: AtelierApi
  chatId: string
  onClose(): void
}) {
  const [capabilities, setCapabilities] = useState<Capabilities>()
  const [error, setError] = useState<string>()

  useEffect(() => {
    let live = true
    api.chats.capabilities({ id: chatId }).then(
      (value) => live && setCapabilities(value),
      (failure: unknown) => live && setError(errorMessage(failure)),
    )
    return () => {
      live = false
    }
  }, [api, chatId])

  const wire = capabilities
    ? JSON.stringify(
        capabilities.tools.map((tool) => tool.wire),
        null,
        2,
      )
    : ''

  return (
    <Modal
      title="Capabilities"
      className="capabilities"
      description="Exactly what this chat’s next turn sends, for its provider, model and agent profile. Opening this view asks every tool source for its tools; once MCP servers are set up, that may start them."
      onClose={onClose}
    >
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      {!capabilities && !error && <p className="muted">Loading…</p>}
      {capabilities && (
        <>
          <dl className="capabilities-summary">
            <div>
              <dt>Provider</dt>
              <dd>
                {capabilities.provider.name}
                <code className="capabilities-kind" title={KIND_NAMES[capabilities.provider.kind]}>
                  {capabilities.provider.kind}
                </code>
              </dd>
            </div>
            <div>
              <dt>Model</dt>
              <dd>
                <code>{capabilities.model}</code>
              </dd>
            </div>
            <div>
              <dt>Tools</dt>
              <dd>{capabilities.tools.length}</dd>
            </div>
            <div>
              <dt>Estimated tokens</dt>
              <dd>{capabilities.totalTokens.toLocaleString()}</dd>
            </div>
          </dl>
          {capabilities.tools.length === 0 ? (
            <p className="muted">No tools: every tool is turned off, or the agent profile allows none.</p>
          ) : (
            <table className="capabilities-table" aria-label="Tools">
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">Tokens (≈ 4 characters each)</th>
                </tr>
              </thead>
              <tbody>
                {capabilities.tools.map((tool) => (
                  <tr key={tool.name}>
                    <th scope="row">
                      <code>{tool.name}</code>
                    </th>
                    <td>{tool.tokens.toLocaleString()}</td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row">Total</th>
                  <td>{capabilities.totalTokens.toLocaleString()}</td>
                </tr>
              </tfoot>
            </table>
          )}
          <details className="capabilities-wire">
            <summary>Wire JSON</summary>
            <div className="capabilities-wire-bar">
              <CopyButton label="Copy wire JSON" text={() => wire} />
            </div>
            <pre
              // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
              tabIndex={0}
            >
              {wire}
            </pre>
          </details>
        </>
      )}
    </Modal>
  )
}
