/**
 * A copy of a conversation (a fork, a rewound chat's earlier turns, an imported chat) keeps the
 * usage of its responses and sampling requests, marked as copied: shown with the conversation, left
 * out of the usage totals, which count each spend once (see Usage.copied).
 */
import type { CallDecision } from '../../src-shared/questions'
import { copiedUsage } from '../../src-shared/usage'

/** A call's decisions as a copy's: the tokens a sampling request used marked as copied. */
export function copiedDecisions(decisions: readonly CallDecision[]): CallDecision[] {
  return decisions.map((decision) =>
    decision.usage ? { ...decision, usage: copiedUsage(decision.usage) } : decision,
  )
}
