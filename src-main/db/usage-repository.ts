import type { ChatUsage, DayUsage, UsageReport, UsageTotal } from '../../src-shared/usage'
import type { Database } from './database'

/** How many chats a report names: the costliest, enough to see where the money went. */
const REPORTED_CHATS = 10

interface TotalRow {
  input_tokens: number | null
  output_tokens: number | null
  cached_tokens: number | null
  cost_usd: number | null
  unpriced: number | null
}

/** The sums over a set of `spent` rows' usage; `cost_usd` is NULL when none of them had a cost. */
const SUMS = `
  coalesce(sum(json_extract(s.usage, '$.inputTokens')), 0) AS input_tokens,
  coalesce(sum(json_extract(s.usage, '$.outputTokens')), 0) AS output_tokens,
  coalesce(sum(json_extract(s.usage, '$.cachedTokens')), 0) AS cached_tokens,
  sum(json_extract(s.usage, '$.costUsd')) AS cost_usd,
  coalesce(sum(json_extract(s.usage, '$.costUsd') IS NULL), 0) AS unpriced`

/**
 * Everything a chat used, by when: its responses, and the completions its MCP servers' approved
 * sampling requests got (kept on the call's decision).
 */
const SPENT = `
  spent (chat_id, created_at, usage) AS (
    SELECT chat_id, created_at, usage FROM messages WHERE usage IS NOT NULL
    UNION ALL
    SELECT c.chat_id, json_extract(d.value, '$.at'), json_extract(d.value, '$.usage')
    FROM tool_calls c, json_each(c.decisions) d WHERE json_extract(d.value, '$.usage') IS NOT NULL
  )`

/** Spent here, not a copy of a response spent in another chat or by someone else (see Usage.copied). */
const SPENT_HERE = `json_extract(s.usage, '$.copied') IS NULL`

/** Every chat with the top-level chat it belongs to (itself, or the chat whose subagent it ran). */
const ROOTS = `
  roots (id, root) AS (
    SELECT id, id FROM chats WHERE parent_chat_id IS NULL
    UNION ALL
    SELECT chats.id, roots.root FROM chats JOIN roots ON chats.parent_chat_id = roots.id
  )`

function toTotal(row: TotalRow | undefined): UsageTotal {
  return {
    inputTokens: row?.input_tokens ?? 0,
    outputTokens: row?.output_tokens ?? 0,
    ...(row?.cached_tokens && { cachedTokens: row.cached_tokens }),
    ...(row?.cost_usd != null && { costUsd: row.cost_usd }),
    ...(row?.unpriced && { unpricedResponses: row.unpriced }),
  }
}

/**
 * Tokens and costs added up from the usage kept on each response (a message's `usage`) and on each
 * approved sampling request (its call's decision): by chat with its subagents' chats, by day, by
 * period. A chat's figure is its conversation as shown, copies included; a day's, a period's and the
 * costliest chats' leave copies out, so what was spent once counts once. Read-only.
 */
export class UsageRepository {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      chat: db.prepare<[string], TotalRow>(
        `WITH RECURSIVE family (id) AS (
           SELECT ? UNION ALL SELECT chats.id FROM chats JOIN family ON chats.parent_chat_id = family.id
         ), ${SPENT}
         SELECT ${SUMS} FROM spent s WHERE s.chat_id IN family`,
      ),
      days: db.prepare<[number], TotalRow & { day: string }>(
        `WITH ${SPENT}
         SELECT date(s.created_at / 1000, 'unixepoch', 'localtime') AS day, ${SUMS}
         FROM spent s WHERE ${SPENT_HERE} AND s.created_at >= ?
         GROUP BY day ORDER BY day DESC`,
      ),
      total: db.prepare<[number], TotalRow>(
        `WITH ${SPENT} SELECT ${SUMS} FROM spent s WHERE ${SPENT_HERE} AND s.created_at >= ?`,
      ),
      chats: db.prepare<[number, number], TotalRow & { chat_id: string; title: string }>(
        `WITH RECURSIVE ${ROOTS}, ${SPENT}
         SELECT roots.root AS chat_id, chats.title, ${SUMS}
         FROM spent s JOIN roots ON s.chat_id = roots.id JOIN chats ON chats.id = roots.root
         WHERE ${SPENT_HERE} AND s.created_at >= ?
         GROUP BY roots.root
         ORDER BY cost_usd IS NULL, cost_usd DESC, input_tokens + output_tokens DESC
         LIMIT ?`,
      ),
    }
  }

  /** The last `days` days, today included (from local midnight): per day, the costliest chats, the total. */
  report(days: number, now = new Date()): UsageReport {
    const since = new Date(now.getFullYear(), now.getMonth(), now.getDate() - (days - 1)).getTime()
    return {
      days: this.days(since),
      chats: this.costliestChats(since, REPORTED_CHATS),
      total: this.total(since),
    }
  }

  /** A chat's usage, its subagents' chats (and theirs) included, as the chat shows it: its copied history too. */
  chat(chatId: string): UsageTotal {
    return toTotal(this.statements.chat.get(chatId))
  }

  /** Usage per day since `since` (epoch ms), newest day first; days without any are left out. */
  days(since: number): DayUsage[] {
    return this.statements.days.all(since).map((row) => ({ day: row.day, ...toTotal(row) }))
  }

  /** All usage since `since`. */
  total(since: number): UsageTotal {
    return toTotal(this.statements.total.get(since))
  }

  /** The `limit` chats that cost the most since `since` (then the most tokens), subagents in their parent. */
  costliestChats(since: number, limit: number): ChatUsage[] {
    return this.statements.chats
      .all(since, limit)
      .map((row) => ({ chatId: row.chat_id, title: row.title, ...toTotal(row) }))
  }
}
