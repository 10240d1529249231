/**
 * Long sessions against the fake provider, on real SQLite: summaries by the chat's own model, a
 * refusal as too long recovered by compacting once, and provider items of elided steps left out.
 * (The scripted six-file session through the CLI is in test/main/cli/context-window.test.ts.)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { TurnEvent } from '../../../src-shared/agent'
import { type AgentFixture, useAgentFixture } from '../../support/agent-harness'
import { waitFor } from '../../support/custom-tools'
import type { FakeKind, ScriptedResponse } from '../../support/fake-provider'

/** No count from the provider: the estimate stays at 4 characters a token, as the tests reckon. */
const NO_USAGE = { usage: { inputTokens: 0, outputTokens: 0 } }
const SUMMARY = 'SUMMARY: the user asked about the alpha plan; it was explained.'

const reply = (text: string): ScriptedResponse => ({ text, ...NO_USAGE })

/** The request bodies the chat's model received, as JSON text: what was sent, whatever the wire. */
function sent(fixture: AgentFixture, kind: FakeKind): string[] {
  return fixture.fake.requestsOf(kind).map((request) => JSON.stringify(request.body))
}

function ofType<T extends TurnEvent['type']>(events: TurnEvent[], type: T) {
  return events.filter((event): event is Extract<TurnEvent, { type: T }> => event.type === type)
}

