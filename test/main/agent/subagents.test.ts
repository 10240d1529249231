/**
 * Subagents against the fake provider on real SQLite and real temp folders: the parent's requests
 * and each child's are scripted apart by what they carry (`whenRequestHas`), so children running
 * side by side each get their own answers.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import { createAtelier, LOCAL_USER } from '../../../src-main/app/create-atelier'
import { type Asker, nobodyToAsk } from '../../../src-main/approvals/askers'
import { FatalToolError } from '../../../src-main/tools/errors'
import type { SubagentEvent, TurnEvent } from '../../../src-shared/agent'
import type { Question } from '../../../src-shared/questions'
import type { ToolCallState } from '../../../src-shared/tool-calls'
import { FAKE_ENV, useAgentFixture } from '../../support/agent-harness'
import { waitFor } from '../../support/custom-tools'
import { descendantProcesses } from '../../support/descendants'
import type { ScriptedResponse } from '../../support/fake-provider'
import { useTempDirs } from '../../support/temp-dir'
import { plainTool } from '../../support/test-tools'
import { toolResult } from '../../support/turn-events'

const PARENT = 'PARENT-PROMPT'

const task = (id: string, agent: string, prompt: string, description = `${agent} work`) => ({
  id,
  name: 'task',
  arguments: JSON.stringify({ description, prompt, agent }),
})

/** A script for the requests that carry `marker`: the parent's (its prompt), or one child's (its prompt). */
const to = (marker: string, response: ScriptedResponse): ScriptedResponse => ({
  ...response,
  whenRequestHas: marker,
})

/**
 * The parent hands one task to `agent`; its child asks to write a file, then answers; the parent
 * answers. `description` is the task's.
 */
function scriptChildWrite(agent: string, description = `${agent} work`): ScriptedResponse[] {
  return [
    to(PARENT, { toolCalls: [task('call_1', agent, 'CHILD-A: write a file', description)] }),
    to('CHILD-A', {
      toolCalls: [
        { id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'x.txt', content: 'x' }) },
      ],
    }),
    to('CHILD-A', { text: 'The write did not happen.' }),
    to(PARENT, { text: 'Done.' }),
  ]
}

/** What the children streamed, unwrapped, with the call they ran for. */
function childEvents(events: readonly TurnEvent[]): SubagentEvent[] {
  return events.filter((event): event is SubagentEvent => event.type === 'subagent')
}

/** The last state of each call the children made, by name. */
function childCalls(events: readonly TurnEvent[], parentCallId?: string): ToolCallState[] {
  const calls = new Map<string, ToolCallState>()
  for (const { event, parentCallId: parent } of childEvents(events)) {
    if (event.type === 'tool_call' && (parentCallId === undefined || parent === parentCallId)) {
      calls.set(`${event.call.chatId} ${event.call.id}`, event.call)
    }
  }
  return [...calls.values()]
}

const explode = plainTool({
  name: 'explode',
  description: 'Fails in a way no retry fixes.',
  parameters: Type.Object({}),
  kind: 'read',
  execute: async () => {
    throw new FatalToolError('the disk is on fire')
  },
})

