/**
 * Tokens and dollars added up over responses — a task's subagents, a turn, a chat, a day — and how a
 * person reads dollars. What one response cost is worked out in prices.ts.
 */
import { type Static, Type } from '@sinclair/typebox'

/** Tokens of one model response, as its provider reported them. */
export const Usage = Type.Object({
  inputTokens: Type.Number(),
  outputTokens: Type.Number(),
  /** Input tokens the provider read from its prompt cache, where it says. */
  cachedTokens: Type.Optional(Type.Number()),
  /**
   * What the response cost in US dollars, at the model's price when it was answered (see
   * src-shared/prices.ts); absent where no price was known: never guessed.
   */
  costUsd: Type.Optional(Type.Number()),
  /**
   * Set on a copy of a response spent once already: a fork's and a rewound chat's earlier turns, an
   * imported chat's. The conversation shows it; Settings → Usage leaves it out, so each is counted once.
   */
  copied: Type.Optional(Type.Literal(true)),
})
export type Usage = Static<typeof Usage>

/**
 * Tokens and dollars added up over responses (an answer's subagents, a turn, a chat, a day).
 * `costUsd` is the dollars of the responses that had a price, absent when none had; those without
 * one are counted in `unpricedResponses`, their tokens in the totals, their cost nowhere.
 */
export const UsageTotal = Type.Object({
  inputTokens: Type.Number(),
  outputTokens: Type.Number(),
  cachedTokens: Type.Optional(Type.Number()),
  costUsd: Type.Optional(Type.Number()),
  unpricedResponses: Type.Optional(Type.Number()),
})
export type UsageTotal = Static<typeof UsageTotal>

export const NO_USAGE: UsageTotal = { inputTokens: 0, outputTokens: 0 }

/** One response's usage as a total: priced, or one unpriced response. */
export function responseTotal(usage: Usage): UsageTotal {
  return addUsage(NO_USAGE, {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    ...(usage.cachedTokens !== undefined && { cachedTokens: usage.cachedTokens }),
    ...(usage.costUsd !== undefined ? { costUsd: usage.costUsd } : { unpricedResponses: 1 }),
  })
}

/** Two totals as one. */
export function addUsage(a: UsageTotal, b: UsageTotal): UsageTotal {
  const cached = (a.cachedTokens ?? 0) + (b.cachedTokens ?? 0)
  const unpriced = (a.unpricedResponses ?? 0) + (b.unpricedResponses ?? 0)
  const priced = a.costUsd !== undefined || b.costUsd !== undefined
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    ...(cached > 0 && { cachedTokens: cached }),
    ...(priced && { costUsd: (a.costUsd ?? 0) + (b.costUsd ?? 0) }),
    ...(unpriced > 0 && { unpricedResponses: unpriced }),
  }
}

/** Dollars as a person reads them: cents for a dollar or more, four places below (a response costs fractions of a cent). */
export function dollarsText(dollars: number): string {
  if (dollars === 0) return '$0.00'
  if (dollars >= 1) return `$${dollars.toFixed(2)}`
  if (dollars < 0.0001) return '<$0.0001'
  return `$${dollars.toFixed(4)}`
}

/** Usage on one day, by the person's calendar: `day` as YYYY-MM-DD. */
export const DayUsage = Type.Composite([Type.Object({ day: Type.String() }), UsageTotal])
export type DayUsage = Static<typeof DayUsage>

/** A chat's usage in a period, its subagents' chats included. */
export const ChatUsage = Type.Composite([
  Type.Object({ chatId: Type.String(), title: Type.String() }),
  UsageTotal,
])
export type ChatUsage = Static<typeof ChatUsage>

/** What Settings → Usage shows: the days of a period, newest first, and its costliest chats. */
export const UsageReport = Type.Object({
  days: Type.Array(DayUsage),
  chats: Type.Array(ChatUsage),
  total: UsageTotal,
})
export type UsageReport = Static<typeof UsageReport>
