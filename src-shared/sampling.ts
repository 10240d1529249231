/**
 * MCP sampling as every layer sees it: a server asking, during a tool call, for a completion from the
 * chat's model (`sampling/createMessage`). The person sees the request — the server's messages, its
 * system prompt and the most tokens it wants — may change any of it, and approves or declines it;
 * only an approved request reaches the model. Text only: a request with images or audio is refused
 * before anyone is asked.
 */
import { type Static, Type } from '@sinclair/typebox'
import { QuestionBase } from './approvals'

/** One message of the conversation the server wants completed. */
export const SamplingMessage = Type.Object({
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
  text: Type.String(),
})
export type SamplingMessage = Static<typeof SamplingMessage>

/** What goes to the model: as the server asked, or as the person changed it. */
export const SamplingDraft = {
  messages: Type.Array(SamplingMessage, { minItems: 1 }),
  /** Empty: the model gets no system prompt. */
  systemPrompt: Type.String(),
  maxTokens: Type.Integer({ minimum: 1 }),
}

/** A server's request as its card shows it, during the call it names. */
export const SamplingRequest = Type.Object({
  kind: Type.Literal('sampling'),
  ...QuestionBase,
  /** The MCP server's name, as the person named it. */
  server: Type.String(),
  ...SamplingDraft,
})
export type SamplingRequest = Static<typeof SamplingRequest>

/** `approve` sends the request as given here (the person's edits included); `decline` sends nothing. */
export const SamplingAnswer = Type.Union([
  Type.Object({ action: Type.Literal('approve'), ...SamplingDraft }, { additionalProperties: false }),
  Type.Object({ action: Type.Literal('decline') }, { additionalProperties: false }),
])
export type SamplingAnswer = Static<typeof SamplingAnswer>

/** What the person is asked, before it has a card: the server and what it wants sent. */
export interface SamplingQuestion {
  server: string
  messages: SamplingMessage[]
  systemPrompt: string
  maxTokens: number
}

/** The request as approved unchanged: what `--elicitation defaults` answers. */
export function approvedAsAsked(question: SamplingQuestion): Extract<SamplingAnswer, { action: 'approve' }> {
  const { messages, systemPrompt, maxTokens } = question
  return { action: 'approve', messages, systemPrompt, maxTokens }
}

/** What a request asks, in a line: its last message (the decision kept with the call says it). */
export function samplingSummary(question: Pick<SamplingQuestion, 'messages'>): string {
  const last = question.messages.at(-1)?.text.replace(/\s+/g, ' ').trim() ?? ''
  return last.length > 200 ? `${last.slice(0, 200)}…` : last
}
