import type { Chat } from '../../src-shared/contract'
import type { AgentProfile } from '../../src-shared/providers'

/** The profile's prompt, and in agent mode the folder the tools work in. */
export function buildSystemPrompt(profile: AgentProfile, chat: Chat, now = new Date()): string {
  const sections = [profile.systemPrompt.trim()]
  if (chat.mode === 'agent' && chat.workingDir) {
    sections.push(
      [
        `You are working in the folder ${chat.workingDir}.`,
        'Relative paths in tool calls resolve against it, and paths reported by tools are relative to it.',
        'Tools are confined to this folder.',
      ].join(' '),
    )
  }
  sections.push(`Today is ${now.toISOString().slice(0, 10)}.`)
  return sections.filter(Boolean).join('\n\n')
}
