/** Approvals in the words the person reads: modes, outcomes, rule actions, scopes and sources. */
import type { ApprovalMode, PermissionRule, RuleAction, RuleSource } from '../../../src-shared/approvals'
import type { CallDecision } from '../../../src-shared/questions'

export const APPROVAL_MODE_LABELS: Record<ApprovalMode, string> = {
  ask: 'Ask',
  'accept-edits': 'Accept edits',
  'read-only': 'Read only',
  'full-auto': 'Full auto',
  plan: 'Plan',
}

/** What each mode lets run unasked; deny rules and protected paths hold in all of them. */
export const APPROVAL_MODE_HINTS: Record<ApprovalMode, string> = {
  ask: 'Reads run; edits and commands ask first.',
  'accept-edits': 'Reads and edits inside the bound folder run; commands ask first.',
  'read-only': 'Only reading tools are offered; nothing is changed.',
  'full-auto': 'Nothing asks. Deny rules and protected paths still hold.',
  plan: 'Only reading tools run; the agent proposes a plan, and nothing changes until you approve it.',
}

/**
 * How a question of a call was decided, in a word or three: `Allowed once`, `Always allowed`,
 * `Denied`, `Applied`, `Answered`, `Cancelled`…
 */
export function decisionLabel({ kind, outcome, by, scope, mode }: CallDecision): string {
  if (outcome === 'cancelled') return 'Cancelled'
  if (kind === 'confirmation') return outcome === 'allowed' ? 'Applied' : 'Discarded'
  if (kind === 'elicitation') return outcome === 'accepted' ? 'Answered' : 'Declined'
  if (kind === 'sampling') return outcome === 'allowed' ? 'Sent to the model' : 'Declined'
  if (kind === 'plan') {
    if (outcome === 'denied') return by === 'nobody' ? 'Not reviewed' : 'Sent back to planning'
    return mode ? `Approved, going on in ${APPROVAL_MODE_LABELS[mode]}` : 'Approved'
  }
  if (outcome === 'denied') return by === 'rule' || by === 'mode' ? 'Refused' : 'Denied'
  if (by !== 'person') return 'Allowed'
  return scope === 'chat' ? 'Allowed for this chat' : scope === 'once' ? 'Allowed once' : 'Always allowed'
}

export const ACTION_LABELS: Record<RuleAction, string> = { allow: 'Allow', ask: 'Ask', deny: 'Deny' }

export const RULE_HINT = 'A tool name, or a tool with a pattern: bash(npm run test *), write_file(**/*.md).'

export const SOURCE_LABELS: Record<RuleSource, string> = {
  approval: 'Saved from an approval card',
  settings: 'Added in settings',
  cli: 'Added with the command line',
}

/** Where a rule holds, with its folder or chat. */
export function scopeText(rule: PermissionRule, chatTitle?: string): string {
  switch (rule.scope) {
    case 'global':
      return 'Everywhere'
    case 'project':
      return `In ${rule.folder ?? 'a project folder'}`
    case 'chat':
      return chatTitle ? `In the chat “${chatTitle}”` : 'In one chat'
  }
}
