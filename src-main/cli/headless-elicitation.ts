/**
 * What an MCP server asks in `atelier run` and `atelier tool` — a form (elicitation), a completion
 * from the chat's model (sampling) — answered as `--elicitation` says: `decline` (the default) says
 * no at once, the terminal told what was asked; `defaults` accepts the form's defaults and sends a
 * sampling request as the server wrote it; `ask` puts it to the person on the terminal, as approvals
 * are (declined where there is no terminal). A change a tool proposes is not applied by any of them.
 */
import type { Interface } from 'node:readline/promises'
import {
  type ElicitationAnswer,
  type ElicitationContent,
  type ElicitationField,
  type ElicitationQuestion,
  elicitationDefaults,
  elicitationFields,
  elicitationProblems,
} from '../../src-shared/elicitation'
import { approvedAsAsked, type SamplingAnswer, type SamplingQuestion } from '../../src-shared/sampling'
import type { AskResult, ToolQuestion } from '../tools/types'

/**
 * The most tokens `--elicitation defaults` lets a sampling request ask of the model, whatever the
 * server asked: nobody watches a headless run's spending.
 */
export const HEADLESS_SAMPLING_MAX_TOKENS = 4096

/** The choices of `--elicitation`. */
export const ELICITATION_CHOICES = ['decline', 'defaults', 'ask'] as const
export type ElicitationChoice = (typeof ELICITATION_CHOICES)[number]

/** A server's question: a form, or a sampling request. */
export type ServerQuestion =
  | ({ kind: 'elicitation' } & ElicitationQuestion)
  | ({ kind: 'sampling' } & SamplingQuestion)

/**
 * The answer given at once to a server's question; undefined where the person is to be asked on the
 * terminal (`ask` with one to ask on).
 */
export function answerServerAtOnce(
  question: ServerQuestion,
  choice: ElicitationChoice,
  interactive: boolean,
): ElicitationAnswer | SamplingAnswer | undefined {
  if (choice === 'ask' && interactive) return undefined
  if (choice === 'defaults') {
    if (question.kind === 'sampling') {
      const approved = approvedAsAsked(question)
      const maxTokens = Math.min(approved.maxTokens, HEADLESS_SAMPLING_MAX_TOKENS)
      tell(
        `Sent the MCP server “${oneLine(question.server)}”'s sampling request to the model as asked (at most ${maxTokens} tokens).`,
      )
      return { ...approved, maxTokens }
    }
    const content = elicitationDefaults(question.requestedSchema)
    const problems = Object.values(elicitationProblems(question.requestedSchema, content))
    if (problems.length === 0) {
      tell(
        `Accepted the defaults of the MCP server “${oneLine(question.server)}”'s question: ${oneLine(question.message)}`,
      )
      return { action: 'accept', content }
    }
    tell(
      `Declined the MCP server “${oneLine(question.server)}”'s question (its defaults do not answer it: ${oneLine(problems.join(' '))}): ${oneLine(question.message)}`,
    )
    return { action: 'decline' }
  }
  const why = choice === 'ask' ? 'no terminal to ask on' : 'no one to answer in a headless run'
  if (question.kind === 'sampling') {
    tell(`Declined the MCP server “${oneLine(question.server)}”'s sampling request (${why}).`)
    return { action: 'decline' }
  }
  return declineHeadless(question, why)
}

export function declineHeadless(
  question: ElicitationQuestion,
  why = 'no one to answer in a headless run',
): ElicitationAnswer {
  tell(
    `Declined the MCP server “${oneLine(question.server)}”'s question (${why}): ${oneLine(question.message)}`,
  )
  return { action: 'decline' }
}

/** `atelier tool`'s answer to whatever a tool asks while it runs. */
export function answerHeadless(question: ToolQuestion): AskResult {
  if (question.kind === 'elicitation') return declineHeadless(question)
  if (question.kind === 'sampling') return { action: 'decline' }
  return {
    decision: 'unanswered',
    reason:
      'Nobody can confirm a pending action here: atelier run and atelier tool have no UI. Run the tool in the Atelier app.',
  }
}

