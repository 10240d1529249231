/**
 * Questions in `atelier run` and `atelier tool` that nobody can answer there: an MCP server's form is
 * declined at once (the terminal is told what it asked), and a change a tool proposes is not applied.
 */
import type { ElicitationAnswer, ElicitationQuestion } from '../../src-shared/elicitation'
import type { AskResult, ToolQuestion } from '../tools/types'

export function declineHeadless(question: ElicitationQuestion): ElicitationAnswer {
  process.stderr.write(
    `Declined the MCP server “${oneLine(question.server)}”'s question (no one to answer in a headless run): ${oneLine(question.message)}\n`,
  )
  return { action: 'decline' }
}

/** `atelier tool`'s answer to whatever a tool asks while it runs. */
export function answerHeadless(question: ToolQuestion): AskResult {
  if (question.kind === 'elicitation') return declineHeadless(question)
  return {
    decision: 'unanswered',
    reason:
      'Nobody can confirm a pending action here: atelier run and atelier tool have no UI. Run the tool in the Atelier app.',
  }
}

/**
 * What a server wrote, as one line the terminal only shows: control characters (C0, DEL, C1 — line
 * breaks, escape sequences that would move the cursor or recolour the terminal) become spaces.
 */
export function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
}