describe('subagents', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()
  const tempDir = useTempDirs()

  it('runs two tasks of one response side by side, each from its own prompt; the parent reads both answers', async () => {
    const agent = await fixture()
    agent.fake.enqueue(
      to(PARENT, {
        toolCalls: [
          task('call_explore', 'explore', 'CHILD-A: where is the config read?', 'Find the config'),
          task('call_general', 'general', 'CHILD-B: summarize the readme'),
        ],
      }),
      to('CHILD-A', { text: 'ANSWER-A: config.ts:12', delayMs: 150 }),
      to('CHILD-B', { text: 'ANSWER-B: a readme', delayMs: 150 }),
      to(PARENT, { text: 'Both are done.' }),
    )
    const { turn, events } = await agent.run(`${PARENT} delegate two things`)
    expect(turn.status).toBe('completed')

    const bodies = agent.fake.requestsOf('openai-chat').map((request) => JSON.stringify(request.body))
    const firstOf = (marker: string) => bodies.find((body) => body.includes(marker)) ?? ''
    for (const marker of ['CHILD-A', 'CHILD-B']) {
      expect(firstOf(marker)).not.toContain(PARENT)
      expect(firstOf(marker)).not.toContain("You are Atelier's agent")
    }
    expect(firstOf('CHILD-A')).toContain('You are a subagent exploring a project')
    const last = bodies.at(-1) ?? ''
    expect(last).toContain('ANSWER-A: config.ts:12')
    expect(last).toContain('ANSWER-B: a readme')

    // Both children's turns overlapped: the slower bounds the wall time, not the sum.
    const children = childEvents(events)
    const started = (id: string) =>
      children.findIndex((e) => e.parentCallId === id && e.event.type === 'turn_started')
    const ended = (id: string) =>
      children.findIndex((e) => e.parentCallId === id && e.event.type === 'turn_completed')
    expect(started('call_general')).toBeLessThan(ended('call_explore'))
    expect(started('call_explore')).toBeLessThan(ended('call_general'))
    const explore = toolResult(events, 'call_explore')
    const general = toolResult(events, 'call_general')
    expect(explore?.content).toBe('ANSWER-A: config.ts:12')
    expect(explore?.call.description?.kind).toBe('read')
    expect(general?.call.description?.kind).toBe('other')
    const [a = 0, b = 0] = [explore?.durationMs, general?.durationMs]
    const span =
      Math.max(explore?.call.endedAt ?? 0, general?.call.endedAt ?? 0) -
      Math.min(explore?.call.startedAt ?? 0, general?.call.startedAt ?? 0)
    expect(span).toBeLessThan(a + b)
    expect(explore?.display).toMatchObject({
      kind: 'subagent',
      agent: 'explore',
      description: 'Find the config',
      status: 'completed',
      answer: 'ANSWER-A: config.ts:12',
    })
  })

  it('offers a child only its profile’s tools among the parent’s: explore cannot write', async () => {
    const agent = await fixture()
    agent.fake.enqueue(...scriptChildWrite('explore'))
    const { events } = await agent.run(`${PARENT} go`)
    const [write] = childCalls(events, 'call_1')
    expect(write?.result).toMatchObject({ isError: true, errorType: 'not_offered' })
    const childRequest = agent.fake
      .requestsOf('openai-chat')
      .find((request) => JSON.stringify(request.body).includes('CHILD-A'))
    const offered = (childRequest?.body.tools ?? []).map(
      (tool: { function: { name: string } }) => tool.function.name,
    )
    expect(offered.sort()).toEqual(['glob', 'grep', 'list_directory', 'read_file'])
  })

  it('refuses a task at depth 2 by default', async () => {
    const agent = await fixture()
    agent.fake.enqueue(
      to(PARENT, { toolCalls: [task('call_1', 'general', 'CHILD-A: delegate again')] }),
      to('CHILD-A', { toolCalls: [task('call_2', 'explore', 'GRANDCHILD: look')] }),
      to('CHILD-A', { text: 'No deeper.' }),
      to(PARENT, { text: 'Done.' }),
    )
    const { events } = await agent.run(`${PARENT} go`)
    const [nested] = childCalls(events, 'call_1')
    expect(nested).toMatchObject({ name: 'task', result: { isError: true, errorType: 'not_offered' } })
    const bodies = agent.fake.requestsOf('openai-chat').map((request) => JSON.stringify(request.body))
    expect(bodies.some((body) => body.includes('GRANDCHILD') && !body.includes('CHILD-A'))).toBe(false)
  })

  it('lets a child delegate once more when the setting allows depth 2, and no deeper', async () => {
    const agent = await fixture()
    agent.atelier.preferences.update({ subagentDepth: 2 })
    agent.fake.enqueue(
      to(PARENT, { toolCalls: [task('call_1', 'general', 'CHILD-A: delegate again')] }),
      to('CHILD-A', { toolCalls: [task('call_2', 'general', 'GRANDCHILD: go deeper')] }),
      to('GRANDCHILD', { toolCalls: [task('call_3', 'explore', 'GREAT-GRANDCHILD: look')] }),
      to('GRANDCHILD', { text: 'ANSWER-G: as deep as it goes.' }),
      to('CHILD-A', { text: 'ANSWER-A: done.' }),
      to(PARENT, { text: 'Done.' }),
    )
    const { events } = await agent.run(`${PARENT} go`)
    const calls = childCalls(events)
    expect(calls.find((call) => call.id === 'call_2')?.result?.content).toBe('ANSWER-G: as deep as it goes.')
    expect(calls.find((call) => call.id === 'call_3')?.result).toMatchObject({ errorType: 'not_offered' })
    // The grandchild's events reach the parent as they came: under the child's call.
    expect(childEvents(events).some((event) => event.parentCallId === 'call_2')).toBe(true)
  })

  it('puts a child’s approval in the parent chat’s line, labelled; a denial reaches the child', async () => {
    const agent = await fixture()
    agent.atelier.chats.configure({ id: agent.chat.id, approvalMode: 'ask' })
    agent.atelier.approvals.add({ rule: 'task', action: 'allow', scope: 'global' })
    const asked: Question[] = []
    const asker: Asker = {
      ask: (question, signal) => {
        asked.push(question)
        return agent.atelier.questions.ask(question, signal)
      },
    }
    agent.fake.enqueue(...scriptChildWrite('general', 'Write the note'))
    const running = agent.run(`${PARENT} go`, {
      asker,
      onEvent: (event) => {
        const question = event.type === 'tool_call' ? event.call.question : undefined
        if (question) {
          agent.atelier.questions.answer({
            chatId: agent.chat.id,
            questionId: question.id,
            answer: { decision: 'deny', message: 'Not now.' },
          })
        }
      },
    })
    const { events } = await running
    expect(asked).toMatchObject([
      {
        kind: 'approval',
        chatId: agent.chat.id,
        tool: 'write_file',
        subagent: { agent: 'general', description: 'Write the note' },
      },
    ])
    const [write] = childCalls(events, 'call_1')
    expect(write?.result).toMatchObject({ isError: true, errorType: 'denied' })
    expect(write?.result?.content).toContain('Not now.')
  })

  it('denies a child’s approval where nobody can be asked (headless)', async () => {
    const agent = await fixture()
    agent.atelier.chats.configure({ id: agent.chat.id, approvalMode: 'ask' })
    agent.atelier.approvals.add({ rule: 'task', action: 'allow', scope: 'global' })
    agent.fake.enqueue(...scriptChildWrite('general'))
    const { events } = await agent.run(`${PARENT} go`, { asker: nobodyToAsk })
    const [write] = childCalls(events, 'call_1')
    expect(write?.result).toMatchObject({ isError: true, errorType: 'denied' })
  })

  it('stops every child and their shells when the parent is stopped', async () => {
    const agent = await fixture()
    agent.atelier.tools.settings.update(LOCAL_USER, 'bash', { enabled: true })
    const marker = `subagent-stop-${process.pid}-${Date.now()}`
    const shell = (id: string) => ({
      id,
      name: 'bash',
      arguments: JSON.stringify({ command: `: ${marker}; sleep 30` }),
    })
    agent.fake.enqueue(
      to(PARENT, {
        toolCalls: [task('call_1', 'general', 'CHILD-A: wait'), task('call_2', 'general', 'CHILD-B: wait')],
      }),
      to('CHILD-A', { toolCalls: [shell('s1')] }),
      to('CHILD-B', { toolCalls: [shell('s2')] }),
    )
    const events: TurnEvent[] = []
    const { done } = agent.atelier.agent.begin({
      chatId: agent.chat.id,
      prompt: `${PARENT} go`,
      onEvent: (event) => events.push(event),
    })
    await waitFor(
      () => childCalls(events).filter((call) => call.status === 'executing').length === 2,
      'both children’s shells to run',
    )
    await waitFor(() => descendantProcesses((args) => args.includes(marker)).length >= 2, 'both shell trees')
    agent.atelier.agent.stop({ chatId: agent.chat.id })
    const turn = await done
    expect(turn.status).toBe('stopped')
    const ends = childEvents(events).flatMap(({ event }) =>
      event.type === 'turn_completed' ? [event.status] : [],
    )
    expect(ends).toEqual(['stopped', 'stopped'])
    await waitFor(
      () => descendantProcesses((args) => args.includes(marker)).length === 0,
      'the shell trees to be gone',
      5_000,
    )
  })

  it('ends only the child on a FatalToolError: the parent reads a failed task and goes on', async () => {
    const agent = await fixture('openai-chat', [explode])
    agent.fake.enqueue(
      to(PARENT, { toolCalls: [task('call_1', 'general', 'CHILD-A: explode')] }),
      to('CHILD-A', { toolCalls: [{ id: 'e1', name: 'explode', arguments: '{}' }] }),
      to(PARENT, { text: 'The task failed; I will do it myself.' }),
    )
    const { turn, events } = await agent.run(`${PARENT} go`)
    expect(turn.status).toBe('completed')
    const failed = toolResult(events, 'call_1')
    expect(failed).toMatchObject({ isError: true, errorType: 'execution_failed' })
    expect(failed?.content).toMatch(/The subagent \(general\) failed: explode failed/)
    expect(failed?.display).toMatchObject({ kind: 'subagent', status: 'failed' })
  })

  it('compacts a child whose context overflows, and it still answers', async () => {
    const agent = await fixture()
    writeFileSync(join(agent.project, 'big.txt'), 'line of the big file\n'.repeat(400))
    agent.fake.enqueue(
      to(PARENT, { toolCalls: [task('call_1', 'explore', 'CHILD-A: read the big file')] }),
      to('CHILD-A', {
        toolCalls: [{ id: 'r1', name: 'read_file', arguments: JSON.stringify({ path: 'big.txt' }) }],
      }),
      to('CHILD-A', { contextOverflow: { limitTokens: 2_000 } }),
      to('CHILD-A', { text: 'ANSWER-A: it is big.' }),
      to(PARENT, { text: 'Done.' }),
    )
    const { events } = await agent.run(`${PARENT} go`)
    const kinds = childEvents(events).map(({ event }) => event.type)
    expect(kinds).toContain('compaction_completed')
    expect(toolResult(events, 'call_1')?.content).toBe('ANSWER-A: it is big.')
  })

  it('keeps the child’s transcript through a restart, hidden from the chat list, opened by its id, deleted with its parent', async () => {
    const dataDir = tempDir()
    const agent = await fixture('openai-chat', [], { dataDir })
    agent.fake.enqueue(
      to(PARENT, { toolCalls: [task('call_1', 'explore', 'CHILD-A: look around')] }),
      to('CHILD-A', { text: 'ANSWER-A: all fine.' }),
      to(PARENT, { text: 'Done.' }),
    )
    const { events } = await agent.run(`${PARENT} go`)
    const display = toolResult(events, 'call_1')?.display
    if (display?.kind !== 'subagent') throw new Error('the task has no subagent display')
    await agent.atelier.close()

    const reopened = createAtelier({ dataDir, env: FAKE_ENV })
    try {
      expect(reopened.chats.list().map((chat) => chat.id)).toEqual([agent.chat.id])
      expect(reopened.chats.get(display.chatId)).toMatchObject({
        parentChatId: agent.chat.id,
        parentCallId: 'call_1',
        workingDir: agent.project,
      })
      const { messages, calls } = reopened.agent.view({ id: display.chatId })
      const texts = messages.flatMap((message) =>
        message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])),
      )
      expect(texts).toEqual(['CHILD-A: look around', 'ANSWER-A: all fine.'])
      const parentCall = reopened.agent.view({ id: agent.chat.id }).calls.find((call) => call.id === 'call_1')
      expect(parentCall?.result?.display).toMatchObject({ kind: 'subagent', chatId: display.chatId })
      expect(calls).toEqual([])
      // It goes with its parent.
      reopened.chats.delete({ id: agent.chat.id })
      expect(() => reopened.chats.get(display.chatId)).toThrow(/No chat/)
    } finally {
      await reopened.close()
    }
  })
})
