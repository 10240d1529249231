/**
 * The session events custom tools hear (`onSession`) at the moments Atelier has them: a chat's
 * first turn (`new`), the first turn in this process of a chat that had turns (`resume`), a fork
 * (`branch`), the app opening another chat (`switch`), each turn's start and end, each message a
 * turn stores, a provider's retry. Compactions are told by the context service; `start` and
 * `shutdown` are each host's own.
 */
import type { CustomToolMessage } from '../../../src-custom-tool/index'
import type { ChatMessage, TurnEvent } from '../../../src-shared/agent'
import type { Unsubscribe } from '../../../src-shared/api'
import type { AtelierEvents } from '../../core/events'
import type { SessionEvent } from './host-protocol'

export interface SessionRelayDeps {
  events: AtelierEvents
  /** The project folder a chat's tools serve (none in chat mode); throws for a chat that is gone. */
  project(chatId: string): string | null
  /** How many turns the chat has, the one starting included. */
  turnCount(chatId: string): number
  /** Where the events go: the custom tools serving the chat's project. */
  notify(project: string | null, event: SessionEvent): void
}

export class CustomToolSessions {
  /** Chats that had a turn in this process: a later turn of theirs is no resume. */
  private readonly active = new Set<string>()
  /** Chats whose provider is retrying now, so the next sign of life ends the retry. */
  private readonly retrying = new Set<string>()
  private lastOpened: string | undefined

  constructor(private readonly deps: SessionRelayDeps) {}

  /** Follows every turn's events until the returned function is called. */
  start(): Unsubscribe {
    return this.deps.events.subscribe((name, payload) => {
      if (name !== 'turns.event') return
      const { chatId, event } = payload as { chatId: string; event: TurnEvent }
      this.turnEvent(chatId, event)
    })
  }

  /** A chat forked from another: `branch`, told to the fork's project. */
  forked(from: string, fork: { id: string }): void {
    this.tell(fork.id, { reason: 'branch', chatId: fork.id, fromChatId: from })
  }

  /** The app shows a chat: `switch` when it is another than the one it showed last. */
  opened(chatId: string): void {
    if (this.lastOpened !== undefined && this.lastOpened !== chatId) {
      this.tell(chatId, { reason: 'switch', chatId })
    }
    this.lastOpened = chatId
  }

  private turnEvent(chatId: string, event: TurnEvent): void {
    if (event.type === 'retry') {
      if (this.retrying.has(chatId)) return
      this.retrying.add(chatId)
      this.tell(chatId, { reason: 'auto_retry_start', chatId })
      return
    }
    if (this.retrying.delete(chatId)) this.tell(chatId, { reason: 'auto_retry_end', chatId })
    switch (event.type) {
      case 'turn_started': {
        if (!this.active.has(chatId)) {
          this.active.add(chatId)
          const reason = this.deps.turnCount(chatId) > 1 ? 'resume' : 'new'
          this.tell(chatId, { reason, chatId })
        }
        this.tell(chatId, { reason: 'turn_start', chatId })
        return
      }
      case 'message':
        this.tell(chatId, { reason: 'message', chatId, message: toolMessage(event.message) })
        return
      case 'turn_completed':
      case 'turn_error':
        this.tell(chatId, { reason: 'turn_end', chatId })
        return
    }
  }

  private tell(chatId: string, event: SessionEvent): void {
    let project: string | null
    try {
      project = this.deps.project(chatId)
    } catch {
      // Deleted meanwhile: nobody's session any more.
      return
    }
    this.deps.notify(project, event)
  }
}

/** A stored message as a module reads it. */
export function toolMessage({ id, role, parts, createdAt }: ChatMessage): CustomToolMessage {
  return { id, role, parts: parts as CustomToolMessage['parts'], createdAt }
}
