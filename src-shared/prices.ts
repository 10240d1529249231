/**
 * What a model's tokens cost: the price table's shapes, its defaults for well-known models, and the
 * arithmetic from a response's usage to dollars. A cost is only ever computed from a price someone
 * stated (these defaults, or the person's own in Settings → Providers); a model without one shows
 * its tokens alone.
 */
import { type Static, Type } from '@sinclair/typebox'
import type { ProviderKind } from './agent'
import type { Usage } from './usage'

const Dollars = Type.Number({ minimum: 0, maximum: 100_000 })

/** US dollars per million tokens. */
export const ModelPrice = Type.Object({
  input: Dollars,
  /** Input tokens read from the provider's prompt cache. */
  cachedInput: Dollars,
  /** Output tokens, reasoning included. */
  output: Dollars,
})
export type ModelPrice = Static<typeof ModelPrice>

/**
 * A default price; `longContext` is the provider's higher price for a request whose prompt is longer
 * than `aboveInputTokens` (Gemini 2.5 Pro), so a long prompt is not costed at the short one's price.
 */
export interface DefaultPrice extends ModelPrice {
  longContext?: ModelPrice & { aboveInputTokens: number }
}

/**
 * Defaults, editable: the vendors' published standard (not batch, not priority) prices per million
 * tokens, as listed on https://openai.com/api/pricing and https://ai.google.dev/gemini-api/docs/pricing
 * (paid tier) on 2025-08-15. They apply only at the vendor's own endpoint: a proxy or a local server
 * that serves a model of the same name has prices of its own, which the person states.
 */
const OPENAI_PRICES: Readonly<Record<string, DefaultPrice>> = {
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
  'gpt-5-chat-latest': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'gpt-4o-2024-05-13': { input: 5, cachedInput: 5, output: 15 },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  o1: { input: 15, cachedInput: 7.5, output: 60 },
  'o1-mini': { input: 1.1, cachedInput: 0.55, output: 4.4 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  'o3-mini': { input: 1.1, cachedInput: 0.55, output: 4.4 },
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
}

const GEMINI_PRICES: Readonly<Record<string, DefaultPrice>> = {
  'gemini-2.5-pro': {
    input: 1.25,
    cachedInput: 0.31,
    output: 10,
    longContext: { aboveInputTokens: 200_000, input: 2.5, cachedInput: 0.625, output: 15 },
  },
  'gemini-2.5-flash': { input: 0.3, cachedInput: 0.075, output: 2.5 },
  'gemini-2.5-flash-lite': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gemini-2.0-flash': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gemini-2.0-flash-lite': { input: 0.075, cachedInput: 0.075, output: 0.3 },
}

/** The defaults by wire format: a model's name means that vendor's model only at that vendor. */
export const DEFAULT_PRICES: Readonly<Record<ProviderKind, Readonly<Record<string, DefaultPrice>>>> = {
  'openai-responses': OPENAI_PRICES,
  'openai-chat': OPENAI_PRICES,
  gemini: GEMINI_PRICES,
  anthropic: {},
}

/** A dated snapshot's suffix (`gpt-4.1-2025-04-14`): priced as its model unless listed itself. */
const SNAPSHOT_SUFFIX = /-\d{4}-\d{2}-\d{2}$/

/**
 * The default price of a kind's model by its name (Gemini's `models/` prefix aside); undefined when
 * none is known. Callers apply it only at the kind's official endpoint (see `isOfficialEndpoint`).
 */
export function defaultPrice(kind: ProviderKind, model: string): DefaultPrice | undefined {
  const prices = DEFAULT_PRICES[kind]
  const name = model.replace(/^models\//, '')
  return prices[name] ?? prices[name.replace(SNAPSHOT_SUFFIX, '')]
}

/** The dollars of one response: cached input at its own price, the rest of the input and the output at theirs. */
export function costOf(usage: Usage, price: DefaultPrice): number {
  const applied =
    price.longContext && usage.inputTokens > price.longContext.aboveInputTokens ? price.longContext : price
  const cached = Math.min(usage.cachedTokens ?? 0, usage.inputTokens)
  const microDollars =
    (usage.inputTokens - cached) * applied.input +
    cached * applied.cachedInput +
    usage.outputTokens * applied.output
  return microDollars / 1_000_000
}

/** A response's usage with what it cost at `price`; as it was where no price is known. */
export function priced(usage: Usage, price: DefaultPrice | undefined): Usage {
  return price ? { ...usage, costUsd: costOf(usage, price) } : usage
}

/** A price of one model of a provider, as Settings → Providers lists and edits it. */
export const ModelPriceEntry = Type.Object({
  model: Type.String(),
  price: ModelPrice,
  /** `default`: from the table above; `custom`: the person's own, which wins. */
  source: Type.Union([Type.Literal('default'), Type.Literal('custom')]),
})
export type ModelPriceEntry = Static<typeof ModelPriceEntry>
