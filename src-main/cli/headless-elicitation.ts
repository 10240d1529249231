/**
 * MCP servers' questions (elicitation) in `atelier run` and `atelier tool`: nobody can fill in a
 * form there, so the server is declined at once, and the terminal is told what it asked.
 */
import type { ElicitationAnswer, ElicitationQuestion } from '../../src-shared/elicitation'

export async function declineHeadless(question: ElicitationQuestion): Promise<ElicitationAnswer> {
  process.stderr.write(
    `Declined the MCP server “${oneLine(question.server)}”'s question (no one to answer in a headless run): ${oneLine(question.message)}\n`,
  )
  return { action: 'decline' }
}

/**
 * What a server wrote, as one line the terminal only shows: control characters (C0, DEL, C1 — line
 * breaks, escape sequences that would move the cursor or recolour the terminal) become spaces.
 */
export function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
}
