import type { ChatMessage, ToolCallPart, ToolResultPart } from '../../src-shared/agent'
import type { ModelMessage } from '../providers/types'
import { userMessageImages, userMessageText } from './attachments'

/** Said to the model for a call whose result was never recorded: the turn stopped or the app died first. */
export const UNFINISHED_CALL =
  'This call did not run to the end: the turn was stopped before its result was recorded.'

/**
 * The stored conversation as the model must see it: each response's tool calls answered right after
 * it, in call order — results are stored as they finish, which for parallel calls is any order — and
 * a call left without a result (a stop, a crash) answered with a note, since no provider accepts an
 * unanswered call. Given the images folder, a prompt's images are only those saved in it
 * (`userMessageImages`).
 */
export function toModelMessages(messages: readonly ChatMessage[], imagesDir?: string): ModelMessage[] {
  const results = new Map<string, ToolResultPart>()
  for (const message of messages) {
    for (const part of message.parts) if (part.type === 'tool_result') results.set(part.callId, part)
  }
  const model: ModelMessage[] = []
  for (const message of messages) {
    if (message.role === 'user') {
      const images = userMessageImages(message.parts, imagesDir)
      model.push({ role: 'user', text: userMessageText(message.parts), ...(images.length > 0 && { images }) })
    } else if (message.role === 'assistant') {
      // The provider's own searches and citations were its output, not something it takes back.
      const parts = message.parts.filter(
        (part): part is Extract<ModelMessage, { role: 'assistant' }>['parts'][number] =>
          part.type === 'text' || part.type === 'tool_call' || part.type === 'opaque',
      )
      const calls = parts.filter((part): part is ToolCallPart => part.type === 'tool_call')
      // Reasoning alone, with nothing said or done, is not a response any provider takes back.
      if (!parts.some((part) => (part.type === 'text' && part.text) || part.type === 'tool_call')) continue
      model.push({ role: 'assistant', parts })
      if (calls.length > 0) {
        model.push({ role: 'tool', results: calls.map((call) => results.get(call.id) ?? unfinished(call)) })
      }
    }
  }
  return model
}

function unfinished(call: ToolCallPart): ToolResultPart {
  return { type: 'tool_result', callId: call.id, name: call.name, content: UNFINISHED_CALL, isError: true }
}
