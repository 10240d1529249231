/** Approvals in the words the person reads: modes, outcomes, rule actions, scopes and sources. */
import type {
  ApprovalMode,
  ApprovalOutcome,
  PermissionRule,
  RuleAction,
  RuleSource,
} from '../../../src-shared/approvals'

export const APPROVAL_MODE_LABELS: Record<ApprovalMode, string> = {
  ask: 'Ask',
  'accept-edits': 'Accept edits',
  'read-only': 'Read only',
  'full-auto': 'Full auto',
}

/** What each mode lets run unasked; deny rules and protected paths hold in all of them. */
export const APPROVAL_MODE_HINTS: Record<ApprovalMode, string> = {
  ask: 'Reads run; edits and commands ask first.',
  'accept-edits': 'Reads and edits inside the bound folder run; commands ask first.',
  'read-only': 'Only reading tools are offered; nothing is changed.',
  'full-auto': 'Nothing asks. Deny rules and protected paths still hold.',
}

export const OUTCOME_LABELS: Record<ApprovalOutcome, string> = {
  'allow-once': 'Allowed once',
  'allow-chat': 'Allowed for this chat',
  always: 'Always allowed',
  deny: 'Denied',
  cancelled: 'Cancelled',
}

/** How a custom tool's pending action ended: Apply is an allow-once, Discard a deny. */
export const ACTION_OUTCOME_LABELS: Record<ApprovalOutcome, string> = {
  'allow-once': 'Applied',
  'allow-chat': 'Applied',
  always: 'Applied',
  deny: 'Discarded',
  cancelled: 'Cancelled',
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
