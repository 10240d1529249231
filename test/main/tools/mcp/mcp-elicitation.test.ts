/**
 * MCP elicitation through the app's real path: a real SDK server whose tool asks the person a
 * question during the call, a turn scripted by the fake provider, the card answered through the
 * contract (`elicitations.answer`) as the chat view does, and the CLI declining when run headless.
 */
import { realpathSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { LOCAL_USER } from '../../../../src-main/app/create-atelier'
import { nobodyToAsk } from '../../../../src-main/approvals/askers'
import type { TurnEvent } from '../../../../src-shared/agent'
import type { ElicitationAnswer, ElicitationRequest } from '../../../../src-shared/elicitation'
import { DEFAULTS, ELICITATION_MESSAGE, REQUESTED_SCHEMA } from '../../../fixtures/elicitation-mcp-server'
import { useAgentFixture } from '../../../support/agent-harness'
import { type FakeProvider, startFakeProvider } from '../../../support/fake-provider'
import { useProbeServers } from '../../../support/probe-servers'
import { useTempDirs } from '../../../support/temp-dir'
import { toolResults } from '../../../support/turn-events'
import { atelier as cli, fakeRunArgs } from '../../cli/built-cli'

const TOOL = 'probe__ask_person'

describe('MCP elicitation', { timeout: 60_000 }, () => {
  const fixture = useAgentFixture()
  const tempDir = useTempDirs()
  const cleanups: (() => Promise<unknown>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  const { start: withServer, add, dataDirWith } = useProbeServers()

  /** A chat whose model calls the server's tool once, then answers in text. */
  async function setup() {
    const server = await withServer()
    const agent = await fixture()
    await add(agent.atelier, server)
    agent.fake.enqueue({ toolCalls: [{ id: 'call_1', name: TOOL, arguments: '{}' }] }, { text: 'Done.' })
    /** Runs the turn; each card is answered by `onCard`, through the contract, as the chat view does. */
    const run = (onCard: (request: ElicitationRequest) => unknown) => {
      const shown = new Set<string>()
      return agent.run('prepare the release', {
        onEvent: (event) => {
          const question = event.type === 'tool_call' ? event.call.question : undefined
          if (question?.kind !== 'elicitation' || shown.has(question.id)) return
          shown.add(question.id)
          void onCard(question)
        },
      })
    }
    const answer = (request: ElicitationRequest, reply: ElicitationAnswer) =>
      agent.atelier.dispatch('calls.answer', {
        chatId: agent.chat.id,
        questionId: request.id,
        answer: reply,
      })
    /** The questions waiting in the chat, as a page that loads now finds them. */
    const pending = () =>
      agent.atelier.agent.view({ id: agent.chat.id }).calls.flatMap(({ question }) => question ?? [])
    return { ...agent, server, run, answer, pending }
  }

  const resultOf = (events: TurnEvent[]) => toolResults(events)[0]
  /** How the call's questions were answered, as kept with it. */
  const resolved = (events: TurnEvent[]) =>
    resultOf(events)?.call.decisions.filter(({ kind }) => kind === 'elicitation') ?? []

  it('shows the form with its defaults and sends an accepted answer, changed fields and all, to the server', async () => {
    const { chat, server, run, answer, pending } = await setup()
    let waiting: unknown
    const { events, turn } = await run(async (request) => {
      waiting = pending()
      // The person changes the name and the count and leaves the rest as the server proposed.
      await answer(request, { action: 'accept', content: { ...DEFAULTS, name: 'autumn', count: 7 } })
    })

    expect(turn.status).toBe('completed')
    const requested = events.find((event) => event.type === 'tool_call' && event.call.question)
    expect(requested).toMatchObject({
      call: {
        status: 'awaiting_input',
      },
    })
    expect(requested?.type === 'tool_call' && requested.call.question).toMatchObject({
      kind: 'elicitation',
      ...{
        chatId: chat.id,
        callId: 'call_1',
        tool: TOOL,
        server: 'probe',
        message: ELICITATION_MESSAGE,
        requestedSchema: REQUESTED_SCHEMA,
      },
    })
    expect(waiting).toMatchObject([{ callId: 'call_1', server: 'probe' }])
    const expected = { action: 'accept', content: { ...DEFAULTS, name: 'autumn', count: 7 } }
    expect(server.answers).toEqual([expected])
    expect(resultOf(events)).toMatchObject({ isError: false, content: JSON.stringify(expected) })
    expect(resolved(events)).toEqual([
      expect.objectContaining({
        outcome: 'accepted',
        by: 'person',
        server: 'probe',
        answer: expect.stringContaining('Release name: autumn · Build count: 7'),
      }),
    ])
    expect(pending()).toEqual([])
  })

  it('fills in the defaults of fields an accepted answer leaves out (SEP-1034)', async () => {
    const { server, run, answer } = await setup()
    await run((request) => answer(request, { action: 'accept', content: { name: 'winter', count: 2 } }))
    expect(server.answers).toEqual([{ action: 'accept', content: { ...DEFAULTS, name: 'winter', count: 2 } }])
  })

  it.each(['decline', 'cancel'] as const)('passes on %s to the server', async (action) => {
    const { server, run, answer } = await setup()
    const { events } = await run((request) => answer(request, { action }))
    expect(server.answers).toEqual([{ action }])
    expect(resolved(events)).toEqual([
      expect.objectContaining({ outcome: action === 'decline' ? 'declined' : 'cancelled' }),
    ])
    expect(resultOf(events)).toMatchObject({ isError: false, content: JSON.stringify({ action }) })
  })

  it('refuses an answer that does not fit the form, and the card keeps waiting for one that does', async () => {
    const { server, run, answer } = await setup()
    const refusals: unknown[] = []
    await run(async (request) => {
      refusals.push(await answer(request, { action: 'accept', content: { ...DEFAULTS, count: 42 } }))
      refusals.push(await answer(request, { action: 'accept', content: { count: 2, channel: 'nightly' } }))
      refusals.push(
        await answer(request, { action: 'accept', content: { ...DEFAULTS, count: 2.5, extra: 'x' } }),
      )
      await answer(request, { action: 'accept', content: { ...DEFAULTS, count: 4 } })
    })

    expect(refusals).toEqual([
      {
        ok: false,
        error: expect.objectContaining({
          code: 'invalid_answer',
          message: "The answer does not fit the server's form: Build count must be at most 10.",
        }),
      },
      {
        ok: false,
        error: expect.objectContaining({
          code: 'invalid_answer',
          data: {
            problems: {
              name: 'Release name is required.',
              channel: 'Channel must be one of: Stable, Beta.',
            },
          },
        }),
      },
      {
        ok: false,
        error: expect.objectContaining({
          data: {
            problems: { count: 'Build count must be a whole number.', extra: 'The form has no such field.' },
          },
        }),
      },
    ])
    expect(server.answers).toEqual([{ action: 'accept', content: { ...DEFAULTS, count: 4 } }])
  })

  it('answers cancel to the server when the turn is stopped while the card waits', async () => {
    const { atelier, chat, server, run, pending } = await setup()
    const { events, turn } = await run(() => atelier.agent.stop({ chatId: chat.id }))

    expect(turn.status).toBe('stopped')
    await expect.poll(() => server.answers).toEqual([{ action: 'cancel' }])
    expect(resolved(events)).toEqual([expect.objectContaining({ outcome: 'cancelled' })])
    expect(pending()).toEqual([])
  })

  it('declines, without a card, where nobody can answer', async () => {
    const { server, atelier, chat } = await setup()
    const events: TurnEvent[] = []
    const { done } = atelier.agent.begin({
      chatId: chat.id,
      prompt: 'prepare the release',
      asker: nobodyToAsk,
      onEvent: (event) => events.push(event),
    })
    await done
    expect(server.answers).toEqual([{ action: 'decline' }])
    expect(events.some((event) => event.type === 'tool_call' && event.call.question)).toBe(false)
  })

  it('declines, asking neither chat, while calls of two chats are in flight on the server', async () => {
    const { atelier, chat, server } = await setup()
    await atelier.mcp.prepare()
    const asked: string[] = []
    const scope = (chatId: string, signal?: AbortSignal) => ({
      user: LOCAL_USER,
      workingDirectory: null,
      mode: 'chat' as const,
      restrict: false,
      chatId,
      ...(signal && { signal }),
      ask: async (): Promise<ElicitationAnswer> => {
        asked.push(chatId)
        return { action: 'accept', content: DEFAULTS }
      },
    })
    // Another chat's call is still running on the same server when this chat's call asks.
    const stop = new AbortController()
    const stalled = atelier.tools.executor.execute(
      { name: 'probe__stall', arguments: {} },
      scope('another-chat', stop.signal),
    )
    await expect.poll(() => atelier.mcp.list().find((entry) => entry.name === 'probe')?.running).toBe(true)
    const result = await atelier.tools.executor.execute({ name: TOOL, arguments: {} }, scope(chat.id))

    expect(result).toMatchObject({ isError: false, content: '{"action":"decline"}' })
    expect(server.answers).toEqual([{ action: 'decline' }])
    expect(asked).toEqual([])
    stop.abort()
    await stalled
    await expect.poll(() => server.cancelled).toBe(1)
  })

  it("does not count the person's time against the call's timeout, which still holds without them", async () => {
    const { atelier, server, run, answer } = await setup()
    await atelier.mcp.prepare()
    atelier.tools.settings.update(LOCAL_USER, TOOL, { parameters: { timeoutSeconds: 5 } })
    atelier.tools.settings.update(LOCAL_USER, 'probe__stall', { parameters: { timeoutSeconds: 5 } })
    // The person takes longer than the call may go without progress.
    const { events } = await run(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 6000))
      await answer(request, { action: 'decline' })
    })
    expect(resultOf(events)).toMatchObject({ isError: false, content: '{"action":"decline"}' })
    expect(server.answers).toEqual([{ action: 'decline' }])

    const stalled = await atelier.tools.executor.execute(
      { name: 'probe__stall', arguments: {} },
      { user: LOCAL_USER, workingDirectory: null, mode: 'chat', restrict: false },
    )
    expect(stalled).toMatchObject({
      isError: true,
      errorType: 'timeout',
      content: expect.stringContaining('stall on “probe” timed out: no progress for 5 s'),
    })
    await expect.poll(() => server.cancelled).toBe(1)
  })

  describe('headless (the built CLI)', { timeout: 120_000 }, () => {
    const DECLINED = `Declined the MCP server “probe”'s question (no one to answer in a headless run): ${ELICITATION_MESSAGE}\n`

    it('atelier tool declines the question and says so on stderr', async () => {
      const server = await withServer()
      const result = await cli(await dataDirWith(server), 'tool', TOOL, '{}')
      expect(result).toMatchObject({ code: 0, stdout: '{"action":"decline"}\n' })
      expect(result.stderr).toContain(DECLINED)
      expect(server.answers).toEqual([{ action: 'decline' }])
    })

    it('atelier run declines the question and says so on stderr', async () => {
      const server = await withServer()
      const fake: FakeProvider = await startFakeProvider()
      cleanups.push(() => fake.close())
      fake.enqueue({ toolCalls: [{ id: 'call_1', name: TOOL, arguments: '{}' }] }, { text: 'Done.' })
      const project = realpathSync(tempDir())
      const result = await cli(
        await dataDirWith(server),
        ...fakeRunArgs(fake, project, 'prepare the release', '--approval', 'full-auto'),
      )
      expect(result.code).toBe(0)
      expect(result.stderr).toContain(DECLINED)
      expect(server.answers).toEqual([{ action: 'decline' }])
    })
  })
})
