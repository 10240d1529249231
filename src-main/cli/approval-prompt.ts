/**
 * Approval cards in a terminal: the card on stderr, the answer on stdin — `[y]es once / [c]hat /
 * [a]lways / [n]o`. Only where both are a terminal; elsewhere nobody can answer, and what would
 * ask is refused.
 */
import { createInterface } from 'node:readline/promises'
import type { ApprovalRequest } from '../../src-shared/approvals'
import { type Asker, type AskResult, nobodyToAsk } from '../approvals/approval-service'
import { declineHeadless } from './headless-elicitation'

/** MCP servers' questions are declined either way: a form is not something to fill in here. */
export function terminalAsker(): Asker {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return { ...nobodyToAsk, elicit: declineHeadless }
  return { ask: askInTerminal, elicit: declineHeadless }
}

async function askInTerminal(request: ApprovalRequest, signal: AbortSignal): Promise<AskResult> {
  process.stderr.write(describeRequest(request))
  const prompt = createInterface({ input: process.stdin, output: process.stderr })
  try {
    for (;;) {
      const answer = (await prompt.question('Allow? [y]es once / [c]hat / [a]lways / [n]o: ', { signal }))
        .trim()
        .toLowerCase()
      if (answer === 'y' || answer === 'yes') return { decision: 'allow-once' }
      if (answer === 'c' || answer === 'chat') return { decision: 'allow-chat' }
      if ((answer === 'a' || answer === 'always') && request.suggestedRules.length > 0) {
        const scope = request.folder ? 'project' : 'global'
        process.stderr.write(
          `Saving for ${scope === 'project' ? request.folder : 'everywhere'}: ${request.suggestedRules.join(', ')}\n`,
        )
        return { decision: 'always', rules: request.suggestedRules, scope }
      }
      if (answer === 'n' || answer === 'no') {
        const message = (await prompt.question('Message to the model (optional): ', { signal })).trim()
        return { decision: 'deny', ...(message && { message }) }
      }
    }
  } finally {
    prompt.close()
  }
}

export function describeRequest(request: ApprovalRequest): string {
  const lines = [`\n? ${request.tool} wants to run: ${request.description.summary}`]
  for (const reason of request.reasons) lines.push(`  · ${reason}`)
  for (const command of request.commands ?? []) {
    lines.push(
      `  ${command.verdict.padEnd(5)} ${command.text}${command.rule ? `  (rule ${command.rule})` : ''}`,
    )
  }
  if (request.preview?.kind === 'diff') lines.push(request.preview.patch.trimEnd())
  return `${lines.join('\n')}\n`
}
