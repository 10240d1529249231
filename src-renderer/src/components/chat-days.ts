import type { Chat } from '../../../src-shared/contract'

/** Chats started in one stretch of days, under the heading the sidebar shows for it. */
export interface ChatDay {
  label: string
  chats: Chat[]
}

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * The chats (newest first, as listed) under the day they started: Today, Yesterday, Previous 7
 * days, Previous 30 days, then month by month. Days are the person's own, at local midnight.
 */
export function groupByDay(chats: readonly Chat[], now: Date = new Date()): ChatDay[] {
  const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime()
  const month = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric' })
  const labelOf = (startedAt: number): string => {
    if (startedAt >= midnight) return 'Today'
    if (startedAt >= midnight - DAY_MS) return 'Yesterday'
    if (startedAt >= midnight - 7 * DAY_MS) return 'Previous 7 days'
    if (startedAt >= midnight - 30 * DAY_MS) return 'Previous 30 days'
    return month.format(startedAt)
  }
  const days: ChatDay[] = []
  for (const chat of chats) {
    const label = labelOf(chat.createdAt)
    const last = days.at(-1)
    if (last?.label === label) last.chats.push(chat)
    else days.push({ label, chats: [chat] })
  }
  return days
}
