import { useEffect, useId, useState } from 'react'
import type { McpServerResources } from '../../../../src-shared/mcp-catalog'
import { errorMessage } from '../../errors'
import { useApi } from './api-context'
import { type ComposerAttachment, sameAttachment } from './attachments'
import { Modal } from './Modal'

/**
 * The enabled MCP servers' resources, to attach one to the next message. Opening it connects the
 * servers, as the capabilities view does; a server that cannot say what it has says why.
 */
export function ResourceDialog({
  attached,
  onAttach,
  onClose,
}: {
  attached: readonly ComposerAttachment[]
  onAttach(attachment: ComposerAttachment): void
  onClose(): void
}) {
  const api = useApi()
  const filterId = useId()
  const [servers, setServers] = useState<McpServerResources[]>()
  const [error, setError] = useState<string>()
  const [filter, setFilter] = useState('')

  useEffect(() => {
    let live = true
    api.mcp.resources({}).then(
      (value) => live && setServers(value),
      (failure: unknown) => live && setError(errorMessage(failure)),
    )
    return () => {
      live = false
    }
  }, [api])

  const needle = filter.trim().toLowerCase()
  const matches = (text: string | undefined) => text?.toLowerCase().includes(needle) ?? false

  return (
    <Modal
      title="Attach a resource"
      description="What the enabled MCP servers offer. An attached resource is read when you send, and goes to the model with your message."
      onClose={onClose}
      className="resource-dialog"
    >
      <label className="visually-hidden" htmlFor={filterId}>
        Filter resources
      </label>
      <input
        id={filterId}
        type="search"
        className="input resource-filter"
        placeholder="Filter by name, URI or description"
        value={filter}
        onChange={(event) => setFilter(event.target.value)}
      />
      {error && (
        <p className="inline-error" role="alert">
          The resources could not be listed: {error}
        </p>
      )}
      {!servers && !error && <p role="status">Asking the MCP servers…</p>}
      {servers?.length === 0 && <p>No MCP server is enabled. Add one in Settings → MCP.</p>}
      {servers?.map((server) => {
        const shown = server.resources.filter(
          (resource) =>
            !needle ||
            [resource.name, resource.title, resource.uri, resource.description].some((text) => matches(text)),
        )
        return (
          <section
            key={server.server}
            className="resource-server"
            aria-label={`Resources of ${server.server}`}
          >
            <h3>{server.server}</h3>
            {server.error ? (
              <p className="resource-server-note">Not available: {server.error}</p>
            ) : shown.length === 0 ? (
              <p className="resource-server-note">
                {server.resources.length === 0 ? 'It offers no resources.' : 'None match the filter.'}
              </p>
            ) : (
              <ul className="resource-list">
                {shown.map((resource) => {
                  const name = resource.title ?? resource.name
                  const already = attached.some((item) =>
                    sameAttachment({ server: server.server, ...resource }, item),
                  )
                  return (
                    <li key={resource.uri}>
                      <button
                        type="button"
                        className="resource-option"
                        disabled={already}
                        aria-label={`${already ? 'Attached' : 'Attach'} ${name}`}
                        onClick={() => {
                          onAttach({ kind: 'mcp-resource', server: server.server, uri: resource.uri, name })
                          onClose()
                        }}
                      >
                        <span className="resource-option-name">{name}</span>
                        <span className="resource-option-uri">
                          {resource.uri}
                          {resource.mimeType ? ` · ${resource.mimeType}` : ''}
                        </span>
                        {resource.description && (
                          <span className="resource-option-description">{resource.description}</span>
                        )}
                      </button>
                    </li>
                  )
                })}
              </ul>
            )}
          </section>
        )
      })}
    </Modal>
  )
}
