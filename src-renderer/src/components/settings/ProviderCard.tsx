import { useId } from 'react'
import type { AtelierApi } from '../../../../src-shared/api'
import {
  endpointLabel,
  hasHostedSearch,
  isOfficialEndpoint,
  type ProviderInfo,
} from '../../../../src-shared/providers'
import { errorMessage } from '../../errors'
import { ConnectionTestResult, useConnectionTest } from './ConnectionTest'
import { ItemActions } from './ItemActions'
import { ProviderPrices } from './ProviderPrices'
import { kindInfo } from './provider-kinds'

interface ProviderCardProps {
  api: AtelierApi
  provider: ProviderInfo
  onEdit(): void
  onDelete(): void
}

/** Which key the provider's requests carry, and to where. */
function keySourceText(provider: ProviderInfo): string {
  const where = endpointLabel(provider.kind, provider.baseUrl)
  switch (provider.keySource) {
    case 'stored':
      return `Stored key (encrypted), sent to ${where}`
    case 'environment':
      return `${provider.keyVariable} from the environment, sent to ${where}`
    case 'none':
      return isOfficialEndpoint(provider.kind, provider.baseUrl)
        ? `None: ${where} needs one (${provider.keyVariable}, or a stored key)`
        : `None sent to ${where}`
  }
}

/** A provider as set up: where it points, where its key comes from, and whether it answers. */
export function ProviderCard({ api, provider, onEdit, onDelete }: ProviderCardProps) {
  const id = useId()
  const { test, start } = useConnectionTest({
    run: () =>
      api.providers.test({
        kind: provider.kind,
        id: provider.id,
        ...(provider.baseUrl && { baseUrl: provider.baseUrl }),
        ...(provider.defaultModel && { model: provider.defaultModel }),
      }),
    errorMessage,
  })

  return (
    <section className="item-card" aria-labelledby={`${id}-name`}>
      <div className="item-card-head">
        <div>
          <h3 id={`${id}-name`}>{provider.name}</h3>
          <p className="muted">{kindInfo(provider.kind).label}</p>
        </div>
        <div className="item-card-actions">
          <button
            type="button"
            className="small"
            aria-describedby={`${id}-name`}
            onClick={() => void start()}
            disabled={test.kind === 'testing'}
            aria-busy={test.kind === 'testing' || undefined}
          >
            Test connection
          </button>
          <ItemActions what="provider" name={provider.name} onEdit={onEdit} onDelete={onDelete} />
        </div>
      </div>
      <dl className="facts">
        <div>
          <dt>Base URL</dt>
          <dd>{provider.baseUrl ? <code>{provider.baseUrl}</code> : 'Public endpoint'}</dd>
        </div>
        <div>
          <dt>Default model</dt>
          <dd>{provider.defaultModel ? <code>{provider.defaultModel}</code> : 'None (chosen per chat)'}</dd>
        </div>
        <div>
          <dt>API key</dt>
          <dd className={provider.keySource === 'none' ? 'muted' : undefined}>{keySourceText(provider)}</dd>
        </div>
        {provider.contextWindow !== null && (
          <div>
            <dt>Context window</dt>
            <dd>{provider.contextWindow.toLocaleString('en-US')} tokens</dd>
          </div>
        )}
        {provider.hostedSearch && hasHostedSearch(provider.kind) && (
          <div>
            <dt>Web search</dt>
            <dd>By the provider</dd>
          </div>
        )}
      </dl>
      <ConnectionTestResult name={provider.name} test={test} />
      <ProviderPrices api={api} provider={provider} />
    </section>
  )
}
