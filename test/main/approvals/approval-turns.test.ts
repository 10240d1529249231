import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { nobodyToAsk } from '../../../src-main/approvals/askers'
import type { TurnEvent } from '../../../src-shared/agent'
import { useAgentFixture } from '../../support/agent-harness'
import { person } from '../../support/scripted-person'
import { turnSandboxOff } from '../../support/tool-harness'
import { toolResults } from '../../support/turn-events'

const write = (id: string, path: string, content: string) => ({
  id,
  name: 'write_file',
  arguments: JSON.stringify({ path, content }),
})

function toolMessages(body: { messages: { role: string; content: string; tool_call_id?: string }[] }) {
  return body.messages.filter((message) => message.role === 'tool')
}

describe('approvals in a turn', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()

  async function inMode(mode: 'ask' | 'accept-edits' | 'full-auto' = 'ask') {
    const setup = await fixture()
    setup.atelier.chats.configure({ id: setup.chat.id, approvalMode: mode })
    return setup
  }

  it('refuses an edit nobody can approve: the file is untouched and the model reads why', async () => {
    const { fake, project, run } = await inMode('ask')
    writeFileSync(join(project, 'keep.txt'), 'original\n')
    fake.enqueue({ toolCalls: [write('call_w', 'new.txt', 'x')] }, { text: 'Understood.' })
    const { events } = await run('write it', { asker: nobodyToAsk })

    expect(existsSync(join(project, 'new.txt'))).toBe(false)
    const [result] = toolResults(events)
    expect(result).toMatchObject({
      isError: true,
      errorType: 'denied',
      content: 'The user has not approved this call (non-interactive run).',
    })
    const [, second] = fake.requestsOf('openai-chat')
    expect(toolMessages(second?.body)).toEqual([
      expect.objectContaining({ tool_call_id: 'call_w', content: expect.stringContaining('not approved') }),
    ])
  })

  it('shows the diff that would be written, writes on Allow once, and passes on a denial with its message', async () => {
    const { fake, project, run } = await inMode('ask')
    fake.enqueue(
      { toolCalls: [write('call_1', 'a.txt', 'first\n')] },
      { toolCalls: [write('call_2', 'b.txt', 'second\n')] },
      { text: 'Done.' },
    )
    const { asker, asked } = person(
      () => ({ decision: 'allow-once' }),
      () => ({ decision: 'deny', message: 'Not b.txt, please.' }),
    )
    const { events } = await run('write two files', { asker })

    expect(readFileSync(join(project, 'a.txt'), 'utf8')).toBe('first\n')
    expect(existsSync(join(project, 'b.txt'))).toBe(false)
    expect(asked[0]).toMatchObject({
      tool: 'write_file',
      callId: 'call_1',
      description: { kind: 'edit', summary: 'a.txt', locations: [join(project, 'a.txt')] },
      reasons: ['Edits ask in Ask mode.'],
      preview: { kind: 'diff', path: 'a.txt', patch: expect.stringContaining('+first') },
      suggestedRules: ['write_file(a.txt)'],
      folder: project,
    })
    const [allowed, denied] = toolResults(events)
    expect(denied).toMatchObject({
      errorType: 'denied',
      content: 'The user denied this call, saying: Not b.txt, please.',
    })
    // What was decided stays with each call: who, how far it reaches, what was said.
    expect(allowed?.call).toMatchObject({
      status: 'succeeded',
      decisions: [{ kind: 'approval', outcome: 'allowed', by: 'person', scope: 'once' }],
    })
    expect(denied?.call).toMatchObject({
      status: 'failed',
      errorType: 'denied',
      decisions: [{ kind: 'approval', outcome: 'denied', by: 'person', message: 'Not b.txt, please.' }],
    })
  })

  it('stops asking for a tool in a chat after Allow for this chat, and only in that chat', async () => {
    const { atelier, fake, project, run, chat } = await inMode('ask')
    fake.enqueue(
      { toolCalls: [write('call_1', 'a.txt', '1'), write('call_2', 'b.txt', '2')] },
      { toolCalls: [write('call_3', 'c.txt', '3')] },
      { text: 'Done.' },
    )
    const { asker, asked } = person(() => ({ decision: 'allow-chat' }))
    await run('write three files', { asker })

    // Two calls of one response are decided in call order: answering the first settles the second.
    expect(asked.map((request) => request.callId)).toEqual(['call_1'])
    for (const name of ['a.txt', 'b.txt', 'c.txt']) expect(existsSync(join(project, name))).toBe(true)
    expect(atelier.approvals.list()).toEqual([
      expect.objectContaining({
        rule: 'write_file',
        action: 'allow',
        scope: 'chat',
        chatId: chat.id,
        source: 'approval',
      }),
    ])

    const other = atelier.chats.configure({
      id: atelier.chats.create({}).id,
      workingDir: project,
      mode: 'agent',
      provider: chat.provider,
      approvalMode: 'ask',
    })
    fake.enqueue({ toolCalls: [write('call_4', 'd.txt', '4')] }, { text: 'Done.' })
    const second = person(() => ({ decision: 'deny' }))
    const { done } = atelier.agent.begin({ chatId: other.id, prompt: 'and one more', asker: second.asker })
    await done
    expect(second.asked.map((request) => request.callId)).toEqual(['call_4'])
    expect(existsSync(join(project, 'd.txt'))).toBe(false)
  })

  it('saves the shown rule on Always allow: npm run test stops asking, npm run build still asks', async () => {
    const { atelier, fake, project, run } = await inMode('ask')
    atelier.tools.settings.update('local', 'bash', { enabled: true })
    // Sandboxed, a command no rule denies runs unasked: this is how the policy alone asks.
    turnSandboxOff(atelier)
    const bash = (id: string, command: string) => ({
      id,
      name: 'bash',
      arguments: JSON.stringify({ command }),
    })
    fake.enqueue(
      { toolCalls: [bash('call_1', 'npm run test')] },
      { toolCalls: [bash('call_2', 'npm run test')] },
      { toolCalls: [bash('call_3', 'npm run build')] },
      { text: 'Done.' },
    )
    const { asker, asked } = person(
      (request) => ({ decision: 'always', rules: request.suggestedRules, scope: 'project' }),
      () => ({ decision: 'deny' }),
    )
    await run('test and build', { asker })

    expect(asked.map((request) => request.callId)).toEqual(['call_1', 'call_3'])
    expect(asked[0]?.commands).toEqual([
      { text: 'npm run test', verdict: 'ask', reasons: ['Commands ask in Ask mode.'] },
    ])
    expect(atelier.approvals.list()).toEqual([
      expect.objectContaining({
        // npm has options that run code (--script-shell, --node-options): only the exact command is saved.
        rule: 'bash(npm run test)',
        scope: 'project',
        folder: project,
        lastUsedAt: expect.any(Number),
      }),
    ])
  })

  it('ends the wait on Stop: the turn stops and nothing is written', async () => {
    const { atelier, fake, project, chat } = await inMode('ask')
    fake.enqueue({ toolCalls: [write('call_w', 'never.txt', 'x')] }, { text: 'unreachable' })
    const events: TurnEvent[] = []
    const { done } = atelier.agent.begin({
      chatId: chat.id,
      prompt: 'write it',
      onEvent: (event) => {
        events.push(event)
        if (event.type === 'tool_call' && event.call.status === 'awaiting_approval') {
          // A page loading now sees the question with its call.
          const [waiting] = atelier.agent.view({ id: chat.id }).calls
          expect(waiting?.question).toEqual(event.call.question)
          atelier.agent.stop({ chatId: chat.id })
        }
      },
    })
    const turn = await done

    expect(turn.status).toBe('stopped')
    expect(existsSync(join(project, 'never.txt'))).toBe(false)
    const [call] = atelier.agent.view({ id: chat.id }).calls
    expect(call).toMatchObject({
      status: 'cancelled',
      decisions: [{ kind: 'approval', outcome: 'cancelled' }],
    })
    expect(call?.question).toBeUndefined()
    expect(fake.requestsOf('openai-chat')).toHaveLength(1)
  })

  it('answers cards through the contract, as the app does', async () => {
    const { atelier, fake, project, chat } = await inMode('ask')
    fake.enqueue({ toolCalls: [write('call_w', 'via-contract.txt', 'ok')] }, { text: 'Written.' })
    const { done } = atelier.agent.begin({
      chatId: chat.id,
      prompt: 'write it',
      onEvent: (event) => {
        if (event.type !== 'tool_call' || !event.call.question) return
        const answer = { chatId: chat.id, questionId: event.call.question.id }
        void atelier
          .dispatch('calls.answer', {
            ...answer,
            answer: { decision: 'always', rules: ['write_file(*.txt'], scope: 'project' },
          })
          .then((refused) => {
            expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_rule' } })
            return atelier.dispatch('calls.answer', { ...answer, answer: { decision: 'allow-once' } })
          })
          .then((accepted) => expect(accepted).toEqual({ ok: true, value: { answered: true } }))
      },
    })
    expect((await done).status).toBe('completed')
    expect(readFileSync(join(project, 'via-contract.txt'), 'utf8')).toBe('ok')
  })

  it('offers only reading tools in read-only mode, and tells the model its mode', async () => {
    const { atelier, fake, run, chat } = await inMode('ask')
    atelier.chats.configure({ id: chat.id, approvalMode: 'read-only' })
    fake.enqueue({ text: 'Looked only.' })
    await run('look')
    const [request] = fake.requestsOf('openai-chat')
    const offered = request?.body.tools.map((tool: { function: { name: string } }) => tool.function.name)
    expect(offered).toContain('read_file')
    expect(offered).not.toContain('write_file')
    expect(offered).not.toContain('edit_file')
    expect(request?.body.messages[0].content).toContain('Approvals (read-only mode)')
  })
})
