import { type Static, Type } from '@sinclair/typebox'
import { type PlanStep, planChecklist, stepsOfPlan } from '../../../src-shared/plans'
import { defineTool } from '../define-tool'
import { registerTool } from '../registry'
import type { AskResult, ToolContext, ToolOutput } from '../types'

const Parameters = Type.Object(
  {
    plan: Type.String({
      minLength: 1,
      maxLength: 50_000,
      description:
        'The plan in Markdown: what you found, then the steps as a numbered list, each a line the person can approve.',
    }),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

/** Said when nobody can approve: the run prints the plan and ends (`atelier run --approval plan`). */
const PLAN_NOT_REVIEWED =
  'Nobody can approve the plan in this run: it was shown to the person as it is. End your turn now; do not call any tool.'

async function proposePlan({ plan }: Parameters, context: ToolContext): Promise<ToolOutput> {
  const steps: PlanStep[] = stepsOfPlan(plan).map((step) => ({ step, status: 'pending' }))
  const proposed = { kind: 'proposed-plan', plan, steps } as const
  const answer: AskResult = context.ask
    ? await context.ask({ kind: 'plan', plan }, context.signal)
    : { decision: 'unanswered', reason: PLAN_NOT_REVIEWED }
  if ('decision' in answer && answer.decision === 'keep-planning') {
    const feedback = answer.feedback?.trim()
    return {
      content: `The person wants you to keep planning${feedback ? `, saying: ${feedback}` : '.'}\nRevise the plan — read more if you need to — and call propose_plan again. Nothing has been changed.`,
      display: proposed,
    }
  }
  // Unanswered: nobody could be asked (a headless run).
  if (!('decision' in answer) || answer.decision !== 'approve-plan') {
    return { content: PLAN_NOT_REVIEWED, display: proposed }
  }
  await context.switchApprovalMode?.(answer.mode)
  const first =
    steps.length > 0
      ? `Its steps are the live plan now:\n${planChecklist(steps)}\nCall update_plan with the first step in_progress, and keep it current as you go.`
      : 'Call update_plan with its steps, the first in_progress, and keep it current as you go.'
  return {
    content: `The person approved the plan. The chat is in ${answer.mode} mode now and its tools are offered: carry out the plan in this turn. ${first}`,
    display: { ...proposed, approvedMode: answer.mode },
  }
}

export const proposePlanTool = defineTool({
  name: 'propose_plan',
  description:
    'Plan mode only: proposes your plan to the person, who approves it (the work then goes on in this turn, with the tools to change things) or tells you what to reconsider. Call it once you have read what the task needs.',
  parameters: Parameters,
  settings: {
    title: 'Propose a plan',
    description: 'In Plan mode, lets the model put its plan to you for approval before it changes anything.',
    category: 'interaction',
    enabledByDefault: true,
    canDisable: false,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  // It changes nothing: approving it is the person's act, and it only switches the chat's mode.
  kind: 'read',
  modes: ['plan'],
  // Its first line, a heading's marks left out: what the plan is about.
  describe: ({ plan }) => ({
    summary: (plan.split('\n').find((line) => line.trim()) ?? '').replace(/^#+\s*/, '').trim(),
    locations: [],
  }),
  execute: proposePlan,
})

registerTool(proposePlanTool)
