/**
 * What an MCP server asks of the call it is serving, on one connection: a form for the person
 * (`elicitation/create`) or a completion from the chat's model (`sampling/createMessage`). The SDK's
 * request handler does not say which call a request belongs to, and the connection serves every
 * chat, so each tool call in flight registers its ways to answer; a request goes to the most
 * recently started call still in flight, and with none (or one that cannot answer) the server is
 * declined. When calls of more than one chat are in flight on the connection, whose request it is
 * cannot be told, so the server is declined too: a request never reaches someone else's chat.
 */
import {
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequestFormParams,
  type ElicitResult,
  McpError,
} from '@modelcontextprotocol/sdk/types.js'
import type {
  ElicitationAnswer,
  ElicitationQuestion,
  ElicitationSchema,
} from '../../../src-shared/elicitation'
import { untilAborted } from '../../core/abort'
import type { ToolHost } from '../types'
import { samplingQuestion, samplingResult } from './sampling'

/** How a call in flight asks its person; absent where nobody can answer. */
export type AskPerson = (question: ElicitationQuestion, signal: AbortSignal) => Promise<ElicitationAnswer>

/** How a call in flight answers the server: its person's form, its chat's model. */
export interface CallAnswers {
  ask: AskPerson | undefined
  sample: ToolHost['sample']
}

interface InFlight extends CallAnswers {
  /** The chat the call belongs to; null outside one (the CLI, the playground). */
  chatId: string | null
  /** The call's own stop: a request it answers is cancelled with it. */
  signal: AbortSignal
  /** Sampling requests this call has taken so far, and whether one is being answered now. */
  sampled: number
  sampling: boolean
}

/**
 * Sampling requests one tool call answers at most. Each spends the person's model; a server that
 * asks in a loop (or many at once) is declined past this, whatever the person or `--elicitation` says.
 */
export const MAX_SAMPLING_PER_CALL = 5

/** The person said no to a sampling request: the error the specification names for it. */
const SAMPLING_DECLINED = -1

export class ServerRequestRouter {
  private readonly inFlight: InFlight[] = []

  constructor(private readonly server: string) {}

  /** Runs one tool call with its ways to answer registered, for as long as it runs. */
  async during<T>(
    chatId: string | null,
    answers: CallAnswers,
    signal: AbortSignal,
    call: () => Promise<T>,
  ): Promise<T> {
    const entry: InFlight = { chatId, ...answers, signal, sampled: 0, sampling: false }
    this.inFlight.push(entry)
    try {
      return await call()
    } finally {
      this.inFlight.splice(this.inFlight.indexOf(entry), 1)
    }
  }

  /**
   * Answers the server's `elicitation/create` (form mode, the only one declared). A stop of the
   * call, or the server's own cancellation of its request, answers `cancel`.
   */
  async elicit(params: ElicitRequestFormParams, requestSignal: AbortSignal): Promise<ElicitResult> {
    const call = this.caller('question')
    if (!call?.ask) return { action: 'decline' }
    const signal = AbortSignal.any([call.signal, requestSignal])
    const question: ElicitationQuestion = {
      server: this.server,
      message: params.message,
      requestedSchema: params.requestedSchema as ElicitationSchema,
    }
    try {
      return await untilAborted(call.ask(question, signal), signal)
    } catch (error) {
      if (signal.aborted) return { action: 'cancel' }
      throw error
    }
  }

  /**
   * Answers the server's `sampling/createMessage`: the person sees the request, and what they
   * approve goes to the chat's model. Declined (or nobody to ask) is the error the specification
   * names for a person's refusal.
   */
  async sample(
    params: CreateMessageRequest['params'],
    requestSignal: AbortSignal,
  ): Promise<CreateMessageResult> {
    const call = this.caller('sampling request')
    const question = samplingQuestion(this.server, params)
    if (!call?.sample) throw new McpError(SAMPLING_DECLINED, 'No one here can approve a sampling request.')
    if (call.sampling) {
      throw new McpError(
        SAMPLING_DECLINED,
        'One sampling request at a time: the last one is not answered yet.',
      )
    }
    if (call.sampled >= MAX_SAMPLING_PER_CALL) {
      throw new McpError(
        SAMPLING_DECLINED,
        `A tool call answers at most ${MAX_SAMPLING_PER_CALL} sampling requests; this one is declined.`,
      )
    }
    call.sampled += 1
    call.sampling = true
    try {
      const signal = AbortSignal.any([call.signal, requestSignal])
      const completion = await untilAborted(call.sample(question, signal), signal)
      if (!completion) throw new McpError(SAMPLING_DECLINED, 'The user declined the sampling request.')
      return samplingResult(completion)
    } finally {
      call.sampling = false
    }
  }

  /** The call a request belongs to; undefined when it cannot be told whose it is. */
  private caller(what: string): InFlight | undefined {
    const running = this.inFlight.filter((entry) => !entry.signal.aborted)
    if (new Set(running.map((entry) => entry.chatId)).size > 1) {
      // Only the fact is logged, never the request: it may carry what the server knows.
      console.warn(
        `Declined a ${what} of the MCP server “${this.server}”: calls of more than one chat are in flight on it, so whose it is cannot be told.`,
      )
      return undefined
    }
    return running.at(-1)
  }
}
