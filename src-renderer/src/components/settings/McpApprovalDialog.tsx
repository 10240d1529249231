import { useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import { isSecret, type McpServerInfo } from '../../../../src-shared/mcp'
import { errorMessage } from '../../errors'
import { Modal } from '../chat/Modal'
import { useSandboxStatus } from '../useSandboxStatus'
import { Notice } from './Notice'

interface McpApprovalDialogProps {
  api: AtelierApi
  server: McpServerInfo
  onApproved(server: McpServerInfo): void
  onClose(): void
}

/**
 * The exact launch of a stdio server — command line, working folder, environment — shown before it
 * may run. Approving is the only way a new or changed command gets started. A secret value shows as
 * dots: the approval covers it, so a changed secret is asked about again.
 */
export function McpApprovalDialog({ api, server, onApproved, onClose }: McpApprovalDialogProps) {
  const [approving, setApproving] = useState(false)
  const [error, setError] = useState<string>()
  const definition = server.definition.transport === 'stdio' ? server.definition : undefined
  const env = Object.entries(definition?.env ?? {})
  // A server set to run sandboxed must not read as confined where no sandbox works or it is turned off.
  const { info: sandbox } = useSandboxStatus(api)

  async function approve() {
    setApproving(true)
    setError(undefined)
    try {
      onApproved(await api.mcp.approve({ name: server.name }))
    } catch (failure) {
      setError(errorMessage(failure))
      setApproving(false)
    }
  }

  return (
    <Modal
      title={`Run “${server.name}”?`}
      className="mcp-dialog"
      description="Atelier will run this command on this computer, with your permissions, whenever a turn or the capabilities inspector needs this server’s tools. Approve it only if you trust it."
      onClose={onClose}
      footer={
        <>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="primary"
            disabled={approving}
            aria-busy={approving || undefined}
            onClick={() => void approve()}
          >
            Approve
          </button>
        </>
      }
    >
      <dl className="mcp-launch">
        <dt>Command line</dt>
        <dd>
          <pre className="mcp-launch-value">{server.target}</pre>
        </dd>
        <dt>Working folder</dt>
        <dd>
          {definition?.cwd ? (
            <code className="mcp-launch-value">{definition.cwd}</code>
          ) : (
            <span className="muted">Not set: it starts in Atelier’s own working folder.</span>
          )}
        </dd>
        <dt>Environment variables</dt>
        <dd>
          {env.length > 0 ? (
            <pre className="mcp-launch-value">
              {env
                .map(([key, value]) =>
                  // The value itself never leaves the main process; what is approved covers it all the same.
                  isSecret(definition?.secret, key)
                    ? `${key}=${value} (stored encrypted)`
                    : `${key}=${value}`,
                )
                .join('\n')}
            </pre>
          ) : (
            <span className="muted">None added.</span>
          )}
        </dd>
        <dt>Sandbox</dt>
        <dd>
          {definition?.sandboxed && sandbox && !sandbox.available ? (
            <span>
              <strong>Will not start:</strong> it is set to run in the sandbox, but none works on this
              computer ({sandbox.reason}). Turn its sandbox switch off to run it with your own permissions.
            </span>
          ) : definition?.sandboxed && sandbox && !sandbox.settings.enabled ? (
            <span>
              <strong>Not sandboxed:</strong> it is set to run in the sandbox, but the sandbox is turned off
              in Settings → Sandbox, so it runs with your own permissions.
            </span>
          ) : definition?.sandboxed ? (
            <span>
              Runs in the sandbox: it writes only its working folder and a private temp folder, and cannot
              read your secrets.
            </span>
          ) : (
            <span>
              <strong>Not sandboxed:</strong> it runs with your own permissions. Turn on “Run in the sandbox”
              when editing it to confine it.
            </span>
          )}
        </dd>
      </dl>
      {error && (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      )}
    </Modal>
  )
}
