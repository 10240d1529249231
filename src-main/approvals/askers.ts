/**
 * Who answers the questions a turn asks its person (see tools/scheduler/question-line.ts): the
 * app's chat view through `calls.answer`, a terminal prompt, or nobody at all.
 */
import type { MethodRequest } from '../../src-shared/contract'
import { elicitationProblems } from '../../src-shared/elicitation'
import { AtelierError } from '../../src-shared/errors'
import { type Answer, answerFits, type Question } from '../../src-shared/questions'
import type { Asker } from '../tools/scheduler/question-line'
import type { AskResult } from '../tools/types'
import { assertRule } from './rules'
import { WaitingAnswers } from './waiting-answers'

export type { Asker, AskResult }

/** Said to the model when a call needed a person and there was none. */
export const NOBODY_TO_ASK = 'The user has not approved this call (non-interactive run).'

/** Where nobody can answer: what would ask is refused, and a server's form or sampling request is declined. */
export const nobodyToAsk: Asker = {
  answerAtOnce: (question) =>
    question.kind === 'elicitation' || question.kind === 'sampling'
      ? { action: 'decline' }
      : { decision: 'unanswered', reason: NOBODY_TO_ASK },
  ask: async (question) => nobodyToAsk.answerAtOnce?.(question) as AskResult,
}

/**
 * Questions answered in the app: each waits, by chat, for `calls.answer` from whichever window
 * answers first, and is gone when its call stops.
 */
export class InAppAsker implements Asker {
  private readonly waiting = new WaitingAnswers<Question, Answer>()

  ask(question: Question, signal: AbortSignal): Promise<AskResult> {
    return this.waiting.wait(question, signal)
  }

  /**
   * The contract's `calls.answer`. An answer the question does not take is refused with
   * `invalid_answer` and the question keeps waiting; `answered` is false when it no longer waits.
   */
  answer({ chatId, questionId, answer }: MethodRequest<'calls.answer'>): { answered: boolean } {
    const question = this.waiting.get(questionId, chatId)
    if (!question) return { answered: false }
    assertAnswers(question, answer)
    return { answered: this.waiting.answer(questionId, chatId, answer) }
  }
}

function assertAnswers(question: Question, answer: Answer): void {
  if (!answerFits(question, answer)) {
    const takes = {
      approval: 'an approval takes allow-once, allow-chat, always or deny',
      confirmation: 'a proposed change takes allow-once (apply) or deny (discard)',
      elicitation: "a server's form takes accept, decline or cancel",
      sampling: "a server's sampling request takes approve (with the request to send) or decline",
      plan: 'a proposed plan takes approve-plan (with a mode) or keep-planning',
    }[question.kind]
    throw new AtelierError('invalid_answer', `That answer does not fit the question: ${takes}.`, {})
  }
  if (question.kind === 'elicitation' && 'action' in answer && answer.action === 'accept') {
    const problems = elicitationProblems(question.requestedSchema, answer.content)
    if (Object.keys(problems).length > 0) {
      throw new AtelierError(
        'invalid_answer',
        `The answer does not fit the server's form: ${Object.values(problems).join(' ')}`,
        { problems },
      )
    }
  }
  if (question.kind === 'approval' && 'decision' in answer && answer.decision === 'always') {
    for (const rule of answer.rules) assertRule(rule)
    if (answer.scope === 'project' && question.folder === null) {
      throw new AtelierError(
        'invalid_rule',
        'This chat has no project folder: save the rule for everywhere instead.',
        {},
      )
    }
  }
}