describe('compaction', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()

  async function chatWithWindow(kind: FakeKind, contextWindow: number) {
    const agent = await fixture(kind)
    const provider = agent.atelier.providers.list()[0]
    agent.atelier.providers.update({ id: provider?.id ?? '', contextWindow })
    return agent
  }

  /** The system prompt and tools of a turn, in tokens by the same estimate. */
  async function baseTokens(agent: AgentFixture) {
    return (await agent.atelier.context.status({ id: agent.chat.id })).usedTokens
  }

  it('summarizes the older part with the chat’s own provider and model; the next request carries the summary', async () => {
    const agent = await chatWithWindow('openai-chat', 100_000)
    const base = await baseTokens(agent)
    // A window that the first turn fills to just under the threshold (80 %): the second passes it.
    const firstPrompt = `Tell me about the alpha plan. ${'alpha '.repeat(300)}`
    // Longer than the share of the window a summary leaves verbatim (40 %): it is summarized too.
    const firstAnswer = `The alpha plan is this. ${'detail '.repeat(2400)}`
    const window = Math.ceil((base + (firstPrompt.length + firstAnswer.length) / 4 + 100) / 0.8)
    agent.atelier.providers.update({ id: agent.chat.provider ?? '', contextWindow: window })

    agent.fake.enqueue(reply(firstAnswer))
    const first = await agent.run(firstPrompt)
    expect(first.turn.status).toBe('completed')
    expect(ofType(first.events, 'compaction_completed')).toEqual([])

    agent.fake.enqueue(reply(SUMMARY), reply('The beta plan follows the alpha plan.'))
    const second = await agent.run(`And the beta plan? ${'beta '.repeat(200)}`)
    expect(second.turn.status).toBe('completed')

    const [, summarization, answered] = agent.fake.requestsOf('openai-chat')
    // The same provider (this fake's Chat Completions endpoint) and model, no tools, the older part.
    expect(summarization?.body.model).toBe('fake-model')
    expect(summarization?.body.tools).toBeUndefined()
    expect(JSON.stringify(summarization?.body.messages)).toContain('Tell me about the alpha plan.')
    expect(summarization?.body.messages[0].content).toMatch(/^You summarize a working session/)
    // What the model then sees: the summary and the new prompt, not the first turn's words.
    const next = JSON.stringify(answered?.body.messages)
    expect(next).toContain(SUMMARY)
    expect(next).toContain('And the beta plan?')
    expect(next).not.toContain('Tell me about the alpha plan.')
    expect(next).not.toContain('The alpha plan is this.')

    const [compaction] = ofType(second.events, 'compaction_completed').map((event) => event.compaction)
    expect(compaction).toMatchObject({ reason: 'threshold', summary: SUMMARY })
    expect(compaction?.tokensAfter).toBeLessThan(compaction?.tokensBefore ?? 0)
    expect(ofType(second.events, 'compaction_started')).toHaveLength(1)
    // Nothing is deleted: the person still reads the whole conversation.
    const { messages, compactions } = agent.atelier.agent.conversation({ id: agent.chat.id })
    expect(messages.map((message) => message.parts[0])).toContainEqual({ type: 'text', text: firstAnswer })
    expect(compactions).toEqual([compaction])
  })

  it('“Compact now” summarizes all but the latest turn, and records nothing when there is nothing before it', async () => {
    const agent = await chatWithWindow('openai-chat', 100_000)
    agent.fake.enqueue(reply(`First answer. ${'words '.repeat(400)}`))
    await agent.run(`First question ${'more '.repeat(400)}`)
    expect((await agent.atelier.agent.compact({ id: agent.chat.id })).compaction).toBeNull()

    agent.fake.enqueue(reply('Second answer.'))
    await agent.run('Second question')
    agent.fake.enqueue(reply('SUMMARY: two questions.'))
    const { compaction } = await agent.atelier.agent.compact({ id: agent.chat.id })
    expect(compaction).toMatchObject({ reason: 'manual', turnId: null, summary: 'SUMMARY: two questions.' })
    agent.fake.enqueue(reply('Third answer.'))
    await agent.run('Third question')
    const last = sent(agent, 'openai-chat').at(-1) ?? ''
    expect(last).toContain('SUMMARY: two questions.')
    expect(last).not.toContain('First question')
  })

  describe.each<FakeKind>(['openai-chat', 'anthropic', 'gemini'])('a refusal as too long (%s)', (kind) => {
    it('compacts and tries once more', async () => {
      const agent = await chatWithWindow(kind, 100_000)
      agent.fake.enqueue(reply(`An answer. ${'words '.repeat(300)}`))
      await agent.run(`A first question. ${'context '.repeat(300)}`)
      agent.fake.enqueue(
        { contextOverflow: { limitTokens: 2_000 } },
        reply('SUMMARY: one question was answered.'),
        reply('The second answer.'),
      )
      const second = await agent.run('A second question.')
      expect(second.turn.status).toBe('completed')
      expect(ofType(second.events, 'compaction_started')).toMatchObject([{ reason: 'overflow' }])
      expect(ofType(second.events, 'compaction_completed')[0]?.compaction.summary).toBe(
        'SUMMARY: one question was answered.',
      )
      // The refused request, the summary, and the one retry.
      expect(agent.fake.requestsOf(kind)).toHaveLength(4)
      expect(sent(agent, kind).at(-1)).toContain('SUMMARY: one question was answered.')
    })

    it('fails with what to do when the retry is refused too', async () => {
      const agent = await chatWithWindow(kind, 100_000)
      agent.fake.enqueue(reply('An answer.'))
      await agent.run(`A first question. ${'context '.repeat(300)}`)
      agent.fake.enqueue({ contextOverflow: { limitTokens: 2_000 } }, reply('SUMMARY: one question.'), {
        contextOverflow: { limitTokens: 2_000 },
      })
      const second = await agent.run('A second question.')
      expect(second.turn.status).toBe('failed')
      const [error] = ofType(second.events, 'turn_error')
      expect(error?.code).toBe('provider_context_overflow')
      expect(error?.message).toMatch(/Settings → Providers/)
      expect(agent.fake.requestsOf(kind)).toHaveLength(4)
    })
  })

  /** The provider's own item in a request, by wire: what must not be sent for an elided step. */
  const opaqueMarkers: Record<'openai-responses' | 'gemini' | 'anthropic', (body: string) => number> = {
    'openai-responses': (body) => body.split('"type":"reasoning"').length - 1,
    gemini: (body) =>
      body.split('"thoughtSignature":"').length -
      1 -
      (body.split('skip_thought_signature_validator').length - 1),
    anthropic: (body) => body.split('"type":"thinking"').length - 1,
  }

  describe.each(['openai-responses', 'gemini', 'anthropic'] as const)('elided steps (%s)', (kind) => {
    it('send their tool results as stubs and none of their reasoning or signatures', async () => {
      // Three reads of 30 KB (about 7,700 tokens each) in a window of 16,000: the third request
      // would carry two results and pass the threshold, so the first step is elided.
      const agent = await chatWithWindow(kind, 16_000)
      for (const name of ['a', 'b', 'c']) {
        writeFileSync(
          join(agent.project, `${name}.txt`),
          `${`${name} line of thirty kilobytes\n`.repeat(1000)}`,
        )
      }
      agent.fake.enqueue(
        ...['a', 'b', 'c'].map(
          (name): ScriptedResponse => ({
            reasoning: true,
            toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: `${name}.txt` }) }],
            ...NO_USAGE,
          }),
        ),
        { text: 'Read all three.', reasoning: true, ...NO_USAGE },
      )
      const run = await agent.run('Read a.txt, b.txt and c.txt one after another.')
      expect(run.turn.status).toBe('completed')
      expect(ofType(run.events, 'compaction_completed').length).toBeGreaterThanOrEqual(1)

      const bodies = sent(agent, kind)
      expect(bodies).toHaveLength(4)
      const last = bodies.at(-1) ?? ''
      // The first read reaches the model as a stub; its response's item is gone, the latest's stays.
      expect(last).toMatch(/\[output of read_file a\.txt, \d+ KB, elided — call again if needed\]/)
      expect(last).not.toContain('a line of thirty kilobytes')
      expect(last).toContain('c line of thirty kilobytes')
      const count = opaqueMarkers[kind]
      expect(count(bodies[1] ?? '')).toBe(1)
      expect(count(last)).toBeLessThan(3)
      expect(count(last)).toBeGreaterThanOrEqual(1)
      // The database keeps every result whole.
      const results = run.messages
        .flatMap((message) => message.parts)
        .filter((part) => part.type === 'tool_result')
      expect(results.map((result) => result.content.includes('a line of thirty kilobytes'))).toContain(true)
    })
  })

  it('tells custom tools of an automatic compaction (onSession auto_compaction_start, then _end)', async () => {
    const agent = await chatWithWindow('openai-chat', 16_000)
    const { home } = agent
    const log = join(home, 'sessions.log')
    mkdirSync(join(home, '.atelier', 'tools'), { recursive: true })
    writeFileSync(
      join(home, '.atelier', 'tools', 'session-log.ts'),
      `import { appendFileSync } from 'node:fs'
export default (pi) => ({
  name: 'session_log',
  label: 'Session log',
  description: 'Records the session events it hears.',
  parameters: pi.typebox.Type.Object({}),
  async execute() { return { content: [{ type: 'text', text: 'ok' }] } },
  onSession(event, ctx) { appendFileSync(${JSON.stringify(log)}, event.reason + ' ' + ctx.cwd + '\\n') },
})
`,
    )
    for (const name of ['a', 'b']) {
      writeFileSync(join(agent.project, `${name}.txt`), `${name} line of thirty kilobytes\n`.repeat(1000))
    }
    agent.fake.enqueue(
      ...['a', 'b'].map((name) => ({
        toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: `${name}.txt` }) }],
        ...NO_USAGE,
      })),
      reply('Both read.'),
    )
    const run = await agent.run('Read a.txt, then b.txt.')
    expect(ofType(run.events, 'compaction_completed')).toHaveLength(1)
    const heard = () => readFileSync(log, 'utf8').trim().split('\n')
    await waitFor(
      () => heard().some((line) => line.startsWith('auto_compaction_end')),
      'the end of the compaction',
    )
    // The turn's own events (turn_start, message…) come too, and are not this test's.
    expect(heard().filter((line) => /^(start|auto_compaction)/.test(line))).toEqual([
      `start ${home}`,
      `auto_compaction_start ${agent.project}`,
      `auto_compaction_end ${agent.project}`,
    ])
  })
})
