import { randomUUID } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { Value } from '@sinclair/typebox/value'
import type { ChatMessage, Compaction, MessagePart, Turn } from '../../src-shared/agent'
import {
  CHAT_EXPORT_FORMAT,
  CHAT_EXPORT_VERSION,
  ChatExport,
  type ExportedImage,
} from '../../src-shared/chat-export'
import {
  type Chat,
  type ChatExportFile,
  chatFileTooLarge,
  type MethodRequest,
} from '../../src-shared/contract'
import { AtelierError } from '../../src-shared/errors'
import { isFinished, type ToolCallState } from '../../src-shared/tool-calls'
import type { ChatImports } from '../db/chat-imports'
import { type ConversationRepository, INTERRUPTED } from '../db/conversation-repository'
import { unmarkedDecisions, unmarkedUsage } from '../db/copied-usage'
import { chatMarkdown } from './chat-markdown'
import type { ChatService } from './chat-service'

/** Where the images a chat shows are kept: read for an export, written for an import. */
export interface ChatImages {
  read(path: string): Promise<{ mimeType: string; base64: string }>
  save(chatId: string, data: Buffer, mimeType: string): Promise<{ path: string }>
}

export interface ChatFilesDeps {
  chats: ChatService
  conversation: ConversationRepository
  imports: ChatImports
  images: ChatImages
  /** The Atelier version, written into each export. */
  version: string
  now?: () => number
}

/**
 * What an imported chat starts with whatever its file says, as a new chat does: no folder, so chat
 * mode, and no approval mode of its own. A file is anyone's to write; trust (a folder, full-auto) is
 * only ever given here, by the person, to a chat they see.
 */
const UNTRUSTED = { mode: 'chat', workingDir: null, approvalMode: null } as const satisfies Pick<
  Chat,
  'mode' | 'workingDir' | 'approvalMode'
>

/** Characters of a title kept in an export's file name. */
const FILENAME_LENGTH = 60

/**
 * A chat as a file: exported as JSON (lossless, `ChatExport`) or Markdown (to read), and a JSON
 * export imported back as a new chat.
 */
export class ChatFiles {
  constructor(private readonly deps: ChatFilesDeps) {}

  async export({ id, format }: MethodRequest<'chats.export'>): Promise<ChatExportFile> {
    const exported = await this.exportJson(id)
    const base = fileBase(exported.chat.title)
    return format === 'json'
      ? {
          filename: `${base}.json`,
          mimeType: 'application/json',
          text: `${JSON.stringify(exported, null, 2)}\n`,
        }
      : { filename: `${base}.md`, mimeType: 'text/markdown', text: chatMarkdown(exported) }
  }

  /**
   * The chat and its whole conversation, with the images it shows; an image gone from the data
   * folder is left out (the message still names it).
   */
  async exportJson(id: string): Promise<ChatExport> {
    const { conversation } = this.deps
    const chat = this.deps.chats.get(id)
    const messages = conversation.messages(id)
    const calls = conversation.calls(id)
    const paths = new Set<string>()
    for (const message of messages) {
      mapImagePaths(message.parts, (path) => {
        paths.add(path)
        return path
      })
    }
    const images: ExportedImage[] = []
    for (const path of paths) {
      const image = await this.deps.images.read(path).catch(() => undefined)
      if (image) images.push({ path, ...image })
    }
    return {
      format: CHAT_EXPORT_FORMAT,
      version: CHAT_EXPORT_VERSION,
      exportedAt: (this.deps.now ?? Date.now)(),
      atelier: this.deps.version,
      chat: {
        title: chat.title,
        mode: chat.mode,
        workingDir: chat.workingDir,
        provider: chat.provider,
        model: chat.model,
        agent: chat.agent,
        approvalMode: chat.approvalMode,
        createdAt: chat.createdAt,
        updatedAt: chat.updatedAt,
      },
      turns: conversation.turns(id).map(({ chatId: _chat, toolError: _derived, ...turn }) => ({
        ...turn,
        messages: messages
          .filter((message) => message.turnId === turn.id)
          .map(({ chatId: _in, turnId: _of, usage, ...message }) => ({
            ...message,
            ...(usage && { usage: unmarkedUsage(usage) }),
          })),
        calls: calls
          .filter((call) => call.turnId === turn.id)
          .map(({ chatId: _in, turnId: _of, decisions, ...call }) => ({
            ...call,
            decisions: unmarkedDecisions(decisions),
          })),
      })),
      compactions: conversation.compactions(id).map(({ chatId: _chat, ...compaction }) => compaction),
      images,
    }
  }

  /** `chats.import`: a new chat from a JSON export's text the app sent, at most MAX_CHAT_IMPORT_CHARS. */
  async import({ text }: MethodRequest<'chats.import'>): Promise<Chat> {
    const tooLarge = chatFileTooLarge(text.length)
    if (tooLarge) throw new AtelierError('invalid_chat_file', tooLarge, { chars: text.length })
    return this.importText(text)
  }

  /** A new chat from a JSON export's text of any size (the CLI reads the file itself); see `importExport`. */
  async importText(text: string): Promise<Chat> {
    let data: unknown
    try {
      data = JSON.parse(text)
    } catch (error) {
      throw invalidFile(`it is not complete JSON (${(error as Error).message}); was it cut short?`)
    }
    return this.importExport(data)
  }

