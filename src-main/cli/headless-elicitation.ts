/**
 * MCP servers' questions (elicitation) in `atelier run` and `atelier tool`: nobody can fill in a
 * form there, so the server is declined at once, and the terminal is told what it asked.
 */
import type { ElicitationAnswer, ElicitationQuestion } from '../../src-shared/elicitation'

export async function declineHeadless(question: ElicitationQuestion): Promise<ElicitationAnswer> {
  process.stderr.write(
    `Declined the MCP server “${question.server}”'s question (no one to answer in a headless run): ${question.message}\n`,
  )
  return { action: 'decline' }
}
