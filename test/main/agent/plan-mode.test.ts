import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Asker, AskResult } from '../../../src-main/approvals/askers'
import type { PlanReviewRequest } from '../../../src-shared/questions'
import { useAgentFixture } from '../../support/agent-harness'
import { toolResult, toolResults } from '../../support/turn-events'

const PLAN = '# Plan\n\nThe greeting is missing.\n\n1. Write hello.txt\n2. Say what changed'

const propose = (id: string, plan = PLAN) => ({
  id,
  name: 'propose_plan',
  arguments: JSON.stringify({ plan }),
})
const write = (id: string) => ({
  id,
  name: 'write_file',
  arguments: JSON.stringify({ path: 'hello.txt', content: 'hello\n' }),
})

/** A person who answers each proposed plan with the next scripted answer; any other card is a failure. */
function reviewer(...answers: AskResult[]) {
  const asked: PlanReviewRequest[] = []
  const asker: Asker = {
    ask: async (question) => {
      if (question.kind !== 'plan') throw new Error(`Unexpected ${question.kind} for ${question.tool}`)
      asked.push(question)
      const answer = answers.shift()
      if (!answer) throw new Error('Unexpected plan')
      return answer
    },
  }
  return { asker, asked }
}

type Request = {
  body: { tools?: { function: { name: string } }[]; messages: { role: string; content: string }[] }
}

const offered = (request: Request | undefined) => request?.body.tools?.map((tool) => tool.function.name) ?? []
const toolMessage = (request: Request | undefined) =>
  request?.body.messages.filter((message) => message.role === 'tool').at(-1)?.content

describe('plan mode', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()

  async function inPlanMode() {
    const setup = await fixture()
    setup.atelier.chats.configure({ id: setup.chat.id, approvalMode: 'plan' })
    return setup
  }

  it('offers only reading tools and propose_plan; a scripted write_file is not offered', async () => {
    const { fake, project, run } = await inPlanMode()
    fake.enqueue({ toolCalls: [write('call_w')] }, { text: 'I will plan instead.' })
    const { events } = await run('greet')

    const [first] = fake.requestsOf('openai-chat') as Request[]
    expect(offered(first)).toEqual(expect.arrayContaining(['read_file', 'update_plan', 'propose_plan']))
    expect(offered(first)).not.toContain('write_file')
    expect(offered(first)).not.toContain('bash')
    expect(first?.body.messages[0]?.content).toContain('Approvals (plan mode)')
    expect(toolResult(events, 'call_w')).toMatchObject({ isError: true, errorType: 'not_offered' })
    expect(existsSync(join(project, 'hello.txt'))).toBe(false)
  })

  it('asks with the plan; Approve in accept-edits switches the chat and the same turn writes the file', async () => {
    const { atelier, chat, fake, project, run } = await inPlanMode()
    fake.enqueue(
      { toolCalls: [propose('call_plan')] },
      { toolCalls: [write('call_w')] },
      { text: 'Wrote hello.txt.' },
    )
    const { asker, asked } = reviewer({ decision: 'approve-plan', mode: 'accept-edits' })
    const { turn, events } = await run('greet', { asker })

    expect(asked).toEqual([expect.objectContaining({ kind: 'plan', tool: 'propose_plan', plan: PLAN })])
    expect(turn.status).toBe('completed')
    expect(readFileSync(join(project, 'hello.txt'), 'utf8')).toBe('hello\n')
    expect(atelier.chats.get(chat.id).approvalMode).toBe('accept-edits')
    const proposed = toolResult(events, 'call_plan')
    expect(proposed?.display).toEqual({
      kind: 'proposed-plan',
      plan: PLAN,
      steps: [
        { step: 'Write hello.txt', status: 'pending' },
        { step: 'Say what changed', status: 'pending' },
      ],
      approvedMode: 'accept-edits',
    })
    expect(proposed?.call.decisions.at(-1)).toMatchObject({
      kind: 'plan',
      outcome: 'allowed',
      by: 'person',
      mode: 'accept-edits',
    })
    const [, afterApproval] = fake.requestsOf('openai-chat') as Request[]
    expect(offered(afterApproval)).toContain('write_file')
    expect(offered(afterApproval)).not.toContain('propose_plan')
    expect(afterApproval?.body.messages[0]?.content).toContain('Approvals (accept-edits mode)')
    expect(toolMessage(afterApproval)).toContain('[ ] Write hello.txt\n[ ] Say what changed')
    expect(toolResult(events, 'call_w')).toMatchObject({ isError: false })
  })

  it('sends the feedback of Keep planning to the model, and nothing changes', async () => {
    const { atelier, chat, fake, project, run } = await inPlanMode()
    fake.enqueue(
      { toolCalls: [propose('call_plan')] },
      { toolCalls: [write('call_w')] },
      { text: 'I will revise it.' },
    )
    const { asker } = reviewer({ decision: 'keep-planning', feedback: 'Use greeting.txt instead.' })
    const { events } = await run('greet', { asker })

    const [, second] = fake.requestsOf('openai-chat') as Request[]
    expect(toolMessage(second)).toContain(
      'The person wants you to keep planning, saying: Use greeting.txt instead.',
    )
    expect(toolResult(events, 'call_plan')?.call.decisions.at(-1)).toMatchObject({
      kind: 'plan',
      outcome: 'denied',
      message: 'Use greeting.txt instead.',
    })
    expect(atelier.chats.get(chat.id).approvalMode).toBe('plan')
    expect(toolResult(events, 'call_w')).toMatchObject({ errorType: 'not_offered' })
    expect(existsSync(join(project, 'hello.txt'))).toBe(false)
    expect(toolResults(events)).toHaveLength(2)
  })

  it('runs reading tools in plan mode', async () => {
    const { fake, project, run } = await inPlanMode()
    writeFileSync(join(project, 'notes.md'), 'remember\n')
    fake.enqueue(
      { toolCalls: [{ id: 'call_r', name: 'read_file', arguments: JSON.stringify({ path: 'notes.md' }) }] },
      { text: 'Read it.' },
    )
    const { events } = await run('read the notes')
    expect(toolResult(events, 'call_r')).toMatchObject({ isError: false })
  })
})
