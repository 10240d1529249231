import { createInterface } from 'node:readline/promises'
import { PassThrough } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  answerServerAtOnce,
  askServerInTerminal,
  declineHeadless,
  HEADLESS_SAMPLING_MAX_TOKENS,
  type ServerQuestion,
} from '../../../src-main/cli/headless-elicitation'
import type { ElicitationSchema } from '../../../src-shared/elicitation'

const SCHEMA: ElicitationSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Release name', default: 'spring' },
    count: { type: 'integer', title: 'Build count', minimum: 1, default: 3 },
    urgent: { type: 'boolean', title: 'Urgent', default: false },
    platforms: {
      type: 'array',
      title: 'Platforms',
      items: { enum: ['linux', 'mac'] },
      default: ['linux'],
    },
  },
  required: ['name'],
}
const FORM: ServerQuestion = {
  kind: 'elicitation',
  server: 'probe',
  message: 'Which release?',
  requestedSchema: SCHEMA,
}
const SAMPLING: ServerQuestion = {
  kind: 'sampling',
  server: 'probe',
  messages: [{ role: 'user', text: 'Name the release.' }],
  systemPrompt: 'One word.',
  maxTokens: 40,
}

describe('questions of MCP servers in a headless run', () => {
  let written: string[]
  beforeEach(() => {
    written = []
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk))
      return true
    })
  })
  afterEach(() => vi.restoreAllMocks())

  it('prints the server’s message as one line, without control characters', async () => {
    const answer = await declineHeadless({
      server: 'pro\u001b[2Jbe',
      message: 'Your name?\n\u001b[31mrm -rf\u001b[0m\r\u0007\u009b1;1H done\u007f',
      requestedSchema: { type: 'object', properties: {} },
    })
    expect(answer).toEqual({ action: 'decline' })
    expect(written).toEqual([
      "Declined the MCP server “pro [2Jbe”'s question (no one to answer in a headless run): Your name? [31mrm -rf [0m 1;1H done \n",
    ])
  })

  it('--elicitation decline (the default) declines forms and sampling requests alike', () => {
    expect(answerServerAtOnce(FORM, 'decline', true)).toEqual({ action: 'decline' })
    expect(answerServerAtOnce(SAMPLING, 'decline', true)).toEqual({ action: 'decline' })
    expect(written.join('')).toContain("Declined the MCP server “probe”'s sampling request")
  })

  it("--elicitation defaults accepts a form's defaults, and sends a sampling request as asked", () => {
    expect(answerServerAtOnce(FORM, 'defaults', false)).toEqual({
      action: 'accept',
      content: { name: 'spring', count: 3, urgent: false, platforms: ['linux'] },
    })
    expect(answerServerAtOnce(SAMPLING, 'defaults', false)).toEqual({
      action: 'approve',
      messages: [{ role: 'user', text: 'Name the release.' }],
      systemPrompt: 'One word.',
      maxTokens: 40,
    })
  })

  it('--elicitation defaults caps what a sampling request may spend, whatever the server asked', () => {
    expect(answerServerAtOnce({ ...SAMPLING, maxTokens: 1_000_000 }, 'defaults', false)).toMatchObject({
      action: 'approve',
      maxTokens: HEADLESS_SAMPLING_MAX_TOKENS,
    })
    expect(written.join('')).toContain(`at most ${HEADLESS_SAMPLING_MAX_TOKENS} tokens`)
  })

  it('--elicitation defaults declines a form whose defaults do not answer it, and says why', () => {
    const lacking: ServerQuestion = {
      ...FORM,
      requestedSchema: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    }
    expect(answerServerAtOnce(lacking, 'defaults', false)).toEqual({ action: 'decline' })
    expect(written.join('')).toContain('its defaults do not answer it: code is required.')
  })

  it('--elicitation ask leaves the question to the terminal, and declines where there is none', () => {
    expect(answerServerAtOnce(FORM, 'ask', true)).toBeUndefined()
    expect(answerServerAtOnce(SAMPLING, 'ask', true)).toBeUndefined()
    expect(answerServerAtOnce(FORM, 'ask', false)).toEqual({ action: 'decline' })
    expect(written.join('')).toContain('(no terminal to ask on)')
  })

  /** The terminal's answers, typed one line each, to what `askServerInTerminal` asks. */
  function typed(...lines: string[]) {
    const input = new PassThrough()
    const prompt = createInterface({ input, output: new PassThrough() })
    const signal = new AbortController().signal
    // Each answer is typed once its question is up.
    const ask = prompt.question.bind(prompt)
    vi.spyOn(prompt, 'question').mockImplementation((query: string, options?: unknown) => {
      const answer = ask(query, options as { signal: AbortSignal })
      input.write(`${lines.shift() ?? ''}\n`)
      return answer
    })
    return { prompt, signal }
  }

  it('--elicitation ask on a terminal: the form field by field, Enter keeping a default', async () => {
    const { prompt, signal } = typed('a', 'autumn', '', 'y', 'linux, mac')
    expect(await askServerInTerminal(FORM, prompt, signal)).toEqual({
      action: 'accept',
      content: { name: 'autumn', count: 3, urgent: true, platforms: ['linux', 'mac'] },
    })
  })

  it('--elicitation ask on a terminal: a form that does not check out is asked again', async () => {
    const { prompt, signal } = typed('a', '', '0', '', '', 'a', '', '2', '', '')
    expect(await askServerInTerminal(FORM, prompt, signal)).toEqual({
      action: 'accept',
      content: { name: 'spring', count: 2, urgent: false, platforms: ['linux'] },
    })
    expect(written.join('')).toContain('Build count must be at least 1.')
  })

  it('--elicitation ask on a terminal: a sampling request shown whole, its budget changed, then sent', async () => {
    const { prompt, signal } = typed('m', '12', 'y')
    expect(await askServerInTerminal(SAMPLING, prompt, signal)).toEqual({
      action: 'approve',
      messages: [{ role: 'user', text: 'Name the release.' }],
      systemPrompt: 'One word.',
      maxTokens: 12,
    })
    const shown = written.join('')
    expect(shown).toContain('[user] Name the release.')
    expect(shown).toContain('system prompt: One word.')
    expect(shown).toContain('max tokens: 40')
  })

  it('--elicitation ask on a terminal: a declined sampling request', async () => {
    const { prompt, signal } = typed('n')
    expect(await askServerInTerminal(SAMPLING, prompt, signal)).toEqual({ action: 'decline' })
  })
})