  /**
   * A new chat holding the export's conversation, every turn, message and compaction under a new
   * id, without the folder, mode and approval mode the file names (`UNTRUSTED`). The file is
   * checked whole against `ChatExport` before anything is written, and the chat is written in one
   * transaction; its images are saved first and removed again if that fails.
   */
  async importExport(data: unknown): Promise<Chat> {
    const file = checked(data)
    const chatId = randomUUID()
    const ids = new Map<string, string>()
    // Each turn and message gets a new id once; one named twice would write over another.
    const newId = (old: string) => {
      if (ids.has(old)) throw invalidFile(`"${old}" names two of its turns or messages.`)
      const id = randomUUID()
      ids.set(old, id)
      return id
    }
    const turns: Turn[] = []
    const messages: ChatMessage[] = []
    const calls: ToolCallState[] = []
    for (const { messages: turnMessages, calls: turnCalls, ...turn } of file.turns) {
      const turnId = newId(turn.id)
      // A turn running when it was exported ran in another process: here it reads as cut off.
      const running = turn.status === 'running'
      turns.push({
        ...turn,
        id: turnId,
        chatId,
        // Not stored: read from the turn's calls, as the database does.
        toolError: turnCalls.some((call) => call.status === 'failed' || call.status === 'cancelled'),
        ...(running && { status: 'interrupted', error: INTERRUPTED.message, errorCode: INTERRUPTED.code }),
      })
      for (const message of turnMessages) messages.push({ ...message, id: newId(message.id), chatId, turnId })
      for (const call of turnCalls) {
        const cutOff = running && !isFinished(call.status)
        calls.push({
          ...call,
          chatId,
          turnId,
          ...(cutOff && { status: 'failed', errorType: 'interrupted' }),
        })
      }
    }
    const known = (old: string | null) => {
      if (old === null) return null
      const id = ids.get(old)
      if (id === undefined)
        throw invalidFile(`a compaction names "${old}", which is not a turn or message of it.`)
      return id
    }
    const compactions: Compaction[] = file.compactions.map((compaction) => ({
      ...compaction,
      id: randomUUID(),
      chatId,
      turnId: known(compaction.turnId),
      afterMessageId: known(compaction.afterMessageId) as string,
      elidedThrough: known(compaction.elidedThrough),
      summarizedThrough: known(compaction.summarizedThrough),
    }))
    // An image is named only by the path the file carries it under: any other path would be a file
    // of this machine, and an attached image's file is sent to the provider with the next turn.
    const carried = new Set(file.images.map((image) => image.path))
    for (const message of messages) {
      mapImagePaths(message.parts, (path) => {
        if (!carried.has(path))
          throw invalidFile(`a message names the image "${path}", which it does not carry.`)
        return path
      })
    }
    const chat: Chat = { ...file.chat, ...UNTRUSTED, id: chatId, pinned: false, archived: false }
    const saved: string[] = []
    try {
      const paths = new Map<string, string>()
      for (const image of file.images) {
        const { path } = await this.deps.images.save(
          chatId,
          Buffer.from(image.base64, 'base64'),
          image.mimeType,
        )
        saved.push(path)
        paths.set(image.path, path)
      }
      for (const message of messages) {
        message.parts = mapImagePaths(message.parts, (path) => paths.get(path) as string)
      }
      this.deps.imports.write({ chat, turns, messages, calls, compactions })
    } catch (error) {
      await Promise.all(saved.map((path) => rm(path, { force: true })))
      throw error
    }
    this.deps.chats.changed()
    return this.deps.chats.get(chatId)
  }
}

/** The data as a chat export, or why it is not one, said from the outside in. */
function checked(data: unknown): ChatExport {
  const { format, version } = (typeof data === 'object' && data !== null ? data : {}) as Record<
    string,
    unknown
  >
  if (format !== CHAT_EXPORT_FORMAT) throw invalidFile('it is not an Atelier chat export.')
  if (version !== CHAT_EXPORT_VERSION) {
    throw invalidFile(
      `it is version ${String(version)} of the format; this Atelier reads version ${CHAT_EXPORT_VERSION}.`,
    )
  }
  const error = Value.Errors(ChatExport, data).First()
  if (error) throw invalidFile(`${error.path || '/'}: ${error.message}.`, { path: error.path })
  return data as ChatExport
}

function invalidFile(why: string, data: Record<string, unknown> = {}): AtelierError {
  return new AtelierError('invalid_chat_file', `This file cannot be imported as a chat: ${why}`, data)
}

/**
 * The parts with each image path (an attached image, a result's saved image) replaced by what
 * `map` makes of it; parts without one are returned as they are.
 */
function mapImagePaths(parts: MessagePart[], map: (path: string) => string): MessagePart[] {
  return parts.map((part) => {
    if (part.type === 'attachment' && part.attachment.kind === 'image') {
      return { ...part, attachment: { ...part.attachment, path: map(part.attachment.path) } }
    }
    if (part.type === 'tool_result' && part.display?.kind === 'images') {
      const images = part.display.images.map((image) =>
        'path' in image ? { ...image, path: map(image.path) } : image,
      )
      return { ...part, display: { ...part.display, images } }
    }
    return part
  })
}

/** A file name made of the title: letters, digits and dashes, never empty. */
function fileBase(title: string): string {
  const base = title
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, FILENAME_LENGTH)
    .replace(/-+$/, '')
  return base || 'chat'
}