/** A server's question put to the person on the terminal: the form field by field, or the request to approve. */
export async function askServerInTerminal(
  question: ServerQuestion,
  prompt: Interface,
  signal: AbortSignal,
): Promise<ElicitationAnswer | SamplingAnswer> {
  if (question.kind === 'sampling') return reviewSampling(question, prompt, signal)
  process.stderr.write(
    `\n? The MCP server “${oneLine(question.server)}” asks: ${oneLine(question.message)}\n`,
  )
  for (;;) {
    const choice = (await prompt.question('[a]nswer / [d]ecline / [c]ancel: ', { signal }))
      .trim()
      .toLowerCase()
    if (choice === 'd' || choice === 'decline') return { action: 'decline' }
    if (choice === 'c' || choice === 'cancel') return { action: 'cancel' }
    if (choice !== 'a' && choice !== 'answer') continue
    const content: ElicitationContent = {}
    for (const field of elicitationFields(question.requestedSchema)) {
      const value = await askField(field, prompt, signal)
      if (value !== undefined) content[field.name] = value
    }
    const problems = Object.values(elicitationProblems(question.requestedSchema, content))
    if (problems.length === 0) return { action: 'accept', content }
    process.stderr.write(`${problems.map((problem) => `  · ${problem}`).join('\n')}\n`)
  }
}

/** One field's answer as typed (Enter keeps its default); what does not parse is left for the form's check. */
async function askField(
  field: ElicitationField,
  prompt: Interface,
  signal: AbortSignal,
): Promise<ElicitationContent[string] | undefined> {
  const options = field.kind === 'choice' || field.kind === 'multi' ? field.options : []
  if (options.length > 0) {
    process.stderr.write(
      `${options.map((option) => `    ${option.value}: ${oneLine(option.label)}`).join('\n')}\n`,
    )
  }
  const shown = field.default === undefined ? '' : ` [${[field.default].flat().join(', ')}]`
  const hint = field.kind === 'boolean' ? ' (y/n)' : field.kind === 'multi' ? ' (comma-separated)' : ''
  const described = field.description ? ` — ${oneLine(field.description)}` : ''
  const typed = (
    await prompt.question(`  ${oneLine(field.label)}${described}${hint}${shown}: `, { signal })
  ).trim()
  if (!typed) return field.default
  switch (field.kind) {
    case 'boolean':
      return /^(y|yes|true)$/i.test(typed) ? true : /^(n|no|false)$/i.test(typed) ? false : typed
    case 'number':
      return Number.isFinite(Number(typed)) ? Number(typed) : typed
    case 'multi':
      return typed
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    default:
      return typed
  }
}

/** A sampling request shown whole; the person sends it, changes its system prompt or token budget, or declines. */
async function reviewSampling(
  question: SamplingQuestion & { kind: 'sampling' },
  prompt: Interface,
  signal: AbortSignal,
): Promise<SamplingAnswer> {
  let { systemPrompt, maxTokens } = question
  process.stderr.write(`\n? The MCP server “${oneLine(question.server)}” asks the model for a completion:\n`)
  for (const message of question.messages)
    process.stderr.write(`  [${message.role}] ${oneLine(message.text)}\n`)
  for (;;) {
    process.stderr.write(
      `  system prompt: ${systemPrompt ? oneLine(systemPrompt) : '(none)'}\n  max tokens: ${maxTokens}\n`,
    )
    const choice = (
      await prompt.question('Send? [y]es / [s]ystem prompt / [m]ax tokens / [n]o: ', { signal })
    )
      .trim()
      .toLowerCase()
    if (choice === 'y' || choice === 'yes') {
      return { action: 'approve', messages: question.messages, systemPrompt, maxTokens }
    }
    if (choice === 'n' || choice === 'no') return { action: 'decline' }
    if (choice === 's') systemPrompt = (await prompt.question('  System prompt: ', { signal })).trim()
    if (choice === 'm') {
      const typed = Number((await prompt.question('  Max tokens: ', { signal })).trim())
      if (Number.isInteger(typed) && typed > 0) maxTokens = typed
    }
  }
}

function tell(line: string): void {
  process.stderr.write(`${line}\n`)
}

/**
 * What a server wrote, as one line the terminal only shows: control characters (C0, DEL, C1 — line
 * breaks, escape sequences that would move the cursor or recolour the terminal) become spaces.
 */
export function oneLine(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
}
