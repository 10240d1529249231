import type { ApprovalMode } from '../../src-shared/approvals'
import type { Chat } from '../../src-shared/contract'
import type { AgentProfile } from '../../src-shared/providers'
import type { CommandSandbox } from '../tools/sandbox/command-sandbox'

/** What the mode lets through, told to the model so a refusal is expected rather than retried. */
const APPROVAL_RULES: Record<ApprovalMode, string> = {
  ask: 'Reading tools run at once; edits, commands and other actions wait for the person to approve them.',
  'accept-edits':
    'Reading tools and edits inside the folder run at once; commands, other actions and edits of protected files (git hooks and config, .env files, package.json, CI files, executables) wait for the person to approve them.',
  'read-only':
    'Only reading tools are available: do not try to change anything; say what you would change instead.',
  'full-auto':
    'Calls run without asking, but the person’s permission rules still refuse some, and edits of protected files wait for approval.',
  plan: 'Only reading tools are available: explore what the task needs, change nothing, then call propose_plan with your plan in Markdown, its steps as a list. The person approves it (and the work goes on in this turn, with more tools) or tells you what to reconsider.',
}

/** Why and how to keep the live plan (update_plan is a built-in the person may turn off). */
const PLAN_GUIDANCE =
  'Plans: for work of more than a few steps, when update_plan is offered, call it first with the steps, and again as each one starts and ends (exactly one in_progress at a time, every step sent each time), so the person sees where the work is. Skip it for a quick answer or a single change.'

/**
 * What the sandbox lets the model's commands do, for a turn that offers a shell (undefined
 * otherwise): confined or not, with the network or not, asked about or not in this mode.
 */
export async function sandboxPrompt(
  sandbox: CommandSandbox | undefined,
  runsCommands: boolean,
  mode: ApprovalMode,
): Promise<SandboxPrompt | undefined> {
  if (!sandbox || !runsCommands) return undefined
  const { settings, available } = await sandbox.info()
  return {
    confined: settings.enabled && available,
    network: settings.network,
    unasked: settings.runUnasked && (mode === 'ask' || mode === 'accept-edits'),
  }
}

/** Whether the commands the model may run (a shell is offered) are confined, and how. */
export interface SandboxPrompt {
  confined: boolean
  network: boolean
  /** Confined commands run without asking in this mode. */
  unasked: boolean
}

/** What else a turn's system prompt says: the sandbox, the project's instruction files, the date. */
export interface SystemPromptExtras {
  sandbox?: SandboxPrompt | undefined
  /** The project's instruction files as one section (see project-instructions.ts). */
  instructions?: string
  now?: Date
}

/**
 * The profile's prompt, in agent mode the folder the tools work in, what approvals do, and — when a
 * shell is offered — what the sandbox lets its commands do.
 */
export function buildSystemPrompt(
  profile: AgentProfile,
  chat: Chat,
  approvalMode: ApprovalMode,
  { sandbox, instructions = '', now = new Date() }: SystemPromptExtras = {},
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
  // The project's own words come early and stay put from turn to turn, so a prompt cache holds them.
  sections.push(instructions)
  const rules =
    !inFolder && (approvalMode === 'ask' || approvalMode === 'accept-edits')
      ? 'No project folder is bound, so every file and shell call waits for the person to approve it.'
      : APPROVAL_RULES[approvalMode]
  sections.push(
    `Approvals (${approvalMode} mode): ${rules} The person may refuse a call; its result then says so, with their reason when they gave one. Respect a refusal: do not repeat the call, adapt or ask.`,
  )
  sections.push(PLAN_GUIDANCE)
  if (sandbox?.confined) {
    sections.push(
      [
        'Sandbox: the commands you run are confined by the operating system. They write only in the working folder, where protected paths (.git, .npmrc, CI files and the like) are read-only; they cannot read the person’s keys and credentials;',
        sandbox.network ? 'they may use the network.' : 'they have no network.',
        sandbox.unasked ? 'Such a command runs without waiting for approval.' : '',
        'A command that needs more — the network, or writing elsewhere — may pass leave_sandbox with a one-line justification: the person decides each time. Ask for that only after a result says the sandbox refused something.',
      ]
        .filter(Boolean)
        .join(' '),
    )
  } else if (sandbox) {
    sections.push('Commands you run are not sandboxed here: they can reach whatever the person can.')
  }
  sections.push(`Today is ${now.toISOString().slice(0, 10)}.`)
  return sections.filter(Boolean).join('\n\n')
}
