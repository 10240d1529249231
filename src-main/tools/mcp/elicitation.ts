/**
 * MCP elicitation on one connection: a server's `elicitation/create` reaches the person who made the
 * call it belongs to. The SDK's request handler does not say which call that is, and the connection
 * serves every chat, so each tool call in flight registers its way to ask; a question goes to the
 * most recently started call still in flight, and with none (or one nobody can answer) the server
 * is declined. When calls of more than one chat are in flight on the connection, which of them asks
 * cannot be told, so the server is declined too: a question never reaches someone else's chat.
 */
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import type {
  ElicitationAnswer,
  ElicitationQuestion,
  ElicitationSchema,
} from '../../../src-shared/elicitation'
import { untilAborted } from '../../core/abort'

/** How a call in flight asks its person; absent where nobody can answer. */
export type AskPerson = (question: ElicitationQuestion, signal: AbortSignal) => Promise<ElicitationAnswer>

interface InFlight {
  /** The chat the call belongs to; null outside one (the CLI, the playground). */
  chatId: string | null
  ask: AskPerson | undefined
  /** The call's own stop: a question it asked is cancelled with it. */
  signal: AbortSignal
}

export class ElicitationRouter {
  private readonly inFlight: InFlight[] = []

  constructor(private readonly server: string) {}

  /** Runs one tool call with its way to ask registered, for as long as it runs. */
  async during<T>(
    chatId: string | null,
    ask: AskPerson | undefined,
    signal: AbortSignal,
    call: () => Promise<T>,
  ): Promise<T> {
    const entry: InFlight = { chatId, ask, signal }
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
  async handle(params: ElicitRequestFormParams, requestSignal: AbortSignal): Promise<ElicitResult> {
    const running = this.inFlight.filter((entry) => !entry.signal.aborted)
    if (new Set(running.map((entry) => entry.chatId)).size > 1) {
      // Only the fact is logged, never the question: it may carry what the server knows.
      console.warn(
        `Declined a question of the MCP server “${this.server}”: calls of more than one chat are in flight on it, so whose question it is cannot be told.`,
      )
      return { action: 'decline' }
    }
    const call = running.at(-1)
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
}
