import { useId, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import {
  type BrokerInfo,
  type DescriptorChange,
  isStdioService,
  TOOL_DESCRIPTOR_KEYS,
  type ToolDescriptor,
  type ToolServiceInfo,
} from '../../../../src-shared/tool-services'
import { errorMessage } from '../../errors'
import { TrashIcon } from '../icons'
import { ItemActions } from './ItemActions'
import { LastErrors } from './LastErrors'
import { Notice } from './Notice'
import { SandboxTag } from './SandboxTag'
import { Switch } from './Switch'

interface ToolServiceCardProps {
  api: AtelierApi
  service: ToolServiceInfo
  broker: BrokerInfo
  onChanged(service: ToolServiceInfo): void
  onEdit(): void
  onDelete(): void
  onRemoveTool(name: string): void
  onShowTools(): void
}

type StatusKind = 'off' | 'running' | 'idle' | 'failed' | 'approval'

/** Where the service stands, from its transport: a process of its own, or the broker. */
function statusOf(
  service: ToolServiceInfo,
  broker: BrokerInfo,
): { kind: StatusKind; label: string; detail?: string } {
  if (service.changes) {
    return { kind: 'off', label: 'Off', detail: 'It announces something other than what you turned on.' }
  }
  if (!service.enabled) {
    return {
      kind: 'off',
      label: 'Off',
      detail:
        service.origin === 'configured'
          ? 'Turned off: its tools are left out of every turn.'
          : 'Announced on the broker: off until you turn it on.',
    }
  }
  if (service.transport === 'stdio') {
    return service.running
      ? { kind: 'running', label: 'Running', detail: 'Its process is running.' }
      : { kind: 'idle', label: 'Not running', detail: 'Atelier starts its process on the first call.' }
  }
  switch (broker.status) {
    case 'connected':
      return { kind: 'running', label: 'Broker connected' }
    case 'connecting':
    case 'reconnecting':
      return { kind: 'approval', label: `Broker ${broker.status}` }
    case 'failed':
      return { kind: 'failed', label: 'Broker unreachable', detail: 'Turns go on without its tools.' }
    case 'off':
      return {
        kind: 'failed',
        label: 'No broker set',
        detail: 'Set the broker above: until then turns go without its tools.',
      }
  }
}

/** A tool's config values for its service: every key of its descriptor that is not the tool's own. */
function configOf(tool: ToolDescriptor): [string, unknown][] {
  return Object.entries(tool).filter(([key]) => !(TOOL_DESCRIPTOR_KEYS as readonly string[]).includes(key))
}

/** A tool service: where its requests go (queues or a command), how it stands, its tools and failures. */
export function ToolServiceCard({
  api,
  service,
  broker,
  onChanged,
  onEdit,
  onDelete,
  onRemoveTool,
  onShowTools,
}: ToolServiceCardProps) {
  const id = useId()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const configured = service.origin === 'configured'
  const descriptor = service.descriptor
  const status = statusOf(service, broker)
  const params = descriptor['config-params'] ?? []

  async function setEnabled(enabled: boolean) {
    setBusy(true)
    setError(undefined)
    try {
      // An announced service is turned on as it is shown here, not as it may announce itself meanwhile.
      const version = service.version === undefined ? {} : { version: service.version }
      onChanged(await api.services.setEnabled({ id: service.id, enabled, ...version }))
    } catch (failure) {
      setError(errorMessage(failure))
    } finally {
      setBusy(false)
    }
  }

  return (
    <section
      className={`item-card mcp-card${service.enabled ? ' is-on' : ''}`}
      aria-labelledby={`${id}-name`}
    >
      <div className="item-card-head">
        <div className="item-card-title">
          <h3 id={`${id}-name`}>{service.id}</h3>
          <span className="tag">{service.transport === 'stdio' ? 'stdio' : 'NATS'}</span>
          {isStdioService(descriptor) && <SandboxTag sandboxed={descriptor.sandboxed === true} />}
          <span className="tag">{configured ? 'Configured' : 'Announced on the broker'}</span>
          {service.changes && <span className="tag tag-warning">Changed</span>}
        </div>
        <div className="item-card-actions">
          <Switch
            checked={service.enabled}
            label={`Enable ${service.id}`}
            busy={busy}
            onChange={(enabled) => void setEnabled(enabled)}
          />
          {configured && <ItemActions what="service" name={service.id} onEdit={onEdit} onDelete={onDelete} />}
        </div>
      </div>
      {service.changes && <ChangedNotice changes={service.changes} />}
      <dl className="facts">
        {isStdioService(descriptor) ? (
          <>
            <div className="fact-wide">
              <dt>Command line</dt>
              <dd>
                <code className="command-line">{descriptor.command.join(' ')}</code>
              </dd>
            </div>
            {descriptor.cwd && (
              <div className="fact-wide">
                <dt>Working folder</dt>
                <dd>
                  <code>{descriptor.cwd}</code>
                </dd>
              </div>
            )}
            {descriptor.env && Object.keys(descriptor.env).length > 0 && (
              <div>
                <dt>Environment</dt>
                <dd>
                  <code>{Object.keys(descriptor.env).join(', ')}</code>
                </dd>
              </div>
            )}
          </>
        ) : (
          <>
            <div>
              <dt>Request queue</dt>
              <dd>
                <code>{descriptor['request-queue']}</code>
              </dd>
            </div>
            <div>
              <dt>Responses</dt>
              <dd>
                {descriptor['reply-to'] === 'inbox' ? (
                  <>
                    each call’s own inbox{' '}
                    <span className="mcp-status-detail">unheard on the response queue</span>
                  </>
                ) : (
                  <code>{descriptor['response-queue']}</code>
                )}
              </dd>
            </div>
          </>
        )}
        {params.length > 0 && (
          <div>
            <dt>Config params</dt>
            <dd>
              <code>
                {params.map((param) => `${param.name}${param.required ? ' (required)' : ''}`).join(', ')}
              </code>
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
        {service.expiresAt !== undefined && (
          <div>
            <dt>Lapses</dt>
            <dd>
              <time dateTime={new Date(service.expiresAt).toISOString()}>
                {new Date(service.expiresAt).toLocaleTimeString()}
              </time>
              <span className="mcp-status-detail">unless the service announces itself again</span>
            </dd>
          </div>
        )}
      </dl>
      {!configured && (
        <Notice tone="info" title="From the network">
          <p className="mcp-notice-text">
            A service on the broker announced this, so it stays off until you turn it on. What you turn on is
            this very version: should it announce anything else under this name — other subjects, descriptions
            or tools — it is off again until you have looked at the change. Once on, each of its tools has its
            own switch in Settings → Tools; all leave when the announcement lapses.
          </p>
          <button type="button" className="small" aria-describedby={`${id}-name`} onClick={onShowTools}>
            Open Settings → Tools
          </button>
        </Notice>
      )}
      <div className="service-tools">
        <h4 id={`${id}-tools`}>
          {service.tools.length === 0
            ? 'No tools'
            : service.tools.length === 1
              ? '1 tool'
              : `${service.tools.length} tools`}
        </h4>
        {service.tools.length === 0 && (
          <p className="muted">Add a tool descriptor that names this service to give the model its tools.</p>
        )}
        {service.tools.length > 0 && (
          <ul className="boxed-list" aria-labelledby={`${id}-tools`}>
            {service.tools.map((tool) => (
              <ServiceTool
                key={tool.name}
                tool={tool}
                offered={service.enabledTools.includes(tool.name)}
                onRemove={configured ? () => onRemoveTool(tool.name) : undefined}
              />
            ))}
          </ul>
        )}
      </div>
      <LastErrors errors={service.errors} />
      {error && (
        <Notice tone="danger" role="alert">
          {error}
        </Notice>
      )}
    </section>
  )
}

/** What an announced service announces now that differs from the version the person turned on. */
function ChangedNotice({ changes }: { changes: DescriptorChange[] }) {
  return (
    <Notice tone="warning" title="Changed since you turned it on">
      <p className="mcp-notice-text">
        It now announces something other than the version you turned on, so it is off. Turn it on again only
        if you expect these changes:
      </p>
      <ul className="service-changes" aria-label="What changed">
        {changes.map(({ field, before, after }) => (
          <li key={field}>
            <code>{field}</code>{' '}
            {before === undefined ? (
              <span className="muted">added:</span>
            ) : (
              <del>
                <code>{JSON.stringify(before)}</code>
              </del>
            )}{' '}
            {after === undefined ? (
              <span className="muted">gone</span>
            ) : (
              <>
                {before !== undefined && '→ '}
                <ins>
                  <code>{JSON.stringify(after)}</code>
                </ins>
              </>
            )}
          </li>
        ))}
      </ul>
    </Notice>
  )
}

/** One tool of a service: its name, what it does, the arguments the model gives and the config it sends. */
function ServiceTool({
  tool,
  offered,
  onRemove,
}: {
  tool: ToolDescriptor
  /** A turn offers it now: its service on and reachable, its own switch (Settings → Tools) on. */
  offered: boolean
  onRemove?: () => void
}) {
  const config = configOf(tool)
  const args = tool.arguments ?? []
  return (
    <li className="service-tool">
      <div className="service-tool-head">
        <code className="tool-name">{tool.name}</code>
        <span className="service-tool-description">{tool.description}</span>
        {!offered && <span className="tag">off</span>}
        {onRemove && (
          <button
            type="button"
            className="icon"
            aria-label={`Remove tool ${tool.name}`}
            title="Remove tool"
            onClick={onRemove}
          >
            <TrashIcon />
          </button>
        )}
      </div>
      {args.length > 0 && (
        <ul className="service-tool-arguments" aria-label={`Arguments of ${tool.name}`}>
          {args.map((argument) => (
            <li key={argument.name}>
              <code>{argument.name}</code> <span className="tag">{argument.type}</span>{' '}
              {argument.required === false && (
                <>
                  <span className="tag">optional</span>{' '}
                </>
              )}
              <span className="muted">{argument.description}</span>
            </li>
          ))}
        </ul>
      )}
      {config.length > 0 && (
        <p className="service-tool-config">
          <span className="muted">Config: </span>
          <code>{config.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(', ')}</code>
        </p>
      )}
    </li>
  )
}
