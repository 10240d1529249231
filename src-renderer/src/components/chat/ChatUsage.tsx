import type { UsageTotal } from '../../../../src-shared/usage'
import { costText, shortTokens, usageText } from './tokens'

/**
 * What the chat has used so far, its subagents included: its cost where its responses had a price,
 * else its tokens (an unknown price is never guessed). Nothing before the first response.
 */
export function ChatUsage({ usage }: { usage: UsageTotal }) {
  const tokens = usage.inputTokens + usage.outputTokens
  if (tokens === 0) return null
  const shown = costText(usage) ?? `${shortTokens(tokens)} tokens`
  return (
    <span className="chat-usage" title={`This chat, its subagents included: ${usageText(usage)}`}>
      <span className="visually-hidden">Chat usage: </span>
      {shown}
    </span>
  )
}
