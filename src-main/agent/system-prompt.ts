import type { ApprovalMode } from '../../src-shared/approvals'
import type { Chat } from '../../src-shared/contract'
import type { AgentProfile } from '../../src-shared/providers'

/** What the mode lets through, told to the model so a refusal is expected rather than retried. */
const APPROVAL_RULES: Record<ApprovalMode, string> = {
  ask: 'Reading tools run at once; edits, commands and other actions wait for the person to approve them.',
  'accept-edits':
    'Reading tools and edits inside the folder run at once; commands, other actions and edits of protected files (git hooks and config, .env files, package.json, CI files, executables) wait for the person to approve them.',
  'read-only':
    'Only reading tools are available: do not try to change anything; say what you would change instead.',
  'full-auto':
    'Calls run without asking, but the person’s permission rules still refuse some, and edits of protected files wait for approval.',
}

/** The profile's prompt, in agent mode the folder the tools work in, and what approvals do. */
export function buildSystemPrompt(
  profile: AgentProfile,
  chat: Chat,
  approvalMode: ApprovalMode,
  now = new Date(),
): string {
  const sections = [profile.systemPrompt.trim()]
  const inFolder = chat.mode === 'agent' && chat.workingDir
  if (inFolder) {
    sections.push(
      [
        `You are working in the folder ${chat.workingDir}.`,
        'Relative paths in tool calls resolve against it, and paths reported by tools are relative to it.',
        'Tools are confined to this folder.',
      ].join(' '),
    )
  }
  const rules =
    !inFolder && approvalMode !== 'full-auto' && approvalMode !== 'read-only'
      ? 'No project folder is bound, so every file and shell call waits for the person to approve it.'
      : APPROVAL_RULES[approvalMode]
  sections.push(
    `Approvals (${approvalMode} mode): ${rules} The person may refuse a call; its result then says so, with their reason when they gave one. Respect a refusal: do not repeat the call, adapt or ask.`,
  )
  sections.push(`Today is ${now.toISOString().slice(0, 10)}.`)
  return sections.filter(Boolean).join('\n\n')
}
