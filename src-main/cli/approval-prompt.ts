/**
 * Questions in a terminal: the card on stderr, the answer on stdin — `[y]es once / [c]hat /
 * [a]lways / [n]o` for an approval, `[y]es apply / [n]o discard` for a change a tool proposes, the
 * mode to go on in (or feedback) for a proposed plan. Only where both are a terminal; elsewhere
 * nobody can answer, and what would ask is refused. An MCP server's form or sampling request is
 * answered as `--elicitation` says (see ./headless-elicitation.ts).
 */
import { createInterface, type Interface } from 'node:readline/promises'
import type { ApprovalRequest, ConfirmationRequest } from '../../src-shared/approvals'
import type { Question } from '../../src-shared/questions'
import { type Asker, type AskResult, NOBODY_TO_ASK } from '../approvals/askers'
import { answerServerAtOnce, askServerInTerminal, type ElicitationChoice } from './headless-elicitation'

/** `elicitation`: how an MCP server's form or sampling request is answered (`--elicitation`). */
export function terminalAsker(elicitation: ElicitationChoice = 'decline'): Asker {
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true
  return {
    answerAtOnce: (question) => {
      if (question.kind === 'elicitation' || question.kind === 'sampling')
        return answerServerAtOnce(question, elicitation, interactive)
      return interactive ? undefined : { decision: 'unanswered', reason: NOBODY_TO_ASK }
    },
    ask: (question, signal) => askInTerminal(question, signal),
  }
}

async function askInTerminal(question: Question, signal: AbortSignal): Promise<AskResult> {
  if (question.kind === 'elicitation' || question.kind === 'sampling') {
    const prompt = createInterface({ input: process.stdin, output: process.stderr })
    try {
      return await askServerInTerminal(question, prompt, signal)
    } finally {
      prompt.close()
    }
  }
  if (question.kind === 'plan')
    process.stderr.write(`\n? ${question.tool} proposes a plan:\n${question.plan}\n`)
  else process.stderr.write(describeRequest(question))
  const prompt = createInterface({ input: process.stdin, output: process.stderr })
  try {
    if (question.kind === 'plan') return await reviewPlan(prompt, signal)
    if (question.kind === 'confirmation') {
      for (;;) {
        const answer = (await prompt.question('Apply? [y]es / [n]o: ', { signal })).trim().toLowerCase()
        if (answer === 'y' || answer === 'yes') return { decision: 'allow-once' }
        if (answer === 'n' || answer === 'no') return { decision: 'deny' }
      }
    }
    for (;;) {
      const answer = (await prompt.question('Allow? [y]es once / [c]hat / [a]lways / [n]o: ', { signal }))
        .trim()
        .toLowerCase()
      if (answer === 'y' || answer === 'yes') return { decision: 'allow-once' }
      if (answer === 'c' || answer === 'chat') return { decision: 'allow-chat' }
      if ((answer === 'a' || answer === 'always') && question.suggestedRules.length > 0) {
        const scope = question.folder ? 'project' : 'global'
        process.stderr.write(
          `Saving for ${scope === 'project' ? question.folder : 'everywhere'}: ${question.suggestedRules.join(', ')}\n`,
        )
        return { decision: 'always', rules: question.suggestedRules, scope }
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

/** Approve in a mode, or keep planning with feedback for the model. */
async function reviewPlan(prompt: Interface, signal: AbortSignal): Promise<AskResult> {
  const modes = { a: 'ask', e: 'accept-edits', f: 'full-auto' } as const
  for (;;) {
    const answer = (
      await prompt.question(
        'Approve and go on in [a]sk / accept-[e]dits / [f]ull-auto, or [k]eep planning: ',
        {
          signal,
        },
      )
    )
      .trim()
      .toLowerCase()
    if (answer === 'a' || answer === 'e' || answer === 'f')
      return { decision: 'approve-plan', mode: modes[answer] }
    if (answer === 'k') {
      const feedback = (await prompt.question('What should the plan reconsider? ', { signal })).trim()
      return { decision: 'keep-planning', ...(feedback && { feedback }) }
    }
  }
}

export function describeRequest(request: ApprovalRequest | ConfirmationRequest): string {
  // A subagent's call says whose it is: the person answers for the subagent, not for the agent.
  const asker = request.subagent
    ? ` (subagent ${request.subagent.agent}: ${request.subagent.description})`
    : ''
  if (request.kind === 'confirmation') {
    const { label, detail, preview } = request.action
    return `\n? ${request.tool}${asker} proposes a change: ${[label, detail, preview].filter(Boolean).join('\n')}\n`
  }
  const lines = [`\n? ${request.tool}${asker} wants to run: ${request.description.summary}`]
  for (const reason of request.reasons) lines.push(`  · ${reason}`)
  for (const command of request.commands ?? []) {
    lines.push(
      `  ${command.verdict.padEnd(5)} ${command.text}${command.rule ? `  (rule ${command.rule})` : ''}`,
    )
  }
  if (request.preview?.kind === 'diff') lines.push(request.preview.patch.trimEnd())
  return `${lines.join('\n')}\n`
}
