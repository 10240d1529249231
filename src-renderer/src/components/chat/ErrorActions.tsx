import { useEffect, useState } from 'react'
import type { ErrorCode } from '../../../../src-shared/errors'
import {
  isOfficialEndpoint,
  type KeyStorage,
  OFFICIAL_HOSTS,
  type ProviderInfo,
} from '../../../../src-shared/providers'
import { adviseError, type ProviderFacts } from '../../errors'
import { useOpenSettings } from '../../settings-navigation'
import { SettingsLinkText } from '../SettingsLinkText'
import { useApi } from './api-context'
import { useChat } from './chat-context'

type ProvidersList = { providers: ProviderInfo[]; keyStorage: KeyStorage }

/** The provider the chat uses (its own, else the first set up), as the advice needs it. */
function factsOf(
  list: ProvidersList | undefined,
  chosen: string | null | undefined,
): (ProviderFacts & { id: string }) | undefined {
  const providers = list?.providers ?? []
  const provider = (chosen ? providers.find((p) => p.id === chosen) : undefined) ?? providers[0]
  if (!provider || !list) return undefined
  return {
    id: provider.id,
    name: provider.name,
    keyVariable: provider.keyVariable,
    official: isOfficialEndpoint(provider.kind, provider.baseUrl),
    officialHost: OFFICIAL_HOSTS[provider.kind],
    canStoreKeys: list.keyStorage.available,
  }
}

/**
 * A failed turn in plain words: what happened, what to do (with "Settings → …" as links), a button
 * to the settings that fix it, and the provider's own words and the code under Details.
 */
export function ErrorActions({ code, message }: { code: ErrorCode | undefined; message: string | null }) {
  const api = useApi()
  const chat = useChat()
  const openSettings = useOpenSettings()
  const [list, setList] = useState<ProvidersList>()

  useEffect(() => {
    let live = true
    api.providers.list().then(
      (next) => live && setList(next),
      () => undefined,
    )
    const off = api.providers.onChanged((next) => live && setList(next))
    return () => {
      live = false
      off()
    }
  }, [api])

  const provider = factsOf(list, chat?.provider)
  const advice = adviseError(code, message, provider)
  const shownCode = code && code !== 'internal' ? code : undefined

  if (!advice) {
    return (
      <>
        {message && (
          <p className="turn-alert-message">
            <SettingsLinkText text={message} />
          </p>
        )}
        {shownCode && <p className="turn-alert-code">{shownCode}</p>}
      </>
    )
  }
  const toProvider = advice.action === 'provider' && provider
  return (
    <>
      <p className="turn-alert-headline">{advice.headline}</p>
      <p className="turn-alert-message">
        <SettingsLinkText text={advice.advice} />
      </p>
      {advice.action && openSettings && (
        <p className="turn-alert-actions">
          <button
            type="button"
            className="small"
            onClick={() =>
              openSettings(
                toProvider ? { section: 'providers', provider: provider.id } : { section: 'providers' },
              )
            }
          >
            {toProvider ? `Open ${provider.name} in Settings → Providers` : 'Open Settings → Providers'}
          </button>
        </p>
      )}
      {(message || shownCode) && (
        <details className="turn-alert-details" aria-label="Details">
          <summary>Details</summary>
          {message && (
            <p className="turn-alert-detail-message">
              <SettingsLinkText text={message} />
            </p>
          )}
          {shownCode && <p className="turn-alert-code">{shownCode}</p>}
        </details>
      )}
    </>
  )
}
