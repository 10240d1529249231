/** The sandbox in the words the person reads: the platform's, the policy that holds, how a command ran. */
import type { SandboxInfo, SandboxReport } from '../../../src-shared/sandbox'

export const SANDBOX_KIND_LABELS: Record<SandboxInfo['kind'], string> = {
  bubblewrap: 'bubblewrap (Linux)',
  seatbelt: 'Seatbelt (macOS)',
  none: 'None for this system',
}

/** Which policy holds for the agent's commands, in one sentence. */
export function sandboxPolicyText(info: SandboxInfo): string {
  if (!info.settings.enabled) {
    return 'Commands are not sandboxed: the sandbox is turned off in Settings → Sandbox.'
  }
  if (!info.available) {
    return `Commands are not sandboxed: the sandbox is unavailable on this computer. ${info.reason ?? ''}`.trim()
  }
  return `Commands run in the sandbox (${SANDBOX_KIND_LABELS[info.kind]}): they write only in the working folder and a private temp folder, cannot read your secrets, and the network is ${info.settings.network ? 'on' : 'off'}.`
}

/** A command card's badge: its words, how it looks, and its longer explanation. */
export interface SandboxBadge {
  label: string
  /** `confined` for a sandboxed command; `open` for one that was not. */
  tone: 'confined' | 'open'
  title: string
}

/** What a command card says of how its command ran, from the result's sandbox report. */
export function sandboxBadge(report: SandboxReport): SandboxBadge {
  switch (report.state) {
    case 'sandboxed':
      return {
        label: report.network ? 'Sandboxed · network' : 'Sandboxed',
        tone: 'confined',
        title: `Confined by the operating system: it could write only in the working folder and a private temp folder, read none of your secrets, and ${report.network ? 'reach the network' : 'not reach the network'}.`,
      }
    case 'outside':
      return {
        label: 'Ran outside the sandbox',
        tone: 'open',
        title: 'You allowed this command to run outside the sandbox, with your own permissions.',
      }
    case 'off':
      return {
        label: 'Not sandboxed: off',
        tone: 'open',
        title: 'The sandbox is turned off in Settings → Sandbox: it ran with your own permissions.',
      }
    case 'unavailable':
      return {
        label: 'Not sandboxed: unavailable',
        tone: 'open',
        title: report.reason || 'No sandbox works on this computer: it ran with your own permissions.',
      }
  }
}
