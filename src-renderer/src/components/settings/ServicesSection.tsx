import { useEffect, useRef, useState } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import type { BrokerInfo, ToolServiceInfo } from '../../../../src-shared/tool-services'
import { errorMessage } from '../../errors'
import { ConfirmDialog } from '../ConfirmDialog'
import { BrokerCard } from './BrokerCard'
import { SectionNotices } from './Notice'
import { ServiceDescriptorDialog } from './ServiceDescriptorDialog'
import { ToolServiceCard } from './ToolServiceCard'
import { upsertById } from './upsert'
import '../../tool-services.css'

/** The dialog open over the section, if any; only one at a time. */
type Dialog =
  | { kind: 'add' }
  | { kind: 'edit'; service: ToolServiceInfo }
  | { kind: 'delete'; service: ToolServiceInfo }
  | { kind: 'remove-tool'; name: string }

/** A configured service as a descriptor file would hold it: the service, then its tools. */
function descriptorsOf(service: ToolServiceInfo): string {
  return JSON.stringify([service.descriptor, ...service.tools], null, 2)
}

/**
 * Tool services: the broker, and the services configured here or announced on it with their tools.
 * Opening the section (or saving the broker) connects the broker, so live services announce
 * themselves; announcements arrive and lapse, and the broker connects and drops, on their own, so
 * the section follows `services.changed` as well as its own actions.
 */
export function ServicesSection({ api, onShowTools }: { api: AtelierApi; onShowTools(): void }) {
  const [services, setServices] = useState<ToolServiceInfo[]>()
  const [broker, setBroker] = useState<BrokerInfo>()
  const [dialog, setDialog] = useState<Dialog>()
  /** Why the list could not be read, apart from a failed action: the next good read clears only this one. */
  const [loadError, setLoadError] = useState<string>()
  const [error, setError] = useState<string>()
  const [news, setNews] = useState<string>()
  const addButton = useRef<HTMLButtonElement>(null)

  useEffect(() => {
    let live = true
    const failed = (failure: unknown) => live && setLoadError(errorMessage(failure))
    Promise.all([api.services.list(), api.services.broker()]).then(([list, info]) => {
      if (!live) return
      setServices(list)
      setBroker(info)
      setLoadError(undefined)
    }, failed)
    // How the connecting goes, and what live services announce, arrives as `services.changed`.
    api.services.connect().catch(failed)
    const unsubscribe = api.services.onChanged((payload) => {
      if (!live) return
      setServices(payload.services)
      setBroker(payload.broker)
      setLoadError(undefined)
    })
    return () => {
      live = false
      unsubscribe()
    }
  }, [api])

  /** Focus goes back to the section's start when what held it (a card, a dialog's opener) is gone. */
  function refocus() {
    requestAnimationFrame(() => {
      if (document.activeElement && document.activeElement !== document.body) return
      addButton.current?.focus()
    })
  }

  async function remove(id: string) {
    setDialog(undefined)
    try {
      await api.services.remove({ id })
      setServices((current) =>
        current
          ?.filter((service) => service.id !== id)
          .map((service) => ({ ...service, tools: service.tools.filter((tool) => tool.name !== id) })),
      )
      setError(undefined)
    } catch (failure) {
      setError(errorMessage(failure))
    }
    refocus()
  }

  const closeDialog = () => setDialog(undefined)
  const loaded = services && broker
  return (
    <div className="settings-section" aria-busy={!loaded && !loadError ? true : undefined}>
      <header className="section-intro section-intro-row">
        <div>
          <h2>Tool services</h2>
          <p className="muted">
            Tools served by another program: over a NATS broker, where one service may run on many machines,
            or over stdio, a local command Atelier starts itself. A service takes the requests; its tool
            descriptors say what the model sees.
          </p>
        </div>
        {loaded && (
          <div className="section-intro-actions">
            <button
              ref={addButton}
              type="button"
              className="primary"
              onClick={() => {
                setNews(undefined)
                setDialog({ kind: 'add' })
              }}
            >
              Add descriptors…
            </button>
          </div>
        )}
      </header>
      <SectionNotices loadError={loadError} error={error} news={news} />
      {!loaded && !loadError && <p className="muted">Loading tool services…</p>}
      {broker && (
        <BrokerCard
          api={api}
          broker={broker}
          onSaved={(saved) => {
            setBroker(saved)
            // A broker saved here is one the person wants connected now.
            api.services.connect().catch((failure: unknown) => setError(errorMessage(failure)))
          }}
        />
      )}
      {services?.length === 0 && (
        <div className="empty-teaching">
          <h3>No tool services yet</h3>
          <p>
            Add a service descriptor and its tools’ descriptors (one JSON array will do), or set the broker:
            services that announce themselves on it are listed here by themselves.
          </p>
        </div>
      )}
      {services && services.length > 0 && broker && (
        <div className="item-list">
          {services.map((service) => (
            <ToolServiceCard
              key={service.id}
              api={api}
              service={service}
              broker={broker}
              onChanged={(next) => setServices((current) => upsertById(current, next))}
              onEdit={() => setDialog({ kind: 'edit', service })}
              onDelete={() => setDialog({ kind: 'delete', service })}
              onRemoveTool={(name) => setDialog({ kind: 'remove-tool', name })}
              onShowTools={onShowTools}
            />
          ))}
        </div>
      )}
      {(dialog?.kind === 'add' || dialog?.kind === 'edit') && (
        <ServiceDescriptorDialog
          api={api}
          initial={
            dialog.kind === 'edit'
              ? { id: dialog.service.id, json: descriptorsOf(dialog.service) }
              : undefined
          }
          onClose={closeDialog}
          onAdded={(added) => {
            closeDialog()
            setNews(dialog.kind === 'edit' ? `Saved ${added.join(', ')}.` : `Added ${added.join(', ')}.`)
          }}
        />
      )}
      {dialog?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete “${dialog.service.id}”?`}
          message="Its tools go with it and leave every chat; if its process is running, it is stopped."
          confirmLabel="Delete"
          onCancel={closeDialog}
          onConfirm={() => void remove(dialog.service.id)}
        />
      )}
      {dialog?.kind === 'remove-tool' && (
        <ConfirmDialog
          title={`Remove the tool “${dialog.name}”?`}
          message="It leaves every chat; its service and the service’s other tools stay."
          confirmLabel="Remove"
          onCancel={closeDialog}
          onConfirm={() => void remove(dialog.name)}
        />
      )}
    </div>
  )
}
