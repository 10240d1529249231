import type { ChatMessage, Compaction, Turn } from '../../src-shared/agent'
import type { Chat } from '../../src-shared/contract'
import type { ToolCallState } from '../../src-shared/tool-calls'
import type { ChatsRepository } from './chats-repository'
import { callParameters } from './conversation-repository'
import { copiedDecisions, copiedUsage } from './copied-usage'
import type { Database } from './database'

/** A whole conversation to write at once, every id already its own. */
export interface ImportedConversation {
  chat: Chat
  turns: Turn[]
  /** In order: their place is the order they are shown and sent in. */
  messages: ChatMessage[]
  calls: ToolCallState[]
  compactions: Compaction[]
}

/**
 * Writes an imported chat with its whole conversation in one transaction: a file that fails
 * half-way leaves nothing behind. Its usage is marked copied: it was spent by whoever exported it.
 */
export class ChatImports {
  private readonly statements

  constructor(
    private readonly db: Database,
    private readonly chats: ChatsRepository,
  ) {
    this.statements = {
      turn: db.prepare(
        `INSERT INTO turns (id, chat_id, status, error, error_code, pid, owner_start, started_at, ended_at)
         VALUES (@id, @chatId, @status, @error, @errorCode, 0, NULL, @startedAt, @endedAt)`,
      ),
      message: db.prepare(
        `INSERT INTO messages (id, chat_id, turn_id, seq, role, parts, usage, created_at)
         VALUES (@id, @chatId, @turnId, @seq, @role, @parts, @usage, @createdAt)`,
      ),
      call: db.prepare(
        `INSERT INTO tool_calls (turn_id, id, chat_id, name, title, call_index, status, error_type,
           description, decisions, created_at, started_at, ended_at, waited_ms)
         VALUES (@turnId, @id, @chatId, @name, @title, @index, @status, @errorType, @description,
           @decisions, @createdAt, @startedAt, @endedAt, @waitedMs)`,
      ),
      compaction: db.prepare(
        `INSERT INTO compactions (id, chat_id, turn_id, reason, after_message_id, elided_through,
           summarized_through, summary, tokens_before, tokens_after, created_at)
         VALUES (@id, @chatId, @turnId, @reason, @afterMessageId, @elidedThrough, @summarizedThrough,
           @summary, @tokensBefore, @tokensAfter, @createdAt)`,
      ),
    }
  }

  write({ chat, turns, messages, calls, compactions }: ImportedConversation): void {
    this.db.transaction(() => {
      this.chats.insert(chat)
      for (const turn of turns) this.statements.turn.run(turn)
      messages.forEach((message, index) => {
        this.statements.message.run({
          ...message,
          seq: index + 1,
          parts: JSON.stringify(message.parts),
          usage: message.usage ? JSON.stringify(copiedUsage(message.usage)) : null,
        })
      })
      for (const call of calls) {
        this.statements.call.run(callParameters({ ...call, decisions: copiedDecisions(call.decisions) }))
      }
      for (const compaction of compactions) this.statements.compaction.run(compaction)
    })()
  }
}
