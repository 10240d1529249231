import { useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { isSecret, type McpServerInfo, type SecretMarks } from '../../../../src-shared/mcp'
import { errorMessage } from '../../errors'
import { ItemActions } from './ItemActions'
import { Notice } from './Notice'
import { SandboxTag } from './SandboxTag'
import { Switch } from './Switch'

interface McpServerCardProps {
  api: AtelierApi
  server: McpServerInfo
  onChanged(server: McpServerInfo): void
  onReview(): void
  onShowStderr(): void
  onEdit(): void
  onDelete(): void
}

type StatusKind = 'off' | 'approval' | 'sign-in' | 'failed' | 'running' | 'idle'

/** One word (or the error) for where the server stands, and a line on what that means. */
function statusOf(server: McpServerInfo): { kind: StatusKind; label: string; detail?: string } {
  if (!server.enabled) return { kind: 'off', label: 'Off', detail: 'Turned off: it is not started.' }
  if (server.needsApproval)
    return { kind: 'approval', label: 'Needs approval', detail: 'Not started until its command is approved.' }
  if (server.auth === 'needs-sign-in') {
    return {
      kind: 'sign-in',
      label: 'Needs sign-in',
      detail: 'The server asks for OAuth sign-in: its tools are left out of turns until you sign in.',
    }
  }
  if (server.running) {
    return {
      kind: 'running',
      label: 'Running',
      detail: server.transport === 'stdio' ? 'Its process is running.' : 'A session is open.',
    }
  }
  if (server.error) return { kind: 'failed', label: `Failed: ${server.error}` }
  return {
    kind: 'idle',
    label: 'Not running',
    detail: 'It starts when a turn or the capabilities inspector needs it.',
  }
}

/** The names of a server's variables or headers, each secret one said to be stored encrypted. */
function namesOf(values: Record<string, string> | undefined, marks: SecretMarks | undefined): string {
  return Object.keys(values ?? {})
    .map((name) => (isSecret(marks, name) ? `${name} (stored encrypted)` : name))
    .join(', ')
}

/** An MCP server as set up: what it runs or where it points, whether it runs, and its tools. */
export function McpServerCard({
  api,
  server,
  onChanged,
  onReview,
  onShowStderr,
  onEdit,
  onDelete,
}: McpServerCardProps) {
  const id = useId()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  /** The authorization page of a sign-in under way, until `mcp.changed` says it ended. */
  const [signingIn, setSigningIn] = useState<string | null>()
  const status = statusOf(server)
  const definition = server.definition
  const env = definition.transport === 'stdio' ? namesOf(definition.env, definition.secret) : ''
  const headers = definition.transport === 'http' ? namesOf(definition.headers, definition.secret) : ''
  const cwd = definition.transport === 'stdio' ? definition.cwd : null

  async function setEnabled(enabled: boolean) {
    setBusy(true)
    setError(undefined)
    try {
      onChanged(await api.mcp.setEnabled({ name: server.name, enabled }))
    } catch (failure) {
      setError(errorMessage(failure))
    } finally {
      setBusy(false)
    }
  }

  async function signIn() {
    setError(undefined)
    setBusy(true)
    try {
      const { authorizationUrl, opened } = await api.mcp.signIn({ name: server.name })
      // Only a web page is opened (or linked to): never a javascript:, file: or app's own URL.
      if (authorizationUrl && !isWebPage(authorizationUrl)) {
        setError(`The server's sign-in page is not a web address, so it was not opened: ${authorizationUrl}`)
        return
      }
      // The desktop app opens the system browser itself; in a browser tab, the page opens it.
      if (authorizationUrl && !opened) window.open(authorizationUrl, '_blank', 'noopener')
      setSigningIn(authorizationUrl)
    } catch (failure) {
      setError(errorMessage(failure))
    } finally {
      setBusy(false)
    }
  }

  async function signOut() {
    setError(undefined)
    try {
      onChanged(await api.mcp.signOut({ name: server.name }))
    } catch (failure) {
      setError(errorMessage(failure))
    }
  }

  // A sign-in ends as `mcp.changed`: signed in, or back to needing it with the reason.
  const waitingForBrowser = signingIn && server.auth === 'needs-sign-in' && !server.error
  return (
    <section className={`item-card mcp-card${server.enabled ? ' is-on' : ''}`} aria-labelledby={`${id}-name`}>
      <div className="item-card-head">
        <div className="item-card-title">
          <h3 id={`${id}-name`}>{server.name}</h3>
          <span className="tag">{server.transport === 'stdio' ? 'stdio' : 'HTTP'}</span>
          {definition.transport === 'stdio' && <SandboxTag sandboxed={definition.sandboxed === true} />}
          {/* While on, the status says it; while off, this keeps it in sight. */}
          {server.needsApproval && !server.enabled && <span className="tag tag-warning">Needs approval</span>}
          {server.auth === 'signed-in' && <span className="tag tag-success">Signed in</span>}
        </div>
        <div className="item-card-actions">
          <Switch
            checked={server.enabled}
            label={`Enable ${server.name}`}
            busy={busy}
            onChange={(enabled) => void setEnabled(enabled)}
          />
          {server.auth === 'signed-in' && (
            <button
              type="button"
              className="small"
              aria-describedby={`${id}-name`}
              onClick={() => void signOut()}
            >
              Sign out
            </button>
          )}
          {server.transport === 'stdio' && (
            <button type="button" className="small" aria-describedby={`${id}-name`} onClick={onShowStderr}>
              Show stderr
            </button>
          )}
          <ItemActions what="server" name={server.name} onEdit={onEdit} onDelete={onDelete} />
        </div>
      </div>
      <dl className="facts">
        <div className="fact-wide">
          <dt>{server.transport === 'stdio' ? 'Command line' : 'URL'}</dt>
          <dd>
            <code className="command-line">{server.target}</code>
          </dd>
        </div>
        {cwd && (
          <div className="fact-wide">
            <dt>Working folder</dt>
            <dd>
              <code>{cwd}</code>
            </dd>
          </div>
        )}
        {env && (
          <div>
            <dt>Environment</dt>
            <dd>
              <code>{env}</code>
            </dd>
          </div>
        )}
        {headers && (
          <div>
            <dt>Headers</dt>
            <dd>
              <code>{headers}</code>
            </dd>
          </div>
        )}
        <div>
          <dt>Status</dt>
          <dd className={`mcp-status mcp-status-${status.kind}`}>
            <span className="mcp-status-dot" aria-hidden="true" />
            <span>
              <span className="mcp-status-label">{status.label}</span>
              {status.detail && <span className="mcp-status-detail">{status.detail}</span>}
            </span>
          </dd>
        </div>
        <div>
          <dt>Tools</dt>
          <dd>
            {server.tools.length > 0 ? (
              <details>
                <summary>
                  {server.tools.length} {server.tools.length === 1 ? 'tool' : 'tools'}
                </summary>
                <ul className="model-list">
                  {server.tools.map((tool) => (
                    <li key={tool}>
                      <code>{tool}</code>
                    </li>
                  ))}
                </ul>
              </details>
            ) : (
              <span className="muted">{server.running ? 'None' : 'Listed once it has run'}</span>
            )}
          </dd>
        </div>
      </dl>
      {server.needsApproval && (
        <Notice tone="warning" title="Waiting for your approval">
          <p className="mcp-notice-text">
            Atelier runs this command on this computer, with your permissions. Check it before it runs for the
            first time, and again after any change.
          </p>
          <button type="button" className="small" aria-describedby={`${id}-name`} onClick={onReview}>
            Review command…
          </button>
        </Notice>
      )}
      {server.enabled && server.auth === 'needs-sign-in' && (
        <Notice tone="warning" title={waitingForBrowser ? 'Waiting for the browser' : 'Sign-in needed'}>
          <p className="mcp-notice-text">
            {waitingForBrowser ? (
              <>
                Finish signing in on the page that opened.{' '}
                <a href={signingIn} target="_blank" rel="noopener noreferrer">
                  Open the sign-in page again
                </a>
              </>
            ) : (
              'Sign in with your account on this server, in the browser. Atelier keeps the tokens encrypted on this computer and renews them by itself.'
            )}
          </p>
          {/* The plain "needs sign-in" is what this notice says; anything else is why a sign-in failed. */}
          {server.error && !server.error.startsWith('needs sign-in') && (
            <p className="field-error mcp-notice-text">{server.error}</p>
          )}
          <button
            type="button"
            className="small primary"
            aria-describedby={`${id}-name`}
            disabled={busy}
            onClick={() => void signIn()}
          >
            {waitingForBrowser ? 'Sign in again' : 'Sign in'}
          </button>
        </Notice>
      )}
      {server.running && server.error && (
        <p className="field-error" role="alert">
          {server.error}
        </p>
      )}
      {error && (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      )}
    </section>
  )
}

function isWebPage(url: string): boolean {
  return URL.canParse(url) && ['http:', 'https:'].includes(new URL(url).protocol)
}
