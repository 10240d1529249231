/**
 * A copy of a conversation (a fork, a rewound chat's earlier turns, an imported chat) keeps the
 * usage of its responses and sampling requests, marked as copied: shown with the conversation, left
 * out of the usage totals, which count each spend once (see Usage.copied). An export leaves the mark
 * out: it is this app's bookkeeping, and an import marks the whole file anyway.
 */
import type { CallDecision } from '../../src-shared/questions'
import type { Usage } from '../../src-shared/usage'

/** A response's usage as a copy's. */
export function copiedUsage(usage: Usage): Usage {
  return { ...usage, copied: true }
}

/** A response's usage without the copy's mark, as an export writes it. */
export function unmarkedUsage({ copied: _copied, ...usage }: Usage): Usage {
  return usage
}

/** A call's decisions with the usage a sampling request's keeps marked as a copy's. */
export function copiedDecisions(decisions: readonly CallDecision[]): CallDecision[] {
  return withUsage(decisions, copiedUsage)
}

/** A call's decisions without the copy's mark on their usage, as an export writes them. */
export function unmarkedDecisions(decisions: readonly CallDecision[]): CallDecision[] {
  return withUsage(decisions, unmarkedUsage)
}

function withUsage(decisions: readonly CallDecision[], change: (usage: Usage) => Usage): CallDecision[] {
  return decisions.map((decision) =>
    decision.usage ? { ...decision, usage: change(decision.usage) } : decision,
  )
}
