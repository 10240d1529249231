/**
 * How many sampling requests one tool call answers: a server that asks in a loop, or many at once,
 * must not spend the person's model without end, whatever answers them (the person, `--elicitation`).
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { MAX_SAMPLING_PER_CALL, ServerRequestRouter } from '../../../../src-main/tools/mcp/server-requests'

const REQUEST = {
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'Name it.' } }],
  maxTokens: 50,
}

describe('ServerRequestRouter sampling', () => {
  it(`answers at most ${MAX_SAMPLING_PER_CALL} sampling requests a call, one at a time`, async () => {
    const router = new ServerRequestRouter('loop')
    let sent = 0
    let release: () => void = () => {}
    const sample = async () => {
      sent += 1
      // The first request waits, so that a second one arrives while it is answered.
      if (sent === 1) await new Promise<void>((resolve) => (release = resolve))
      return { text: `answer ${sent}`, model: 'm', stopReason: 'end_turn' as const }
    }
    const signal = new AbortController().signal
    const outcomes = await router.during(null, { ask: undefined, sample }, signal, async () => {
      const first = router.sample(REQUEST, signal)
      const concurrent = await router.sample(REQUEST, signal).catch((error: McpError) => error)
      release()
      const results = [await first, concurrent]
      for (let more = 0; more < MAX_SAMPLING_PER_CALL + 2; more++) {
        results.push(await router.sample(REQUEST, signal).catch((error: McpError) => error))
      }
      return results
    })
    expect(outcomes[1]).toBeInstanceOf(McpError)
    expect((outcomes[1] as McpError).message).toMatch(/One sampling request at a time/)
    const answered = outcomes.filter((outcome) => !(outcome instanceof McpError))
    expect(answered).toHaveLength(MAX_SAMPLING_PER_CALL)
    expect(sent).toBe(MAX_SAMPLING_PER_CALL)
    expect((outcomes.at(-1) as McpError).message).toMatch(/at most 5 sampling requests/)
  })
})
