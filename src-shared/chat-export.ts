/**
 * A chat as a file to keep or hand on: the JSON `chats.export` writes and `chats.import` reads back
 * (lossless), and the Markdown export for people. The JSON carries the conversation as the database
 * keeps it — every part, providers' own items, usage, the calls' states — with the images it shows
 * inline; it leaves out what belongs to this machine's history of the folder (checkpoints) and the
 * subagents' own chats.
 */
import { type Static, Type } from '@sinclair/typebox'
import { ChatMessage, Compaction, Turn } from './agent'
import { Chat } from './contract'
import { ToolCallState } from './tool-calls'

/** What the JSON says it is, so another file is told apart from a chat export at once. */
export const CHAT_EXPORT_FORMAT = 'atelier-chat'
/** Raised when the shape changes in a way an older Atelier cannot read. */
export const CHAT_EXPORT_VERSION = 1

/** A message without the chat and turn it belongs to: its place in the file says that. */
export const ExportedMessage = Type.Omit(ChatMessage, ['chatId', 'turnId'])
export type ExportedMessage = Static<typeof ExportedMessage>

export const ExportedCall = Type.Omit(ToolCallState, ['chatId', 'turnId'])
export type ExportedCall = Static<typeof ExportedCall>

/** A turn with its messages (in order) and its calls' last states; their results are in the messages. */
export const ExportedTurn = Type.Composite([
  Type.Omit(Turn, ['chatId', 'toolError']),
  Type.Object({ messages: Type.Array(ExportedMessage), calls: Type.Array(ExportedCall) }),
])
export type ExportedTurn = Static<typeof ExportedTurn>

/** A compaction; `turnId` and its message ids name turns and messages of the same file. */
export const ExportedCompaction = Type.Omit(Compaction, ['chatId'])
export type ExportedCompaction = Static<typeof ExportedCompaction>

/** An image a message shows by its path under Atelier's data folder, carried in the file. */
export const ExportedImage = Type.Object({
  /** The path the messages name it by; an import saves it anew and names it by the new path. */
  path: Type.String(),
  mimeType: Type.String(),
  base64: Type.String(),
})
export type ExportedImage = Static<typeof ExportedImage>

/**
 * The chat's own settings; its id, list state (pinned, archived) and fork link stay with this
 * machine's copy. Its folder, mode and approval mode are for reading: an import gives them no trust.
 */
export const ExportedChat = Type.Composite([
  Type.Pick(Chat, [
    'mode',
    'workingDir',
    'provider',
    'model',
    'agent',
    'approvalMode',
    'createdAt',
    'updatedAt',
  ]),
  // As a title the person could have typed: an empty one would make a chat nobody can find.
  Type.Object({ title: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }) }),
])
export type ExportedChat = Static<typeof ExportedChat>

/** The JSON export of a chat: `chats.import` takes exactly this, checked against it. */
export const ChatExport = Type.Object({
  format: Type.Literal(CHAT_EXPORT_FORMAT),
  version: Type.Literal(CHAT_EXPORT_VERSION),
  exportedAt: Type.Number({ description: 'Unix epoch milliseconds' }),
  /** The Atelier version that wrote it. */
  atelier: Type.String(),
  chat: ExportedChat,
  turns: Type.Array(ExportedTurn),
  compactions: Type.Array(ExportedCompaction),
  images: Type.Array(ExportedImage),
})
export type ChatExport = Static<typeof ChatExport>
