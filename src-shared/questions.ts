/**
 * What Atelier asks the person during a tool call, whoever asks: the approval policy (may this call
 * run?), a custom tool (may it apply the change it proposes?), an MCP server (its form, or a
 * completion from the chat's model it wants). One question
 * type with a kind, asked one at a time in call order inside the call's own card, answered through
 * one contract method (`calls.answer`) — and, once answered, kept with the call as a decision.
 */
import { type Static, Type } from '@sinclair/typebox'
import { ApprovalAnswer, ApprovalRequest, ConfirmationRequest, QuestionBase } from './approvals'
import { ElicitationAnswer, ElicitationRequest } from './elicitation'
import { PlanAnswer, PlanContinueMode } from './plans'
import { SamplingAnswer, SamplingRequest } from './sampling'
import { Usage } from './usage'

/** A plan the model proposed in plan mode (`propose_plan`), as Markdown: Approve, or Keep planning. */
export const PlanReviewRequest = Type.Object({
  kind: Type.Literal('plan'),
  ...QuestionBase,
  plan: Type.String(),
})
export type PlanReviewRequest = Static<typeof PlanReviewRequest>

export const Question = Type.Union([
  ApprovalRequest,
  ConfirmationRequest,
  ElicitationRequest,
  SamplingRequest,
  PlanReviewRequest,
])
export type Question = Static<typeof Question>
export type QuestionKind = Question['kind']

/** An answer to any question; `answerFits` tells whether it answers a given one. */
export const Answer = Type.Union([ApprovalAnswer, ElicitationAnswer, SamplingAnswer, PlanAnswer])
export type Answer = Static<typeof Answer>

/** The answer each kind of question takes. */
export type AnswerTo<Q extends Question> = Q extends ElicitationRequest
  ? ElicitationAnswer
  : Q extends SamplingRequest
    ? SamplingAnswer
    : Q extends ConfirmationRequest
      ? Extract<ApprovalAnswer, { decision: 'allow-once' | 'deny' }>
      : Q extends PlanReviewRequest
        ? PlanAnswer
        : ApprovalAnswer

/**
 * Whether `answer` is one `question` takes: a form's answer for a form, Approve or Decline for a
 * sampling request, Apply or Discard for a change, Approve or Keep planning for a plan.
 */
export function answerFits<Q extends Question>(question: Q, answer: Answer): answer is AnswerTo<Q> {
  if (question.kind === 'elicitation')
    return 'action' in answer && ['accept', 'decline', 'cancel'].includes(answer.action)
  if (question.kind === 'sampling')
    return 'action' in answer && (answer.action === 'approve' || answer.action === 'decline')
  if (!('decision' in answer)) return false
  const forPlan = answer.decision === 'approve-plan' || answer.decision === 'keep-planning'
  if (question.kind === 'plan') return forPlan
  return (
    !forPlan &&
    (question.kind === 'approval' || answer.decision === 'allow-once' || answer.decision === 'deny')
  )
}

/** Who decided: the person, a saved rule, the approval mode, a before-tool hook, or nobody (no one could be asked). */
export const DecidedBy = Type.Union([
  Type.Literal('person'),
  Type.Literal('rule'),
  Type.Literal('mode'),
  Type.Literal('hook'),
  Type.Literal('nobody'),
])
export type DecidedBy = Static<typeof DecidedBy>

/**
 * What was decided for a call, by whom, under which rule, and when: kept with the call, so a reload
 * (or a look back a week later) shows what was allowed or denied.
 */
export const CallDecision = Type.Object({
  kind: Type.Union([
    Type.Literal('approval'),
    Type.Literal('confirmation'),
    Type.Literal('elicitation'),
    Type.Literal('sampling'),
    Type.Literal('plan'),
  ]),
  outcome: Type.Union([
    Type.Literal('allowed'),
    Type.Literal('denied'),
    /** The call stopped while the question waited. */
    Type.Literal('cancelled'),
    /** A server's form: filled in and sent, or declined. */
    Type.Literal('accepted'),
    Type.Literal('declined'),
  ]),
  by: DecidedBy,
  /** How far a person's allow reaches: this call, this chat, or saved for the project or everywhere. */
  scope: Type.Optional(
    Type.Union([Type.Literal('once'), Type.Literal('chat'), Type.Literal('project'), Type.Literal('global')]),
  ),
  /** The saved rules that decided it, or the rules "Always allow" saved. */
  rules: Type.Optional(Type.Array(Type.String())),
  /** Why the mode or a rule refused, or what the person told the model with a denial. */
  message: Type.Optional(Type.String()),
  /** What was asked, in a line: the call, the change a tool proposed, the server's message. */
  summary: Type.Optional(Type.String()),
  /** The mode an approved plan goes on in. */
  mode: Type.Optional(PlanContinueMode),
  /** The MCP server that asked (a form, a sampling request). */
  server: Type.Optional(Type.String()),
  /** A form's answer in words, as the person read it: `Release name: autumn · Urgent: no`. */
  answer: Type.Optional(Type.String()),
  /**
   * The tokens an approved sampling request used, and their cost at the chat model's price: the
   * chat's, counted in its totals, though no response of it shows them.
   */
  usage: Type.Optional(Usage),
  /** Epoch milliseconds. */
  at: Type.Number(),
  /** How long the person took. */
  waitedMs: Type.Optional(Type.Number()),
})
export type CallDecision = Static<typeof CallDecision>
