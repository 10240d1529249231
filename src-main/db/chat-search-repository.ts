import type { MessageRole } from '../../src-shared/agent'
import { type ChatSearchResult, DEFAULT_SEARCH_RESULTS, type SnippetPiece } from '../../src-shared/contract'
import type { Database } from './database'

interface HitRow {
  chat_id: string
  title: string
  message_id: string
  turn_id: string
  role: MessageRole
  call_id: string | null
  created_at: number
  snippet: string
}

/** Around a match in `snippet()`: control characters, which no prompt or answer is made of. */
const MATCH_START = '\u0002'
const MATCH_END = '\u0003'
/** How many words a snippet holds, the matches among them. */
const SNIPPET_WORDS = 16

/**
 * How many of the newest matches are ranked. Ranking scores every match, and a word in most messages
 * ("the", "file") matches tens of thousands; among the newest few thousand of those the best are as
 * good a result, found in a bounded time. A query with fewer matches is ranked whole.
 */
const RANKED_MATCHES = 2000

/** A character the index's tokenizer (unicode61) keeps in a word: a letter, a digit, a private-use one. */
const WORD_CHARACTER = /[\p{L}\p{N}\p{Co}]/u

/**
 * The words a person typed as an FTS5 query that matches messages holding all of them: each word a
 * quoted string, so nothing typed (quotes, `*`, `-`, `NEAR`, `OR`, parentheses) is read as FTS5
 * syntax and no query can fail to parse; the last word, unless followed by a space, as a prefix,
 * for results while the person is still typing it. Null when nothing typed is a word.
 */
function toMatchQuery(typed: string): string | null {
  const words = typed.split(/\s+/).filter((word) => WORD_CHARACTER.test(word))
  if (words.length === 0) return null
  const quoted = words.map((word) => `"${word.replaceAll('"', '""')}"`)
  const stillTyping = !/\s$/.test(typed)
  return stillTyping ? `${quoted.join(' ')}*` : quoted.join(' ')
}

/** A snippet with its match markers as pieces, its line breaks and runs of spaces as one space. */
function toPieces(snippet: string): SnippetPiece[] {
  const pieces: SnippetPiece[] = []
  for (const [index, text] of snippet.split(new RegExp(`[${MATCH_START}${MATCH_END}]`)).entries()) {
    const flat = text.replace(/\s+/g, ' ')
    // Pieces alternate between outside and inside a match, starting outside.
    if (flat) pieces.push({ text: flat, match: index % 2 === 1 })
  }
  return pieces
}

/**
 * The full-text index of the chats (migration 26; triggers keep it in step with `messages`): the
 * messages that hold every word searched for, best match first (FTS5's bm25 rank), then newest.
 */
export class ChatSearchRepository {
  private readonly search

  constructor(db: Database) {
    // The index ranks and cuts first, so only the results kept are joined and get a snippet.
    this.search = db.prepare<[{ match: string; limit: number }], HitRow>(
      `SELECT chats.id AS chat_id, chats.title, messages.id AS message_id, messages.turn_id, messages.role,
         -- A tool message holds one part, the result of the call it answers.
         CASE messages.role WHEN 'tool' THEN json_extract(messages.parts, '$[0].callId') END AS call_id,
         messages.created_at, hit.snippet
       FROM (
         SELECT rowid, rank,
           snippet(message_search, 0, '${MATCH_START}', '${MATCH_END}', '…', ${SNIPPET_WORDS}) AS snippet
         FROM message_search
         WHERE message_search MATCH @match AND rowid >= coalesce((
           SELECT rowid FROM message_search WHERE message_search MATCH @match
           ORDER BY rowid DESC LIMIT 1 OFFSET ${RANKED_MATCHES - 1}
         ), 0)
         ORDER BY rank LIMIT @limit
       ) AS hit
       JOIN message_search_rows ON message_search_rows.row = hit.rowid
       JOIN messages ON messages.id = message_search_rows.message_id
       JOIN chats ON chats.id = messages.chat_id
       ORDER BY hit.rank, messages.created_at DESC`,
    )
  }

  /** The messages that match what the person typed; none when nothing typed is a word. */
  find({ query, limit = DEFAULT_SEARCH_RESULTS }: { query: string; limit?: number }): ChatSearchResult[] {
    const match = toMatchQuery(query)
    if (match === null) return []
    return this.search.all({ match, limit }).map((row) => ({
      chatId: row.chat_id,
      chatTitle: row.title,
      messageId: row.message_id,
      turnId: row.turn_id,
      role: row.role,
      ...(row.call_id !== null && { callId: row.call_id }),
      createdAt: row.created_at,
      snippet: toPieces(row.snippet),
    }))
  }
}
