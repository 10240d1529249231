import { randomUUID } from 'node:crypto'
import { statSync } from 'node:fs'
import { isAbsolute } from 'node:path'
import type { Chat, MethodRequest } from '../../src-shared/contract'
import { AtelierError } from '../../src-shared/errors'
import type { AtelierEvents } from '../core/events'
import type { ChatsRepository } from '../db/chats-repository'
import type { ConversationForks } from '../db/conversation-forks'

export const DEFAULT_CHAT_TITLE = 'Untitled chat'
/** Long enough to recognise a chat in the sidebar. */
const TITLE_LENGTH = 60

export class ChatService {
  constructor(
    private readonly repository: ChatsRepository,
    private readonly events: AtelierEvents,
    private readonly forks: ConversationForks,
    private readonly now: () => number = Date.now,
  ) {}

  list(): Chat[] {
    return this.repository.list()
  }

  /**
   * A new chat; the CLI binds its folder at once, the UI later (a folder is what makes agent mode).
   * `like` carries over the folder, mode, provider, model and profile of the chat the person was in,
   * so a new chat keeps their place; its approval mode is not carried: more trust is given per chat.
   * A `like` chat that is gone meanwhile (deleted in another window) is no reason to refuse.
   */
  create({
    title,
    like,
    mode = 'chat',
    workingDir = null,
  }: MethodRequest<'chats.create'> & Partial<Pick<Chat, 'mode' | 'workingDir'>>): Chat {
    const place = like === undefined ? undefined : this.repository.get(like)
    // A folder carried over was checked when it was bound; one gone since shows as missing, as in its chat.
    if (workingDir && !place) assertFolder(workingDir)
    const createdAt = this.now()
    const chat: Chat = {
      id: randomUUID(),
      title: title?.trim() || DEFAULT_CHAT_TITLE,
      mode: place?.mode ?? mode,
      workingDir: place ? place.workingDir : workingDir,
      provider: place?.provider ?? null,
      model: place?.model ?? null,
      agent: place?.agent ?? null,
      approvalMode: null,
      createdAt,
      updatedAt: createdAt,
      pinned: false,
      archived: false,
    }
    this.repository.insert(chat)
    this.changed()
    return chat
  }

  /**
   * A subagent's chat, made like its parent (folder, mode, provider, model, approval mode) on the
   * profile the `task` call names. It is not listed, so the list's views are not told of it.
   */
  createChild(
    parent: Chat,
    { callId, agent, title }: { callId: string; agent: string; title: string },
  ): Chat {
    const createdAt = this.now()
    const chat: Chat = {
      ...withoutLineage(parent),
      id: randomUUID(),
      title: title.trim().slice(0, 200) || DEFAULT_CHAT_TITLE,
      agent,
      createdAt,
      updatedAt: createdAt,
      parentChatId: parent.id,
      parentCallId: callId,
      pinned: false,
      archived: false,
    }
    this.repository.insert(chat)
    return chat
  }

  /** The chat with this id, created with these settings when there is none (the CLI's `--chat`). */
  ensure(id: string, { workingDir, mode }: Pick<Chat, 'workingDir' | 'mode'>): Chat {
    const createdAt = this.now()
    const chat: Chat = {
      id,
      title: DEFAULT_CHAT_TITLE,
      mode,
      workingDir,
      provider: null,
      model: null,
      agent: null,
      approvalMode: null,
      createdAt,
      updatedAt: createdAt,
      pinned: false,
      archived: false,
    }
    if (!this.repository.insertIfAbsent(chat)) return this.repository.get(id) ?? throwNotFound(id)
    this.changed()
    return chat
  }

  rename({ id, title }: MethodRequest<'chats.rename'>): Chat {
    if (!this.repository.rename(id, title.trim(), this.now())) throw notFound(id)
    this.changed()
    return this.repository.get(id) ?? throwNotFound(id)
  }

  get(id: string): Chat {
    return this.repository.get(id) ?? throwNotFound(id)
  }

  /** Pinned chats are listed first. */
  pin({ id, pinned }: MethodRequest<'chats.pin'>): Chat {
    if (!this.repository.pin(id, pinned)) throw notFound(id)
    this.changed()
    return this.get(id)
  }

  /** An archived chat is kept whole but left out of the list unless archived chats are asked for. */
  archive({ id, archived }: MethodRequest<'chats.archive'>): Chat {
    if (!this.repository.archive(id, archived)) throw notFound(id)
    this.changed()
    return this.get(id)
  }

  /** The chats forked from this one (Fork from here), oldest first. */
  forksOf(id: string): Chat[] {
    return this.repository.forksOf(id)
  }

  /** Changes what was given; a folder must be an existing directory, named by an absolute path. */
  configure({ id, ...changes }: MethodRequest<'chats.configure'>): Chat {
    const chat = { ...this.get(id), ...changes, updatedAt: this.now() }
    if (changes.workingDir) assertFolder(changes.workingDir)
    this.repository.configure(chat)
    this.changed()
    return chat
  }

