import { useEffect, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { McpServerInfo } from '../../../../src-shared/mcp'
import { errorMessage } from '../../errors'
import { ConfirmDialog } from '../ConfirmDialog'
import { McpApprovalDialog } from './McpApprovalDialog'
import { McpImportDialog } from './McpImportDialog'
import { McpServerCard } from './McpServerCard'
import { McpServerForm } from './McpServerForm'
import { McpStderrDialog } from './McpStderrDialog'
import { SectionNotices } from './Notice'
import { upsertById } from './upsert'

type Editing = { kind: 'create' } | { kind: 'edit'; server: McpServerInfo }

/** The dialog open over the section, if any; only one at a time. */
type Dialog =
  | { kind: 'approve'; server: McpServerInfo }
  | { kind: 'stderr'; name: string }
  | { kind: 'import' }
  | { kind: 'delete'; server: McpServerInfo }

function importSummary({ added, skipped }: { added: string[]; skipped: string[] }): string {
  const parts = [
    added.length > 0 ? `Imported ${added.join(', ')}.` : 'Nothing new to import.',
    skipped.length > 0 && `Skipped ${skipped.join(', ')}: the name is already used.`,
    added.length > 0 && 'A local command runs only once you approve it.',
  ]
  return parts.filter(Boolean).join(' ')
}

/**
 * MCP servers: added by hand or imported, switched on and off, and — for local commands — approved
 * before they first run. Servers start and stop from turns elsewhere, so the list follows
 * `mcp.changed` as well as this section's own actions.
 */
export function McpSection({ api }: { api: AtelierApi }) {
  const [servers, setServers] = useState<McpServerInfo[]>()
  const [editing, setEditing] = useState<Editing>()
  const [dialog, setDialog] = useState<Dialog>()
  /** Why the list could not be read, apart from a failed action: the next good read clears only this one. */
  const [loadError, setLoadError] = useState<string>()
  const [error, setError] = useState<string>()
  const [news, setNews] = useState<string>()
  const top = useRef<HTMLDivElement>(null)

  useEffect(() => {
    let live = true
    const apply = (list: McpServerInfo[]) => {
      if (!live) return
      setServers(list)
      setLoadError(undefined)
    }
    api.mcp.list().then(apply, (failure: unknown) => live && setLoadError(errorMessage(failure)))
    const unsubscribe = api.mcp.onChanged(({ servers }) => apply(servers))
    return () => {
      live = false
      unsubscribe()
    }
  }, [api])

  /** A server as an action left it, at once (`mcp.changed` brings the rest). */
  function changed(server: McpServerInfo) {
    setServers((current) => upsertById(current, server))
  }

  /**
   * Where focus goes when what held it went away (the form's Save, a dialog opened from it): the
   * server's own card, so the keyboard carries on from there.
   */
  function focusCard(name: string) {
    requestAnimationFrame(() => {
      if (document.activeElement && document.activeElement !== document.body) return
      top.current?.querySelector<HTMLElement>(`button[aria-label="Edit server ${name}"]`)?.focus()
    })
  }

  function startEditing(next: Editing) {
    setEditing(next)
    setNews(undefined)
    requestAnimationFrame(() => top.current?.querySelector<HTMLElement>('.editor input')?.focus())
  }

  async function remove(server: McpServerInfo) {
    setDialog(undefined)
    try {
      await api.mcp.remove({ name: server.name })
      setServers((current) => current?.filter((s) => s.id !== server.id))
      setError(undefined)
    } catch (failure) {
      setError(errorMessage(failure))
    }
  }

  const closeDialog = () => setDialog(undefined)
  const canAdd = !editing && servers
  return (
    <div className="settings-section" ref={top} aria-busy={!servers && !loadError ? true : undefined}>
      <header className="section-intro section-intro-row">
        <div>
          <h2>MCP servers</h2>
          <p className="muted">
            Model Context Protocol servers bring the agent more tools: a local command Atelier runs (stdio),
            or a remote URL it connects to (Streamable HTTP). A server connects only when a turn or the
            capabilities inspector needs its tools.
          </p>
        </div>
        {canAdd && (
          <div className="section-intro-actions">
            <button type="button" onClick={() => setDialog({ kind: 'import' })}>
              Import…
            </button>
            <button type="button" className="primary" onClick={() => startEditing({ kind: 'create' })}>
              Add server
            </button>
          </div>
        )}
      </header>
      <SectionNotices loadError={loadError} error={error} news={news} />
      {!servers && !loadError && <p className="muted">Loading MCP servers…</p>}
      {editing && (
        <McpServerForm
          key={editing.kind === 'edit' ? editing.server.id : 'new'}
          api={api}
          server={editing.kind === 'edit' ? editing.server : undefined}
          onCancel={() => setEditing(undefined)}
          onDone={(saved) => {
            setEditing(undefined)
            changed(saved)
            // A new or changed command is shown for approval at once, while the person has it in mind.
            if (saved.needsApproval) setDialog({ kind: 'approve', server: saved })
            else focusCard(saved.name)
          }}
        />
      )}
      {servers?.length === 0 && !editing && (
        <div className="empty-teaching">
          <h3>No MCP servers yet</h3>
          <p>
            Add one by hand, or import the <code>mcpServers</code> file you already use with Claude Desktop or
            Cursor. Ready-made servers include <code>@modelcontextprotocol/server-filesystem</code> and{' '}
            <code>@modelcontextprotocol/server-everything</code>, run with <code>npx -y</code>.
          </p>
        </div>
      )}
      {servers && servers.length > 0 && (
        <div className="item-list">
          {servers.map((server) => (
            <McpServerCard
              key={server.id}
              api={api}
              server={server}
              onChanged={changed}
              onReview={() => setDialog({ kind: 'approve', server })}
              onShowStderr={() => setDialog({ kind: 'stderr', name: server.name })}
              onEdit={() => startEditing({ kind: 'edit', server })}
              onDelete={() => setDialog({ kind: 'delete', server })}
            />
          ))}
        </div>
      )}
      {dialog?.kind === 'approve' && (
        <McpApprovalDialog
          api={api}
          server={dialog.server}
          onClose={() => {
            closeDialog()
            focusCard(dialog.server.name)
          }}
          onApproved={(server) => {
            closeDialog()
            changed(server)
            focusCard(server.name)
          }}
        />
      )}
      {dialog?.kind === 'stderr' && <McpStderrDialog api={api} name={dialog.name} onClose={closeDialog} />}
      {dialog?.kind === 'import' && (
        <McpImportDialog
          api={api}
          onClose={closeDialog}
          onImported={(result) => {
            closeDialog()
            setNews(importSummary(result))
          }}
        />
      )}
      {dialog?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete “${dialog.server.name}”?`}
          message="Its tools leave every chat; if it is running, it is stopped."
          confirmLabel="Delete"
          onCancel={closeDialog}
          onConfirm={() => void remove(dialog.server)}
        />
      )}
    </div>
  )
}
