import { randomUUID } from 'node:crypto'
import type { Chat, MethodRequest } from '../../src-shared/contract'
import { AtelierError } from '../../src-shared/errors'
import type { AtelierEvents } from '../app/events'
import type { ChatsRepository } from '../db/chats-repository'

export const DEFAULT_CHAT_TITLE = 'Untitled chat'

export class ChatService {
  constructor(
    private readonly repository: ChatsRepository,
    private readonly events: AtelierEvents,
    private readonly now: () => number = Date.now,
  ) {}

  list(): Chat[] {
    return this.repository.list()
  }

  create({ title }: MethodRequest<'chats.create'>): Chat {
    const createdAt = this.now()
    const chat: Chat = {
      id: randomUUID(),
      title: title?.trim() || DEFAULT_CHAT_TITLE,
      // A new chat has no folder yet; binding one is what makes agent mode meaningful.
      mode: 'chat',
      workingDir: null,
      createdAt,
      updatedAt: createdAt,
    }
    this.repository.insert(chat)
    this.changed()
    return chat
  }

  /** The chat with this id, created with these settings when there is none (the CLI's `--chat`). */
  ensure(id: string, { workingDir, mode }: Pick<Chat, 'workingDir' | 'mode'>): Chat {
    const createdAt = this.now()
    const chat: Chat = { id, title: DEFAULT_CHAT_TITLE, mode, workingDir, createdAt, updatedAt: createdAt }
    if (!this.repository.insertIfAbsent(chat)) return this.repository.get(id) ?? throwNotFound(id)
    this.changed()
    return chat
  }

  rename({ id, title }: MethodRequest<'chats.rename'>): Chat {
    if (!this.repository.rename(id, title.trim(), this.now())) throw notFound(id)
    this.changed()
    return this.repository.get(id) ?? throwNotFound(id)
  }

  delete({ id }: MethodRequest<'chats.delete'>): { id: string } {
    if (!this.repository.delete(id)) throw notFound(id)
    this.changed()
    return { id }
  }

  private changed(): void {
    this.events.emit('chats.changed', { chats: this.list() })
  }
}

function notFound(id: string): AtelierError {
  return new AtelierError('not_found', `No chat with id "${id}".`, { id })
}

function throwNotFound(id: string): never {
  throw notFound(id)
}
