/**
 * Plans as every layer sees them: the live checklist the model keeps with `update_plan`, and the
 * plan it proposes in plan mode with `propose_plan`, which the person approves (choosing the mode
 * to go on in) or sends back with feedback.
 */
import { type Static, Type } from '@sinclair/typebox'

export const PLAN_STEP_STATUSES = ['pending', 'in_progress', 'completed'] as const
export const PlanStepStatus = Type.Union(PLAN_STEP_STATUSES.map((status) => Type.Literal(status)))
export type PlanStepStatus = (typeof PLAN_STEP_STATUSES)[number]

/** One step of the live plan: what to do, in a line, and how far it is. */
export const PlanStep = Type.Object(
  {
    step: Type.String({ minLength: 1, maxLength: 500, description: 'The step, in one short line.' }),
    status: PlanStepStatus,
  },
  { additionalProperties: false },
)
export type PlanStep = Static<typeof PlanStep>

/** The whole plan as `update_plan` last set it: every call sends all the steps again. */
export const LivePlan = Type.Object({
  explanation: Type.Optional(Type.String()),
  steps: Type.Array(PlanStep),
})
export type LivePlan = Static<typeof LivePlan>

/** The modes a person may go on in once they approve a plan: any that can change something. */
export const PLAN_CONTINUE_MODES = ['ask', 'accept-edits', 'full-auto'] as const
export const PlanContinueMode = Type.Union(PLAN_CONTINUE_MODES.map((mode) => Type.Literal(mode)))
export type PlanContinueMode = (typeof PLAN_CONTINUE_MODES)[number]

/** Approve (and go on in `mode`), or keep planning, with what the model should reconsider. */
export const PlanAnswer = Type.Union([
  Type.Object(
    { decision: Type.Literal('approve-plan'), mode: PlanContinueMode },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      decision: Type.Literal('keep-planning'),
      feedback: Type.Optional(Type.String({ maxLength: 10_000 })),
    },
    { additionalProperties: false },
  ),
])
export type PlanAnswer = Static<typeof PlanAnswer>

/**
 * The steps a proposed plan's Markdown lists: its list items (`-`, `*`, `1.`, task boxes), each
 * as one line, nested items included. A plan written as prose has none.
 */
export function stepsOfPlan(markdown: string): string[] {
  const steps: string[] = []
  for (const line of markdown.split('\n')) {
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.+?)\s*$/.exec(line)
    if (item?.[1]) steps.push(item[1].slice(0, 500))
  }
  return steps
}

const MARKS: Record<PlanStepStatus, string> = { pending: '[ ]', in_progress: '[>]', completed: '[x]' }

/** The plan as a short checklist: what the model reads back and what `atelier run` prints. */
export function planChecklist(steps: readonly PlanStep[]): string {
  return steps.map(({ step, status }) => `${MARKS[status]} ${step}`).join('\n')
}
