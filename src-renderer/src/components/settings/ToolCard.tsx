import { useId, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { ToolSettingsDescriptor, ToolSource } from '../../../../src-shared/tools'
import { errorMessage } from '../../errors'
import { ConfirmDialog } from '../ConfirmDialog'
import { Notice } from './Notice'
import { Switch } from './Switch'
import { ToolParameterForm } from './ToolParameterForm'
import { SHELL_TOOLS } from './tool-values'

interface ToolCardProps {
  api: AtelierApi
  tool: ToolSettingsDescriptor
  onUpdated(tool: ToolSettingsDescriptor): void
  onTry(tool: ToolSettingsDescriptor): void
}

function sourceLabel(source: ToolSource): string | undefined {
  switch (source.kind) {
    case 'builtin':
      return undefined
    case 'mcp':
      return `MCP · ${source.server}`
    case 'service':
      return `Service · ${source.service}`
    case 'custom':
      return `Custom · ${source.module.split(/[\\/]/).pop()}`
  }
}

/** One tool: its switch, what it does, its parameters and the way into the playground. */
export function ToolCard({ api, tool, onUpdated, onTry }: ToolCardProps) {
  const id = useId()
  const [expanded, setExpanded] = useState(false)
  const [confirmingShell, setConfirmingShell] = useState(false)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const switchRef = useRef<HTMLButtonElement>(null)
  const titleId = `${id}-title`
  const lockedId = `${id}-locked`
  const panelId = `${id}-parameters`
  const source = sourceLabel(tool.source)
  const hasParameters = tool.parameterDescriptors.length > 0

  async function setEnabled(enabled: boolean) {
    setBusy(true)
    setError(undefined)
    try {
      onUpdated(await api.tools.update({ name: tool.name, enabled }))
    } catch (failure) {
      setError(errorMessage(failure))
    } finally {
      setBusy(false)
    }
  }

  /** The dialog goes away with its element, so focus is handed back to the switch by hand. */
  function closeConfirm() {
    setConfirmingShell(false)
    requestAnimationFrame(() => switchRef.current?.focus())
  }

  return (
    <section className={`tool-tile${tool.enabled ? ' is-on' : ''}`} aria-labelledby={titleId}>
      <div className="tool-tile-main">
        <div className="tool-tile-text">
          <div className="tool-tile-heading">
            <h4 id={titleId}>{tool.title}</h4>
            {tool.title !== tool.name && <code className="tool-name">{tool.name}</code>}
            {source && <span className="tag">{source}</span>}
            {SHELL_TOOLS.has(tool.name) && <span className="tag tag-warning">Runs any command</span>}
          </div>
          <p className="tool-description">{tool.description}</p>
          {SHELL_TOOLS.has(tool.name) && (
            // Shells start off and ask before turning on; what that means is said for the state it is in.
            <p className="muted tool-state">
              {tool.enabled
                ? 'On: the model can run commands. The chat’s approval mode and your rules decide which ask first.'
                : 'Off until you turn it on.'}
            </p>
          )}
          {!tool.canDisable && (
            <p className="muted tool-locked" id={lockedId}>
              Always on: Atelier needs this tool, so it cannot be turned off.
            </p>
          )}
        </div>
        <Switch
          ref={switchRef}
          checked={tool.enabled}
          labelledBy={titleId}
          describedBy={tool.canDisable ? undefined : lockedId}
          locked={!tool.canDisable}
          busy={busy}
          onChange={(enabled) => {
            if (enabled && SHELL_TOOLS.has(tool.name)) setConfirmingShell(true)
            else void setEnabled(enabled)
          }}
        />
      </div>
      {tool.invalidSavedSettings && (
        <Notice tone="warning" title="Saved settings could not be used">
          {tool.invalidSavedSettings.message} The defaults are in force until you save valid settings.
        </Notice>
      )}
      {error && (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      )}
      <div className="tool-tile-actions">
        {hasParameters && (
          <button
            type="button"
            className="small disclosure"
            aria-expanded={expanded}
            aria-controls={expanded ? panelId : undefined}
            aria-describedby={titleId}
            onClick={() => setExpanded((open) => !open)}
          >
            <span className="chevron" aria-hidden="true" />
            Parameters
            <span className="count" aria-hidden="true">
              {tool.parameterDescriptors.length}
            </span>
          </button>
        )}
        <button type="button" className="small" aria-describedby={titleId} onClick={() => onTry(tool)}>
          Try it
        </button>
      </div>
      {hasParameters && expanded && (
        <div id={panelId} className="tool-tile-parameters">
          <ToolParameterForm api={api} tool={tool} onSaved={onUpdated} />
        </div>
      )}
      {confirmingShell && (
        <ConfirmDialog
          // By the shell's name ("Turn on bash?"): the title says what it does, the warning says how far.
          title={`Turn on ${tool.name}?`}
          message={
            `${tool.name} runs any command the model writes, with your permissions: it can read, change and ` +
            'delete anything you can, and reach the network. The path settings do not confine it — only the ' +
            'folder it starts in (its cwd) is checked. Turn it on only for models and chats you trust.'
          }
          confirmLabel={`Turn on ${tool.name}`}
          onCancel={() => closeConfirm()}
          onConfirm={() => {
            closeConfirm()
            void setEnabled(true)
          }}
        />
      )}
    </section>
  )
}
