import { type Static, Type } from '@sinclair/typebox'
import { PlanStep, planChecklist } from '../../../src-shared/plans'
import { defineTool } from '../define-tool'
import { ToolArgumentError } from '../errors'
import { registerTool } from '../registry'
import type { ToolOutput } from '../types'

const Parameters = Type.Object(
  {
    explanation: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'Why the plan is as it is, or what changed, in a sentence.',
      }),
    ),
    steps: Type.Array(PlanStep, {
      minItems: 1,
      maxItems: 50,
      description: 'Every step of the plan, in order, each time: the list replaces the one before.',
    }),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

function updatePlan({ explanation, steps }: Parameters): ToolOutput {
  const inProgress = steps.filter((step) => step.status === 'in_progress')
  if (inProgress.length > 1) {
    // The checklist marks one step as the current one: two would leave the person guessing.
    throw new ToolArgumentError(
      `${inProgress.length} steps are in_progress (${inProgress.map(({ step }) => `"${step}"`).join(', ')}); at most one step may be in_progress at a time — mark the others pending or completed`,
      'steps',
    )
  }
  return {
    content: `Plan updated.\n${planChecklist(steps)}`,
    display: { kind: 'plan', ...(explanation && { explanation }), steps },
  }
}

export const updatePlanTool = defineTool({
  name: 'update_plan',
  description:
    'Keeps the plan the person sees as a checklist while you work. Call it for work of more than a few steps: first with every step pending (or the first in_progress), then each time a step starts or ends. Send all the steps every time; at most one may be in_progress.',
  parameters: Parameters,
  settings: {
    title: 'Plan',
    description: 'Lets the model keep a live checklist of its plan, shown above the composer.',
    category: 'interaction',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  // It changes nothing but what the person is shown.
  kind: 'read',
  describe: ({ steps }) => ({
    summary: steps.find((step) => step.status === 'in_progress')?.step ?? `${steps.length} steps`,
    locations: [],
  }),
  execute: async (args) => updatePlan(args),
})

registerTool(updatePlanTool)
