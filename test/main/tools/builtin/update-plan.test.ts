import { describe, expect, it } from 'vitest'
import { useAgentFixture } from '../../../support/agent-harness'
import { toolResults } from '../../../support/turn-events'

const updatePlan = (id: string, steps: [string, string][], explanation?: string) => ({
  id,
  name: 'update_plan',
  arguments: JSON.stringify({
    ...(explanation && { explanation }),
    steps: steps.map(([step, status]) => ({ step, status })),
  }),
})

function toolMessages(body: { messages: { role: string; content: string; tool_call_id?: string }[] }) {
  return body.messages.filter((message) => message.role === 'tool')
}

describe('update_plan', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()

  it('keeps the plan as a checklist the UI shows and the model reads back', async () => {
    const { fake, run } = await fixture()
    fake.enqueue(
      {
        toolCalls: [
          updatePlan(
            'call_plan',
            [
              ['Read the parser', 'completed'],
              ['Fix the bug', 'in_progress'],
              ['Add a test', 'pending'],
            ],
            'The bug is in the parser.',
          ),
        ],
      },
      { text: 'Working on it.' },
    )
    const { events } = await run('fix the parser')

    const [result] = toolResults(events)
    expect(result).toMatchObject({
      isError: false,
      content: 'Plan updated.\n[x] Read the parser\n[>] Fix the bug\n[ ] Add a test',
      display: {
        kind: 'plan',
        explanation: 'The bug is in the parser.',
        steps: [
          { step: 'Read the parser', status: 'completed' },
          { step: 'Fix the bug', status: 'in_progress' },
          { step: 'Add a test', status: 'pending' },
        ],
      },
    })
    expect(result?.call.description?.summary).toBe('Fix the bug')
  })

  it('refuses two steps in progress with a validation error the model reads', async () => {
    const { fake, run } = await fixture()
    fake.enqueue(
      {
        toolCalls: [
          updatePlan('call_two', [
            ['Read the parser', 'in_progress'],
            ['Fix the bug', 'in_progress'],
          ]),
        ],
      },
      { text: 'Let me fix the plan.' },
    )
    const { events } = await run('fix the parser')

    const [result] = toolResults(events)
    expect(result).toMatchObject({ isError: true, errorType: 'validation_failed' })
    expect(result?.display).toBeUndefined()
    const [, second] = fake.requestsOf('openai-chat')
    expect(toolMessages(second?.body)).toEqual([
      expect.objectContaining({
        tool_call_id: 'call_two',
        content:
          'Invalid arguments for update_plan: 2 steps are in_progress ("Read the parser", "Fix the bug"); at most one step may be in_progress at a time — mark the others pending or completed. Fix the arguments and call update_plan again.',
      }),
    ])
  })

  it('is offered with a system prompt that says when to use it', async () => {
    const { fake, run } = await fixture()
    fake.enqueue({ text: 'Hello.' })
    await run('hi')

    const [request] = fake.requestsOf('openai-chat')
    const tools = (request?.body.tools as { function: { name: string } }[] | undefined)?.map(
      (tool) => tool.function.name,
    )
    expect(tools).toContain('update_plan')
    expect(tools).not.toContain('propose_plan')
    expect(request?.body.messages[0].content).toContain('for work of more than a few steps')
  })
})
