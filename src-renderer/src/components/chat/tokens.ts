import type { ContextStatus } from '../../../../src-shared/agent'
import { dollarsText, type UsageTotal } from '../../../../src-shared/usage'

/** Drops a trailing ".0" (and any zeros after the point): 16.0 → "16", 1.50 → "1.5". */
function trim(value: string): string {
  return value.includes('.') ? value.replace(/\.?0+$/, '') : value
}

/** A token count in short: 950, 12.4k, 128k, 1.05M. */
export function shortTokens(tokens: number): string {
  const n = Math.max(0, Math.round(tokens))
  if (n < 1000) return String(n)
  if (n < 100_000) return `${trim((n / 1000).toFixed(1))}k`
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`
  return `${trim((n / 1_000_000).toFixed(2))}M`
}

const fullNumber = new Intl.NumberFormat('en-US')

/** A token count in full: 1,234. */
export function fullTokens(tokens: number): string {
  return fullNumber.format(Math.round(tokens))
}

/** Tokens, and dollars where priced: "1,234 in · 56 out · 1,000 cached · $0.0022". */
export function usageText(usage: UsageTotal): string {
  const parts = [`${fullTokens(usage.inputTokens)} in`, `${fullTokens(usage.outputTokens)} out`]
  if (usage.cachedTokens) parts.push(`${fullTokens(usage.cachedTokens)} cached`)
  const cost = costText(usage)
  if (cost) parts.push(cost)
  return parts.join(' · ')
}

/**
 * What responses cost: "$0.0022", with "+ 2 unpriced" where some had no price (their cost is
 * unknown, so the sum is a floor); undefined when none had one.
 */
export function costText(usage: UsageTotal): string | undefined {
  if (usage.costUsd === undefined) return undefined
  const unpriced = usage.unpricedResponses ?? 0
  return unpriced > 0 ? `${dollarsText(usage.costUsd)} + ${unpriced} unpriced` : dollarsText(usage.costUsd)
}

export const WINDOW_SOURCES: Record<ContextStatus['windowSource'], string> = {
  setting: 'set for this provider in Settings → Providers',
  listing: 'as the provider’s model listing gives it',
  table: 'from Atelier’s table of well-known models',
  default: 'a default: the model is not known',
}

/** How full the context is, as a share of the window (0–100, may pass 100). */
export function usedPercent(context: ContextStatus): number {
  return context.windowTokens > 0 ? (context.usedTokens / context.windowTokens) * 100 : 0
}

/** `ok` well under the threshold, `near` within reach of it, `over` past it (compaction is due). */
export function gaugeLevel(context: ContextStatus): 'ok' | 'near' | 'over' {
  const percent = usedPercent(context)
  if (percent >= context.thresholdPercent) return 'over'
  if (percent >= context.thresholdPercent * 0.8) return 'near'
  return 'ok'
}
