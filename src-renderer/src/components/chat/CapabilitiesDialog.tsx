import { useEffect, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { Capabilities } from '../../../../src-shared/contract'
import { SEARCH_ENGINE_TITLES } from '../../../../src-shared/web-search'
import { errorMessage } from '../../errors'
import { SettingsLinkText } from '../SettingsLinkText'
import { sandboxPolicyText } from '../sandbox-words'
import { useSandboxStatus } from '../useSandboxStatus'
import { ChatIcon } from './ChatIcon'
import { CopyButton } from './CopyButton'
import { Modal } from './Modal'

const KIND_NAMES: Record<Capabilities['provider']['kind'], string> = {
  'openai-responses': 'OpenAI Responses',
  'openai-chat': 'OpenAI Chat Completions',
  gemini: 'Gemini',
  anthropic: 'Anthropic',
}

/** Which web search the turn has, in words: the provider's own, the web_search tool's engine, or none. */
function webSearchText({ webSearch, provider }: Capabilities): string {
  if (webSearch.kind === 'hosted') return `${provider.name}’s own search`
  if (webSearch.kind === 'tool') return `web_search through ${SEARCH_ENGINE_TITLES[webSearch.engine]}`
  return 'None'
}

/** A module's file name, for the table (its whole path is the title). */
function moduleName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).at(-1) ?? path
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
  const { info: sandboxInfo, error: sandboxError } = useSandboxStatus(api)
  // Which sandbox policy holds for the commands the turn may run, or why it could not be read.
  const sandbox = sandboxInfo
    ? sandboxPolicyText(sandboxInfo)
    : sandboxError && `Whether commands are sandboxed could not be read: ${sandboxError}`

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

  const fromMcp = capabilities?.tools.some((tool) => tool.server) ?? false
  const fromServices = capabilities?.tools.some((tool) => tool.service) ?? false
  const fromModules = capabilities?.tools.some((tool) => tool.module) ?? false
  const sources = [
    fromMcp && 'MCP server',
    fromServices && 'Tool service',
    fromModules && 'Custom tool module',
  ].filter((source): source is string => typeof source === 'string')
  const sourced = sources.length > 0
  // Enabled servers whose tools are missing, and why: the reason a tool is not in the list below.
  const left = capabilities?.servers.filter((server) => server.error) ?? []

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
      description="Exactly what this chat’s next turn sends, for its provider, model and agent profile."
      onClose={onClose}
    >
      <p className="capabilities-note">
        <ChatIcon name="info" size={15} />
        <span>
          Opening this view connects the enabled MCP servers exactly as the next turn would, which may start
          them: a local server’s command runs, a remote server’s session opens, and both stay ready for the
          turn. To keep a server from being started, turn it off in Settings → MCP.
        </span>
      </p>
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
              <dt>Web search</dt>
              <dd>{webSearchText(capabilities)}</dd>
            </div>
            <div>
              <dt>Tools</dt>
              <dd>{capabilities.tools.length}</dd>
            </div>
            <div>
              <dt>Estimated tokens</dt>
              <dd>{capabilities.totalTokens.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Language servers</dt>
              <dd>
                {capabilities.languageServers?.length
                  ? capabilities.languageServers.map((server) => `${server.name}: ${server.state}`).join(', ')
                  : 'none for this folder'}
              </dd>
            </div>
          </dl>
          {capabilities.instructions.length > 0 && (
            <section className="capabilities-instructions" aria-label="Project instructions">
              <h3>Project instructions in the system prompt</h3>
              <ul>
                {capabilities.instructions.map((file) => (
                  <li key={file.label}>
                    <code>{file.label}</code> · about {file.tokens.toLocaleString()} tokens
                    {file.cut && ' · cut at the size limit'}
                  </li>
                ))}
              </ul>
            </section>
          )}
          {sandbox && (
            <p className="capabilities-note capabilities-sandbox">
              <ChatIcon name="shield" size={15} />
              <span>
                <SettingsLinkText text={sandbox} />
              </span>
            </p>
          )}
          {left.length > 0 && (
            <ul className="capabilities-left">
              {left.map((server) => (
                <li key={server.id} className="capabilities-left-item">
                  <ChatIcon name="alert" size={14} />
                  <span>
                    <code>{server.name}</code> is unavailable, so its tools are not sent: {server.error}.
                  </span>
                </li>
              ))}
            </ul>
          )}
          {capabilities.tools.length === 0 ? (
            <p className="muted">No tools: every tool is turned off, or the agent profile allows none.</p>
          ) : (
            <table className="capabilities-table" aria-label="Tools">
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  {sourced && <th scope="col">{sources.length === 1 ? sources[0] : 'Source'}</th>}
                  <th scope="col">Tokens (≈ 4 characters each)</th>
                </tr>
              </thead>
              <tbody>
                {capabilities.tools.map((tool) => (
                  <tr key={tool.name}>
                    <th scope="row">
                      <code>{tool.name}</code>
                    </th>
                    {sourced && (
                      <td className="capabilities-source">
                        {tool.server && <span className="capabilities-server">{tool.server}</span>}
                        {tool.service && (
                          <span className="capabilities-server" title="Tool service">
                            {tool.service}
                          </span>
                        )}
                        {tool.module && (
                          <span className="capabilities-server" title={`Custom tool module ${tool.module}`}>
                            {moduleName(tool.module)}
                          </span>
                        )}
                      </td>
                    )}
                    <td>{tool.tokens.toLocaleString()}</td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row" colSpan={sourced ? 2 : 1}>
                    Total
                  </th>
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
