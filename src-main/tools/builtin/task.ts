import { type Static, Type } from '@sinclair/typebox'
import { defineTool } from '../define-tool'
import { ToolError } from '../errors'
import { registerTool } from '../registry'
import type { ToolContext, ToolOutput } from '../types'

export const TASK_TOOL = 'task'

const Parameters = Type.Object(
  {
    description: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'What the subagent is to do, in three to eight words: what the person sees on its card.',
    }),
    prompt: Type.String({
      minLength: 1,
      maxLength: 100_000,
      description:
        'The whole task. The subagent sees nothing of this conversation: say the goal, what you already know, and what its answer should contain.',
    }),
    agent: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The name of the agent profile to run it on, from the list in this tool’s description.',
    }),
  },
  { additionalProperties: false },
)
type Parameters = Static<typeof Parameters>

/**
 * A child turn is bounded by its own limits (iterations, context budget); this only backs them up,
 * well past the 30 seconds that suit a single tool.
 */
const TASK_MAX_RUNTIME_SECONDS = 3600

/** A profile as the model is told of it. */
export interface DelegableProfile {
  name: string
  description: string
}

/** The tool's description for a turn: what it does and the profiles it can run, a line each. */
export function taskDescription(profiles: readonly DelegableProfile[]): string {
  const listed = profiles.map(({ name, description }) => `- ${name}: ${description || 'no description'}`)
  return [
    'Hands a self-contained piece of work to a subagent: a fresh agent with its own context and the profile’s tools (never more than yours), which works on its own and returns only its final answer — so searches and file dumps stay out of your context.',
    'Use it for broad searches, surveys of how something is used, reviews and other work whose details you do not need; call it several times in one response to run tasks in parallel. Do the work yourself when it is a read or two.',
    'The subagent sees none of this conversation: give it everything it needs in `prompt`. Its answer is not shown to the person: say what matters of it yourself.',
    listed.length > 0 ? `Agent profiles:\n${listed.join('\n')}` : 'No agent profile can take tasks now.',
  ].join('\n\n')
}

function subagentsOf(context: ToolContext) {
  if (!context.subagents) {
    throw new ToolError('execution_failed', 'Subagents run only inside an agent turn.')
  }
  return context.subagents
}

async function runTask(task: Parameters, context: ToolContext): Promise<ToolOutput> {
  const subagents = subagentsOf(context)
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(), context.deadline - Date.now())
  try {
    const output = await subagents.run(task, AbortSignal.any([context.signal, deadline.signal]))
    if (deadline.signal.aborted && !context.signal.aborted) {
      throw new ToolError(
        'timeout',
        `The subagent ran past ${TASK_MAX_RUNTIME_SECONDS / 60} minutes and was stopped.`,
      )
    }
    return output
  } finally {
    clearTimeout(timer)
  }
}

export const taskTool = defineTool({
  name: TASK_TOOL,
  description: taskDescription([]),
  parameters: Parameters,
  settings: {
    title: 'Subagents',
    description:
      'Lets the agent hand a piece of work to a subagent on an agent profile (explore, general, your own): a child turn with its own context that returns its answer.',
    category: 'interaction',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  // What a task does is its profile's: each call says (see describe).
  kind: 'other',
  concurrent: true,
  maxRuntimeSeconds: () => TASK_MAX_RUNTIME_SECONDS,
  describe: ({ agent, description }, { subagents }) => ({
    ...(subagents && { kind: subagents.kindOf(agent) }),
    summary: `${agent}: ${description}`,
    locations: [],
  }),
  // It keeps its own deadline, so a stop or a timeout waits while the child turn ends its own calls
  // (their shells killed, their results kept) before the task reports.
  managesOwnTimeout: true,
  execute: runTask,
})

registerTool(taskTool)