  /** A chat still carrying the default title is named after its first prompt. */
  nameAfterPrompt(id: string, prompt: string): void {
    const chat = this.get(id)
    if (chat.title !== DEFAULT_CHAT_TITLE) return
    const firstLine = prompt.trim().split('\n')[0]?.trim() ?? ''
    if (!firstLine) return
    const title =
      firstLine.length > TITLE_LENGTH ? `${firstLine.slice(0, TITLE_LENGTH - 1).trimEnd()}…` : firstLine
    this.repository.rename(id, title, this.now())
    this.changed()
  }

  /**
   * Fork from here: a new chat with the chat's settings (folder, mode, provider, model, profile,
   * approval mode) and copies of its turns through the turn of `messageId`, or through `turnId`
   * (all of them when neither is named). A turn is copied whole, whichever of its messages is named:
   * the model's history is made of whole turns, and a cut inside one could leave a tool call without
   * its result. The fork is titled "… (fork)" and remembers the chat and message it came from; the
   * chat itself is untouched. Refused with `turn_running` for a turn still running.
   */
  fork({ id, turnId, messageId }: Pick<MethodRequest<'chats.fork'>, 'id' | 'turnId' | 'messageId'>): Chat {
    const chat = this.get(id)
    const through = this.forkPoint(id, { turnId, messageId })
    if (through !== undefined && this.forks.isTurnRunning(through)) {
      throw new AtelierError('turn_running', 'This turn is still running: wait for it to end to fork it.', {
        chatId: id,
        turnId: through,
      })
    }
    const at = messageId ?? (through === undefined ? undefined : this.forks.lastMessageOf(through))
    const fork = this.branch(chat.id, 'fork', { chatId: chat.id, ...(at !== undefined && { messageId: at }) })
    if (through !== undefined) this.forks.copyThrough(chat.id, through, fork.id)
    return fork
  }

  /** The turn a fork copies through: the named message's, the named turn, or the last one. */
  private forkPoint(
    id: string,
    { turnId, messageId }: Pick<MethodRequest<'chats.fork'>, 'turnId' | 'messageId'>,
  ): string | undefined {
    if (messageId !== undefined) {
      const turn = this.forks.turnOfMessage(id, messageId)
      if (turn === undefined || (turnId !== undefined && turn !== turnId)) {
        throw new AtelierError('not_found', 'This chat has no such message to fork from.', { id, messageId })
      }
      return turn
    }
    const turns = this.forks.turnIds(id)
    if (turnId !== undefined && !turns.includes(turnId)) {
      throw new AtelierError('not_found', 'This chat has no such turn to fork from.', { id, turnId })
    }
    return turnId ?? turns.at(-1)
  }

  /**
   * An empty chat with a chat's settings, titled after it with why it was made ("before rewind",
   * "earlier version"…): the place a conversation branched off it goes. The caller moves or copies
   * the conversation in. It starts unpinned and in the list, and is a fork of nothing unless told.
   */
  branch(id: string, why: string, forkedFrom?: Chat['forkedFrom']): Chat {
    const chat = withoutLineage(this.get(id))
    const createdAt = this.now()
    const branch: Chat = {
      ...chat,
      id: randomUUID(),
      title: `${chat.title} (${why})`.slice(0, 200),
      createdAt,
      updatedAt: createdAt,
      pinned: false,
      archived: false,
      ...(forkedFrom && { forkedFrom }),
    }
    this.repository.insert(branch)
    this.changed()
    return branch
  }

  /** The chat changed (its conversation): it moves up, and views are told. */
  touch(id: string): void {
    this.repository.rename(id, this.get(id).title, this.now())
    this.changed()
  }

  /**
   * Deletes a chat the person left before writing anything in it: no turn and the default title
   * (a renamed chat was meant to be kept). Checked and deleted in one statement, so a turn starting
   * meanwhile keeps it.
   */
  discardIfEmpty({ id }: MethodRequest<'chats.discardIfEmpty'>): { discarded: boolean } {
    const discarded = this.repository.deleteIfEmpty(id, DEFAULT_CHAT_TITLE)
    if (discarded) this.changed()
    return { discarded }
  }

  delete({ id }: MethodRequest<'chats.delete'>): { id: string } {
    if (!this.repository.delete(id)) throw notFound(id)
    this.changed()
    return { id }
  }

  /** Tells the views the list changed: here, or where a chat is written whole (an import). */
  changed(): void {
    this.events.emit('chats.changed', { chats: this.list() })
  }
}

/** A chat's settings for another chat to start with: what it was forked from is its own. */
function withoutLineage({ forkedFrom: _own, ...chat }: Chat): Omit<Chat, 'forkedFrom'> {
  return chat
}

function assertFolder(path: string): void {
  if (!isAbsolute(path)) {
    throw new AtelierError('invalid_folder', `The folder must be an absolute path, not "${path}".`, { path })
  }
  const stat = statSync(path, { throwIfNoEntry: false })
  if (!stat?.isDirectory()) {
    throw new AtelierError('invalid_folder', `"${path}" is not an existing folder.`, { path })
  }
}

function notFound(id: string): AtelierError {
  return new AtelierError('not_found', `No chat with id "${id}".`, { id })
}

function throwNotFound(id: string): never {
  throw notFound(id)
}
