/**
 * MCP sampling through the app's real path: a real SDK server whose tool asks the client's model for
 * a completion during the call (`sampling/createMessage`), a turn scripted by the fake provider, the
 * request shown as a question on the call's card and answered through the contract (`calls.answer`)
 * as the chat view does; and the built CLI answering as `--elicitation` says.
 */
import { realpathSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { conversationUsage } from '../../../../src-renderer/src/components/chat/conversation'
import type { TurnEvent } from '../../../../src-shared/agent'
import { costOf } from '../../../../src-shared/prices'
import { approvedAsAsked, type SamplingAnswer, type SamplingRequest } from '../../../../src-shared/sampling'
import { DEFAULTS, SAMPLING_REQUEST } from '../../../fixtures/elicitation-mcp-server'
import { useAgentFixture } from '../../../support/agent-harness'
import { type FakeProvider, startFakeProvider } from '../../../support/fake-provider'
import { useProbeServers } from '../../../support/probe-servers'
import { useTempDirs } from '../../../support/temp-dir'
import { toolResults } from '../../../support/turn-events'
import { atelier as cli, fakeRunArgs } from '../../cli/built-cli'

const TOOL = 'probe__ask_model'
const MESSAGES = [
  { role: 'user', text: 'Name the next release after a season.' },
  { role: 'assistant', text: 'Which season?' },
  { role: 'user', text: 'The one after spring.' },
]
/** What the fake model answers the sampling request with, and the tokens it says it took. */
const SAMPLED = {
  text: 'Summer',
  usage: { inputTokens: 31, outputTokens: 2 },
  whenRequestHas: 'The one after spring.',
}

describe('MCP sampling', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()
  const tempDir = useTempDirs()
  const cleanups: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  const { start: withServer, add, dataDirWith } = useProbeServers()

  /** A chat whose model calls `ask_model` once (whose request the model answers), then answers in text. */
  async function setup() {
    const server = await withServer()
    const agent = await fixture()
    await add(agent.atelier, server)
    agent.fake.enqueue({ toolCalls: [{ id: 'call_1', name: TOOL, arguments: '{}' }] }, SAMPLED, {
      text: 'Done.',
    })
    /** Runs the turn; each card is answered with what `onCard` says, through the contract. */
    const run = (onCard: (request: SamplingRequest) => SamplingAnswer) => {
      const shown = new Set<string>()
      return agent.run('name the release', {
        onEvent: (event) => {
          const question = event.type === 'tool_call' ? event.call.question : undefined
          if (question?.kind !== 'sampling' || shown.has(question.id)) return
          shown.add(question.id)
          void agent.atelier.dispatch('calls.answer', {
            chatId: agent.chat.id,
            questionId: question.id,
            answer: onCard(question),
          })
        },
      })
    }
    return { ...agent, server, run }
  }

  const decisionsOf = (events: TurnEvent[]) =>
    toolResults(events)[0]?.call.decisions.filter(({ kind }) => kind === 'sampling') ?? []
  /** The requests that reached the model on the server's behalf. */
  const sampledRequests = (fake: FakeProvider) =>
    fake.requestsOf('openai-chat').filter((request) => JSON.stringify(request.body).includes('Which season?'))

  it("shows the server's request on the call's card, and sends it as the person edited it to the chat's model", async () => {
    const { fake, server, run, chat } = await setup()
    const { turn, events } = await run((request) => ({
      action: 'approve',
      messages: request.messages,
      systemPrompt: 'You name releases after seasons. One word, capitalized.',
      maxTokens: 12,
    }))

    expect(turn.status).toBe('completed')
    const asked = events.find((event) => event.type === 'tool_call' && event.call.question)
    expect(asked?.type === 'tool_call' && asked.call.question).toMatchObject({
      kind: 'sampling',
      chatId: chat.id,
      callId: 'call_1',
      tool: TOOL,
      server: 'probe',
      messages: MESSAGES,
      systemPrompt: SAMPLING_REQUEST.systemPrompt,
      maxTokens: SAMPLING_REQUEST.maxTokens,
    })
    const [sent] = sampledRequests(fake)
    expect(sent?.body.model).toBe('fake-model')
    expect(sent?.body.tools).toBeUndefined()
    expect(sent?.body.messages).toEqual([
      { role: 'system', content: 'You name releases after seasons. One word, capitalized.' },
      { role: 'user', content: 'Name the next release after a season.' },
      { role: 'assistant', content: 'Which season?' },
      { role: 'user', content: 'The one after spring.' },
    ])
    expect(sent?.body.max_completion_tokens ?? sent?.body.max_tokens).toBe(12)
    expect(server.samples).toEqual([
      {
        role: 'assistant',
        content: { type: 'text', text: 'Summer' },
        model: 'fake-model',
        stopReason: 'endTurn',
      },
    ])
    // The completion's tokens are the chat's: kept with the call's decision.
    expect(decisionsOf(events)).toEqual([
      expect.objectContaining({
        outcome: 'allowed',
        by: 'person',
        server: 'probe',
        summary: 'The one after spring.',
        usage: expect.objectContaining(SAMPLED.usage),
      }),
    ])
  })

  it("counts an approved request's completion in the chat's usage, costed at the chat model's price", async () => {
    const { atelier, chat, run } = await setup()
    const price = { input: 2, cachedInput: 0.5, output: 8 }
    atelier.prices.set({ providerId: atelier.chats.get(chat.id).provider ?? '', model: 'fake-model', price })
    const { turn, events } = await run(approvedAsAsked)

    expect(turn.status).toBe('completed')
    const cost = costOf(SAMPLED.usage, price)
    const [decision] = decisionsOf(events)
    expect(decision?.usage).toMatchObject(SAMPLED.usage)
    expect(decision?.usage?.costUsd).toBeCloseTo(cost, 12)
    // The chat's responses, and the completion on top.
    const view = atelier.agent.view({ id: chat.id })
    const responses = view.messages.flatMap(({ usage }) => (usage ? [usage] : []))
    const expected = {
      inputTokens: SAMPLED.usage.inputTokens + responses.reduce((sum, usage) => sum + usage.inputTokens, 0),
      outputTokens:
        SAMPLED.usage.outputTokens + responses.reduce((sum, usage) => sum + usage.outputTokens, 0),
    }
    const expectedCost = cost + responses.reduce((sum, usage) => sum + (usage.costUsd ?? 0), 0)
    // Settings → Usage, the chat's figure, and its header (as the renderer adds it up) agree.
    const calls = Object.fromEntries(view.calls.map((call) => [call.id, call]))
    const header = conversationUsage(view.messages, calls)
    for (const usage of [atelier.usage.report(1).total, atelier.usage.chat(chat.id), header]) {
      expect(usage).toMatchObject(expected)
      expect(usage.costUsd).toBeCloseTo(expectedCost, 12)
    }
  })

  it('declined, nothing reaches the model and the server hears the refusal', async () => {
    const { fake, server, run } = await setup()
    const { turn, events } = await run(() => ({ action: 'decline' }))

    expect(turn.status).toBe('completed')
    expect(sampledRequests(fake)).toEqual([])
    expect(server.samples).toEqual([{ error: expect.stringContaining('declined the sampling request') }])
    expect(decisionsOf(events)).toEqual([expect.objectContaining({ outcome: 'declined', by: 'person' })])
  })

  it('refuses a request the person edited into one that cannot be sent, and the card keeps waiting', async () => {
    const { atelier, chat, fake, server, run } = await setup()
    let refused: unknown
    const { turn } = await run((request) => {
      refused = atelier.dispatch('calls.answer', {
        chatId: chat.id,
        questionId: request.id,
        answer: { action: 'approve', messages: request.messages, systemPrompt: '', maxTokens: 0 },
      })
      return { action: 'approve', messages: request.messages, systemPrompt: '', maxTokens: 5 }
    })
    expect(await refused).toMatchObject({ ok: false, error: { code: 'validation_failed' } })
    expect(turn.status).toBe('completed')
    expect(sampledRequests(fake)).toHaveLength(1)
    expect(server.samples).toEqual([expect.objectContaining({ content: { type: 'text', text: 'Summer' } })])
  })

  describe('headless (the built CLI)', { timeout: 120_000 }, () => {
    async function runHeadless(tool: string, ...extra: string[]) {
      const server = await withServer()
      const fake = await startFakeProvider()
      cleanups.push(() => fake.close())
      fake.enqueue({ toolCalls: [{ id: 'call_1', name: tool, arguments: '{}' }] }, SAMPLED, {
        text: 'Done.',
      })
      const project = realpathSync(tempDir())
      const result = await cli(
        await dataDirWith(server),
        ...fakeRunArgs(fake, project, 'name the release', '--approval', 'full-auto', ...extra),
      )
      expect(result.code).toBe(0)
      return { result, server, fake }
    }

    it('atelier run declines a sampling request by default, and says so', async () => {
      const { result, server, fake } = await runHeadless(TOOL)
      expect(result.stderr).toContain("Declined the MCP server “probe”'s sampling request")
      expect(server.samples).toEqual([{ error: expect.stringContaining('declined') }])
      expect(sampledRequests(fake)).toEqual([])
    })

    it('atelier run --elicitation defaults sends the request as the server wrote it', async () => {
      const { result, server, fake } = await runHeadless(TOOL, '--elicitation', 'defaults')
      expect(result.stderr).toContain(
        "Sent the MCP server “probe”'s sampling request to the model as asked (at most 40 tokens).",
      )
      expect(sampledRequests(fake)).toHaveLength(1)
      expect(sampledRequests(fake)[0]?.body.messages[0]).toEqual({
        role: 'system',
        content: SAMPLING_REQUEST.systemPrompt,
      })
      expect(server.samples).toEqual([expect.objectContaining({ content: { type: 'text', text: 'Summer' } })])
    })

    it("atelier run --elicitation defaults accepts a form's defaults", async () => {
      const { result, server } = await runHeadless('probe__ask_person', '--elicitation', 'defaults')
      expect(result.stderr).toContain("Accepted the defaults of the MCP server “probe”'s question")
      expect(server.answers).toEqual([{ action: 'accept', content: DEFAULTS }])
    })

    it('atelier run --elicitation ask declines where there is no terminal to ask on', async () => {
      const { result, server } = await runHeadless('probe__ask_person', '--elicitation', 'ask')
      expect(result.stderr).toContain('(no terminal to ask on)')
      expect(server.answers).toEqual([{ action: 'decline' }])
    })

    it('atelier run refuses an --elicitation it does not know', async () => {
      const result = await cli(tempDir(), 'run', 'hi', '--provider', 'openai-chat', '--elicitation', 'maybe')
      expect(result.code).not.toBe(0)
      expect(result.stderr).toContain('Allowed choices are decline, defaults, ask')
    })
  })
})
