/**
 * What a model's tokens cost, per provider: the person's own prices from Settings → Providers, else
 * the defaults for the vendor's models at the vendor's own endpoint (src-shared/prices.ts), else
 * nothing — an unknown price is never guessed.
 */
import {
  DEFAULT_PRICES,
  type DefaultPrice,
  defaultPrice,
  type ModelPrice,
  type ModelPriceEntry,
} from '../../src-shared/prices'
import { isOfficialEndpoint } from '../../src-shared/providers'
import type { ModelPricesRepository } from '../db/model-prices-repository'
import type { ProvidersRepository } from '../db/providers-repository'
import { providerNotFound, type ResolvedProvider } from './provider-service'

export class PriceService {
  constructor(
    private readonly prices: ModelPricesRepository,
    private readonly providers: ProvidersRepository,
  ) {}

  /** The price a turn's responses are costed at; undefined when none is known for its model there. */
  priceFor(provider: Pick<ResolvedProvider, 'id' | 'config' | 'model'>): DefaultPrice | undefined {
    const own = this.prices.get(provider.id, provider.model)
    if (own) return own.price
    const { kind, baseUrl } = provider.config
    return isOfficialEndpoint(kind, baseUrl) ? defaultPrice(kind, provider.model) : undefined
  }

  /** A provider's prices: the person's own, and the defaults that apply at its endpoint, by model. */
  list({ providerId }: { providerId: string }): ModelPriceEntry[] {
    const provider = this.providers.get(providerId)
    if (!provider) throw providerNotFound(providerId)
    const own = this.prices.list(providerId)
    const defaults = isOfficialEndpoint(provider.kind, provider.baseUrl)
      ? Object.entries(DEFAULT_PRICES[provider.kind]).filter(([model]) => !own.some((p) => p.model === model))
      : []
    return [
      ...own.map(({ model, price }) => ({ model, price, source: 'custom' as const })),
      ...defaults.map(([model, { input, cachedInput, output }]) => ({
        model,
        price: { input, cachedInput, output },
        source: 'default' as const,
      })),
    ].sort((a, b) => a.model.localeCompare(b.model))
  }

  /** States the price of a model of a provider: later responses of that model are costed at it. */
  set({
    providerId,
    model,
    price,
  }: {
    providerId: string
    model: string
    price: ModelPrice
  }): ModelPriceEntry[] {
    if (!this.providers.get(providerId)) throw providerNotFound(providerId)
    this.prices.save({ providerId, model, price })
    return this.list({ providerId })
  }

  /** Forgets the person's price of a model: the default applies again, where there is one. */
  reset({ providerId, model }: { providerId: string; model: string }): ModelPriceEntry[] {
    this.prices.delete(providerId, model)
    return this.list({ providerId })
  }
}
