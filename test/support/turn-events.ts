import type { ChatMessage, TurnEvent } from '../../src-shared/agent'
import type { ToolCallResult, ToolCallState } from '../../src-shared/tool-calls'
import type { ToolProgress } from '../../src-shared/tools'

/** A call as the event that ended it told it: its id and name with its result, and its final state. */
export type EndedCall = { id: string; name: string; call: ToolCallState } & ToolCallResult

/** The calls a turn's events ended, in the order they ended. */
export function toolResults(events: readonly TurnEvent[]): EndedCall[] {
  return events.flatMap((event) => {
    if (event.type !== 'tool_call' || !event.call.result) return []
    const { call } = event
    return [{ id: call.id, name: call.name, call, ...(call.result as ToolCallResult) }]
  })
}

export function toolResult(events: readonly TurnEvent[], id: string): EndedCall | undefined {
  return toolResults(events).find((ended) => ended.id === id)
}

/** Each call's states in the order its events told them. */
export function statesOf(events: readonly TurnEvent[], id: string): ToolCallState[] {
  return events.flatMap((event) => (event.type === 'tool_call' && event.call.id === id ? [event.call] : []))
}

/**
 * What running calls reported, in order: each output chunk, and each new count, partial result or
 * image outcome their states brought.
 */
export function progressReports(
  events: readonly TurnEvent[],
  id?: string,
): { id: string; progress: ToolProgress }[] {
  const seen = new Map<string, Set<string>>()
  const reports: { id: string; progress: ToolProgress }[] = []
  for (const event of events) {
    if (event.type === 'tool_output') {
      reports.push({ id: event.callId, progress: event.output })
      continue
    }
    if (event.type !== 'tool_call' || !event.call.progress) continue
    const { counted, partial, images = [] } = event.call.progress
    const known = seen.get(event.call.id) ?? new Set()
    seen.set(event.call.id, known)
    for (const report of [counted, partial, ...images]) {
      if (!report || known.has(JSON.stringify(report))) continue
      known.add(JSON.stringify(report))
      reports.push({ id: event.call.id, progress: report })
    }
  }
  return id === undefined ? reports : reports.filter((report) => report.id === id)
}

/** A message's text parts, joined: a prompt as typed, a response's words (its calls left out). */
export function messageText(message: ChatMessage): string {
  return message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
}
