/**
 * The one contract between the renderer and the main process. Electron IPC, the web host's
 * WebSocket and the renderer's types all derive from these two maps: adding a method means adding
 * one entry here and one handler in `src-main/ipc/handlers.ts`.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox'
import {
  ChatMessage,
  ChatMode,
  Compaction,
  ContextStatus,
  MessageRole,
  ProviderKind,
  Turn,
  TurnEvent,
} from './agent'
import { ApprovalMode, PermissionRule, RuleAction, RuleScope, RuleText } from './approvals'
import { Attachment, MAX_ATTACHMENTS } from './attachments'
import {
  Checkpoint,
  CheckpointChanges,
  CheckpointSettings,
  ConflictChoice,
  RestoreOutcome,
  RestoreScope,
  SnapshotProgress,
} from './checkpoints'
import {
  CodeIntelligenceSettings,
  CustomLanguageServer,
  LanguageServerInfo,
  LanguageServerState,
  LanguageServerTest,
} from './code-intelligence'
import { SlashCommand } from './commands'
import { CustomToolLog, CustomToolsInfo } from './custom-tools'
import { HookEntry, HookEvent, HookImport, HookRun, HookScope } from './hooks'
import { InstructionFileInfo, InstructionSettings } from './instructions'
import { McpServerInfo, McpServerInput, McpServerStatus, McpSignIn } from './mcp'
import { McpGetPromptRequest, McpRenderedPrompt, McpServerPrompts, McpServerResources } from './mcp-catalog'
import { NotificationSettings } from './notifications'
import { ModelPrice, ModelPriceEntry } from './prices'
import {
  AgentProfile,
  CreateAgentProfileBody,
  CreateProviderBody,
  DetectedServer,
  ProviderInfo,
  ProvidersList,
  ProviderTestResult,
  TestProviderBody,
  UpdateAgentProfileBody,
  UpdateProviderBody,
} from './providers'
import { Answer } from './questions'
import { SandboxInfo, SandboxSettings } from './sandbox'
import { ToolCallResult, ToolCallState } from './tool-calls'
import { BrokerInfo, BrokerInput, ToolServiceInfo } from './tool-services'
import { ToolSettingsDescriptor, ToolSettingsListResponse, UpdateToolSettingsBody } from './tools'
import { UsageReport, UsageTotal } from './usage'
import { SEARCH_ENGINES } from './web-search'

export { ChatMode }

const Id = Type.String({ minLength: 1, maxLength: 100 })
const Title = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' })
const Empty = Type.Object({}, { additionalProperties: false })

export const Chat = Type.Object({
  id: Type.String(),
  title: Type.String(),
  /** `agent`: tools work in the bound folder; `chat`: the folder is not injected. */
  mode: ChatMode,
  workingDir: Type.Union([Type.String(), Type.Null()]),
  /** Provider id; null: the first one set up. */
  provider: Type.Union([Type.String(), Type.Null()]),
  /** null: the provider's default model. */
  model: Type.Union([Type.String(), Type.Null()]),
  /** Agent profile id; null: the built-in default. */
  agent: Type.Union([Type.String(), Type.Null()]),
  /** What runs without asking; null: the agent profile's default. */
  approvalMode: Type.Union([ApprovalMode, Type.Null()]),
  createdAt: Type.Number({ description: 'Unix epoch milliseconds' }),
  updatedAt: Type.Number({ description: 'Unix epoch milliseconds' }),
  /**
   * A subagent's chat: the chat whose `task` call ran it, and that call. Such a chat is hidden from
   * the chat list; its conversation opens from the task's card.
   */
  parentChatId: Type.Optional(Type.String()),
  parentCallId: Type.Optional(Type.String()),
  /** Listed before the others. */
  pinned: Type.Boolean(),
  /** Left out of the chat list, which shows it only when asked for the archived chats. */
  archived: Type.Boolean(),
  /**
   * A fork (Fork from here): the chat it was forked from and the message it was forked at (none
   * for a chat forked before it had any). The source may be gone since: the fork stays.
   */
  forkedFrom: Type.Optional(Type.Object({ chatId: Type.String(), messageId: Type.Optional(Type.String()) })),
})
export type Chat = Static<typeof Chat>

/** How many results a search returns at most, and when the request names no number. */
export const MAX_SEARCH_RESULTS = 200
export const DEFAULT_SEARCH_RESULTS = 30

/** A piece of a search result's snippet; `match`: it is (part of) a word the person searched for. */
export const SnippetPiece = Type.Object({ text: Type.String(), match: Type.Boolean() })
export type SnippetPiece = Static<typeof SnippetPiece>

/** A message that matched a search: where it is, and the words around the match. */
export const ChatSearchResult = Type.Object({
  chatId: Type.String(),
  chatTitle: Type.String(),
  messageId: Type.String(),
  turnId: Type.String(),
  /** `user`: a prompt; `assistant`: an answer or the calls it made; `tool`: a call's result. */
  role: MessageRole,
  /** A tool's result: the call it answers, whose card in the answer that made it shows the result. */
  callId: Type.Optional(Type.String()),
  createdAt: Type.Number({ description: 'Unix epoch milliseconds' }),
  /** A few words either side of the match, cut with `…`; plain text, never markup. */
  snippet: Type.Array(SnippetPiece),
})
export type ChatSearchResult = Static<typeof ChatSearchResult>

export const Theme = Type.Union([Type.Literal('system'), Type.Literal('dark'), Type.Literal('light')])
export type Theme = Static<typeof Theme>

/** How many model responses one turn may take before it stops and says so. */
export const MaxIterations = Type.Integer({ minimum: 1, maximum: 500 })
export const CompactionThreshold = Type.Integer({ minimum: 10, maximum: 95 })

/** Folder-relative globs that ask before any edit, in every mode, unless a rule names them. */
export const ProtectedPaths = Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { maxItems: 200 })

export const Preferences = Type.Object({
  theme: Theme,
  maxIterations: MaxIterations,
  protectedPaths: ProtectedPaths,
  /** Custom tool files or folders beyond the usual ones; `~` expanded, relative ones against the project. */
  customToolPaths: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 100 }),
  /** A request estimated past this share of the model's context window is compacted first. */
  compactionThresholdPercent: CompactionThreshold,
  /** How the agent's commands are confined by the operating system. */
  sandbox: SandboxSettings,
  /** Snapshots of the bound folder around the agent's changes, and how long they are kept. */
  checkpoints: CheckpointSettings,
  /** The project's instruction files: which names, and how much of them in all. */
  instructions: InstructionSettings,
  /** How deep subagents go: 1, a subagent cannot start its own; 2, it can (theirs cannot). */
  subagentDepth: Type.Union([Type.Literal(1), Type.Literal(2)]),
  /** Language servers: which run, how long an edit waits for their diagnostics, the person's own. */
  codeIntelligence: CodeIntelligenceSettings,
  /** Which turn events raise a desktop notification while the window is not in front. */
  notifications: NotificationSettings,
})
export type Preferences = Static<typeof Preferences>

export const AppInfo = Type.Object({
  name: Type.String(),
  version: Type.String(),
  dataDir: Type.String(),
  /** The person's home folder, which the renderer shows as `~` in paths. */
  home: Type.String(),
})
export type AppInfo = Static<typeof AppInfo>

function method<Request extends TSchema, Response extends TSchema>(request: Request, response: Response) {
  return { request, response }
}

const FolderPath = Type.String({ minLength: 1, maxLength: 4096 })
/** Where a hook is kept: the person's file, or the project's at `folder`. */
const HookPlace = { scope: HookScope, folder: Type.Optional(FolderPath) }
const HookId = Type.String({ minLength: 1, maxLength: 200 })
const HookMatcher = Type.String({ maxLength: 1000 })
const HookCommandLine = Type.String({ minLength: 1, maxLength: 10_000, pattern: '\\S' })
/** Seconds. */
const HookTimeout = Type.Number({ exclusiveMinimum: 0, maximum: 3600 })

/** The most files one folder listing carries: enough to recognise a project, few enough to send at once. */
export const FOLDER_FILE_LIMIT = 500

export const FolderListing = Type.Object({
  path: Type.String(),
  parent: Type.Union([Type.String(), Type.Null()]),
  folders: Type.Array(Type.Object({ name: Type.String(), path: Type.String() })),
  home: Type.String(),
  /** The folder's other entries (files, links), so a person recognises it; at most FOLDER_FILE_LIMIT. */
  files: Type.Array(Type.Object({ name: Type.String() })),
  /** How many files the folder holds in all; more than `files` when the listing was cut. */
  fileCount: Type.Integer({ minimum: 0 }),
})
export type FolderListing = Static<typeof FolderListing>

/** The most files one `folders.files` answer lists. */
export const MAX_FOLDER_FILES = 50

export const FolderFiles = Type.Object({
  /** Relative to the chat's folder, with `/` separators. */
  files: Type.Array(Type.String()),
  /** The folder holds more files than were walked (the listing stops at a cap). */
  partial: Type.Boolean(),
  /** The chat's folder is gone (deleted, moved, not mounted): why `files` is empty. */
  folderMissing: Type.Optional(Type.Literal(true)),
})
export type FolderFiles = Static<typeof FolderFiles>

/** What the model would receive from one tool call, and what only the UI sees. */
export const ToolRunResult = ToolCallResult
export type ToolRunResult = ToolCallResult

/**
 * Which web search a chat's turns have: `hosted`, the provider's own (switched on in its settings);
 * `tool`, the web_search tool with the engine it is set to; `none`, neither.
 */
export const WebSearchInEffect = Type.Union([
  Type.Object({ kind: Type.Literal('hosted') }),
  Type.Object({
    kind: Type.Literal('tool'),
    engine: Type.Union(SEARCH_ENGINES.map((engine) => Type.Literal(engine))),
  }),
  Type.Object({ kind: Type.Literal('none') }),
])
export type WebSearchInEffect = Static<typeof WebSearchInEffect>

/** The exact tool list a chat's next turn sends, in its provider's wire format. */
export const Capabilities = Type.Object({
  provider: Type.Object({ kind: ProviderKind, name: Type.String() }),
  model: Type.String(),
  webSearch: WebSearchInEffect,
  tools: Type.Array(
    Type.Object({
      name: Type.String(),
      tokens: Type.Number(),
      wire: Type.Unknown(),
      /** The MCP server a tool comes from; absent for built-ins. */
      server: Type.Optional(Type.String()),
      /** The tool service a tool comes from. */
      service: Type.Optional(Type.String()),
      /** The custom tool module a tool comes from. */
      module: Type.Optional(Type.String()),
    }),
  ),
  /** Estimated at four characters a token, as the wire JSON goes out. */
  totalTokens: Type.Number(),
  /** The enabled MCP servers as connecting them for this view went; failed or unapproved ones say why. */
  servers: Type.Array(McpServerStatus),
  /** The project's instruction files the system prompt carries, in its order. */
  instructions: Type.Array(InstructionFileInfo),
  /** The language servers that serve this chat's folder (diagnostics after edits, the code tools), and how each is. */
  languageServers: Type.Optional(
    Type.Array(Type.Object({ id: Type.String(), name: Type.String(), state: LanguageServerState })),
  ),
})
export type Capabilities = Static<typeof Capabilities>

/**
 * The longest file `chats.import` takes as text: 64 Mi characters, room for a chat with many
 * screenshots inline (an export carries its images as base64). The desktop app's IPC carries that
 * much; the web host's messages stop sooner (`MAX_REQUEST_BYTES`: it reads up to 16 at once), and
 * its bridge says so. The CLI reads a file of any size. Checked by `chats.import` itself, not its
 * schema, so a file too large is refused as a chat file (`chatFileTooLarge`), not as a bad request.
 */
export const MAX_CHAT_IMPORT_CHARS = 64 * 1024 * 1024

/** Why a chat file of this many characters is not imported through the app; undefined when it is. */
export function chatFileTooLarge(chars: number): string | undefined {
  if (chars <= MAX_CHAT_IMPORT_CHARS) return undefined
  const megabytes = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MB`
  return `This file cannot be imported as a chat: it is ${megabytes(chars)}, and the app imports chat files up to ${megabytes(MAX_CHAT_IMPORT_CHARS)}. \`atelier chats import FILE\` takes it whatever its size.`
}

/** `json`: lossless, for `chats.import` (its shape is `ChatExport`, src-shared/chat-export.ts); `markdown`: to read. */
export const ChatExportFormat = Type.Union([Type.Literal('json'), Type.Literal('markdown')])
export type ChatExportFormat = Static<typeof ChatExportFormat>

/** An exported chat, ready to be saved as a file. */
export const ChatExportFile = Type.Object({
  /** A file name made of the chat's title, with its extension. */
  filename: Type.String(),
  mimeType: Type.String(),
  text: Type.String(),
})
export type ChatExportFile = Static<typeof ChatExportFile>

/** A turn started on a branch: the new turn, and the chat the turns it replaced were moved to. */
const BranchedTurn = Type.Object({ turnId: Type.String(), fork: Chat })

/** Request/response methods, named `namespace.action`; `window.atelier.namespace.action(request)`. */
export const methods = {
  'app.info': method(Empty, AppInfo),
  'chats.list': method(Empty, Type.Array(Chat)),
  /** A new chat; `like` names the chat whose folder, mode, provider, model and profile it starts with. */
  'chats.create': method(
    Type.Object({ title: Type.Optional(Title), like: Type.Optional(Id) }, { additionalProperties: false }),
    Chat,
  ),
  'chats.rename': method(Type.Object({ id: Id, title: Title }, { additionalProperties: false }), Chat),
  'chats.delete': method(
    Type.Object({ id: Id }, { additionalProperties: false }),
    Type.Object({ id: Type.String() }),
  ),
  /**
   * Fork from here: a new chat with the chat's settings and copies of its turns through the turn of
   * `messageId` (any message of it: the prompt, an answer, a tool result) or through `turnId` (the
   * whole conversation when neither is named); the chat is untouched. `restoreFiles` also sets the
   * folder back, from its checkpoints, to how it was when that turn ended (`restore` says what it
   * did). Refused with `not_found` for a turn or message it does not have, `turn_running` for a
   * turn still running.
   */
  'chats.fork': method(
    Type.Object(
      {
        id: Id,
        turnId: Type.Optional(Id),
        messageId: Type.Optional(Id),
        restoreFiles: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
    Type.Object({ chat: Chat, restore: Type.Optional(RestoreOutcome) }),
  ),
  /** Pins a chat to the top of the list, or unpins it. */
  'chats.pin': method(Type.Object({ id: Id, pinned: Type.Boolean() }, { additionalProperties: false }), Chat),
  /** Archives a chat (out of the list, kept whole), or brings it back. */
  'chats.archive': method(
    Type.Object({ id: Id, archived: Type.Boolean() }, { additionalProperties: false }),
    Chat,
  ),
  /**
   * The chat as a file: `json`, lossless (every part, provider items, usage, its images inline; see
   * `ChatExport`), which `chats.import` reads back; `markdown`, for people to read.
   */
  'chats.export': method(
    Type.Object({ id: Id, format: ChatExportFormat }, { additionalProperties: false }),
    ChatExportFile,
  ),
  /**
   * A new chat from a `chats.export` JSON file's text. A file that is not one (malformed, cut short,
   * of another version, longer than MAX_CHAT_IMPORT_CHARS) is refused with `invalid_chat_file`, and
   * nothing is created.
   */
  'chats.import': method(
    Type.Object({ text: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    Chat,
  ),
  /**
   * Every chat's prompts, answers and tool calls (arguments and results) searched for the words of
   * `query`, the last one as a prefix; best match first, then newest. A subagent's own chat is not
   * searched: its report is, as its task call's result.
   */
  'chats.search': method(
    Type.Object(
      {
        query: Type.String({ maxLength: 1000 }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SEARCH_RESULTS })),
      },
      { additionalProperties: false },
    ),
    Type.Object({ results: Type.Array(ChatSearchResult) }),
  ),
  /** The person left the chat: it is deleted if it is still empty and untitled, kept otherwise. */
  'chats.discardIfEmpty': method(
    Type.Object({ id: Id }, { additionalProperties: false }),
    Type.Object({ discarded: Type.Boolean() }),
  ),
  /** Binds a folder, switches mode, provider, model or agent profile. */
  'chats.configure': method(
    Type.Object(
      {
        id: Id,
        mode: Type.Optional(ChatMode),
        workingDir: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()])),
        provider: Type.Optional(Type.Union([Id, Type.Null()])),
        model: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
        agent: Type.Optional(Type.Union([Id, Type.Null()])),
        approvalMode: Type.Optional(Type.Union([ApprovalMode, Type.Null()])),
      },
      { additionalProperties: false },
    ),
    Chat,
  ),
  /**
   * The conversation: its prompts and responses, every turn with its outcome, and every tool call
   * with its state and result (a running turn's calls as they are now, a waiting question included).
   */
  'chats.messages': method(
    Type.Object({ id: Id }, { additionalProperties: false }),
    Type.Object({
      messages: Type.Array(ChatMessage),
      turns: Type.Array(Turn),
      compactions: Type.Array(Compaction),
      calls: Type.Array(ToolCallState),
    }),
  ),
  /** How full the chat's context is for its next request (the header's gauge). */
  'chats.context': method(Type.Object({ id: Id }, { additionalProperties: false }), ContextStatus),
  /**
   * "Compact now": summarizes all but the latest turn with the chat's provider and model. Null when
   * there is too little to compact; refused while a turn runs.
   */
  'chats.compact': method(
    Type.Object({ id: Id }, { additionalProperties: false }),
    Type.Object({ compaction: Type.Union([Compaction, Type.Null()]) }),
  ),
  /**
   * The tools the chat's next turn would send, as its provider receives them. It prepares as a turn
   * does — connects the enabled MCP servers and the broker, loads the custom tool folders — because
   * the person opened the inspector to see exactly that.
   */
  'chats.capabilities': method(Type.Object({ id: Id }, { additionalProperties: false }), Capabilities),
  /** The project's instruction files (AGENTS.md…) the chat's next turn carries; reads files, connects nothing. */
  'chats.instructions': method(
    Type.Object({ id: Id }, { additionalProperties: false }),
    Type.Object({ files: Type.Array(InstructionFileInfo) }),
  ),
  /**
   * A folder's sub-folders (and its first files, to recognise it by), for the web host's folder
   * browser (a browser cannot pick local paths).
   */
  'folders.list': method(
    Type.Object({ path: Type.Optional(FolderPath) }, { additionalProperties: false }),
    FolderListing,
  ),
  /** Folders recently bound to chats, newest first. */
  'folders.recent': method(Empty, Type.Array(Type.String())),
  /** The OS folder dialog; refused with `unsupported` outside the desktop app. */
  'folders.pick': method(Empty, Type.Object({ path: Type.Union([Type.String(), Type.Null()]) })),
  /**
   * Files of a chat's bound folder for the composer's `@` menu, best fuzzy match first (all files in
   * walk order for an empty query); .gitignore and the path policy apply as for the search tools.
   * A chat without a folder has none.
   */
  'folders.files': method(
    Type.Object(
      {
        chatId: Id,
        query: Type.String({ maxLength: 500 }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_FOLDER_FILES })),
      },
      { additionalProperties: false },
    ),
    FolderFiles,
  ),
  /**
   * Whether a chat's bound folder is gone (deleted, moved, on a drive not mounted), in which case
   * its tools are refused with `folder_missing` until it is bound again. False without a folder.
   */
  'folders.status': method(
    Type.Object({ chatId: Id }, { additionalProperties: false }),
    Type.Object({ missing: Type.Boolean() }),
  ),
  /**
   * The tool playground: one call through the full executor, exactly as a turn would make it.
   * `runId`, chosen by the caller, is what `tools.stop` stops.
   */
  'tools.run': method(
    Type.Object(
      {
        name: Id,
        arguments: Type.String({ maxLength: 1_000_000 }),
        workingDir: Type.Union([FolderPath, Type.Null()]),
        mode: ChatMode,
        runId: Type.Optional(Id),
      },
      { additionalProperties: false },
    ),
    ToolRunResult,
  ),
  /** Stops a playground call, as the stop button stops a turn's; it ends as `aborted`. */
  'tools.stop': method(
    Type.Object({ runId: Id }, { additionalProperties: false }),
    Type.Object({ stopped: Type.Boolean() }),
  ),
  /** A generated image, for showing in the chat; only files under the data folder's images. */
  'images.read': method(
    Type.Object({ path: Type.String({ minLength: 1, maxLength: 4096 }) }, { additionalProperties: false }),
    Type.Object({ mimeType: Type.String(), base64: Type.String() }),
  ),
  /** Starts a turn; its events arrive as `turns.event`. Refused with `turn_running` while one runs. */
  'turns.start': method(
    Type.Object(
      {
        chatId: Id,
        prompt: Type.String({ minLength: 1, maxLength: 1_000_000 }),
        /** Read when the turn starts, into the prompt's message; one that cannot be read refuses the send. */
        attachments: Type.Optional(Type.Array(Attachment, { maxItems: MAX_ATTACHMENTS })),
      },
      { additionalProperties: false },
    ),
    Type.Object({ turnId: Type.String() }),
  ),
  /**
   * The chat's slash commands for the composer's `/` menu: the built-ins, a trusted project's and the
   * person's own. A prompt that starts with one's `/name` is expanded by `turns.start` itself.
   */
  'commands.list': method(
    Type.Object({ chatId: Id }, { additionalProperties: false }),
    Type.Array(SlashCommand),
  ),
  /**
   * Retry (issue 19, item 2): runs the chat's latest turn again when it failed or was interrupted,
   * with the prompt it already stored — nothing new is written, so the model gets the prompt once.
   * Refused with `nothing_to_retry` when the latest turn did not fail, `turn_running` while one runs.
   */
  'turns.retry': method(
    Type.Object({ chatId: Id }, { additionalProperties: false }),
    Type.Object({ turnId: Type.String() }),
  ),
  /**
   * Edit and resend: the chat goes on from before the prompt of `turnId` with `prompt` (what that
   * prompt attached is sent again with it). That turn and the later ones are kept in a new chat
   * (`fork`), as a rewind keeps them; the folder stays as it is. Refused with `not_found`,
   * `turn_running` while a turn runs, and as `turns.start` is.
   */
  'turns.edit': method(
    Type.Object(
      { chatId: Id, turnId: Id, prompt: Type.String({ minLength: 1, maxLength: 1_000_000 }) },
      { additionalProperties: false },
    ),
    BranchedTurn,
  ),
  /**
   * Regenerate: the prompt of `turnId` runs again from before it, as it was sent; the earlier
   * answer (that turn and any later) is kept in a new chat, as for `turns.edit`.
   */
  'turns.regenerate': method(
    Type.Object({ chatId: Id, turnId: Id }, { additionalProperties: false }),
    BranchedTurn,
  ),
  /** Stops the chat's running turn: the provider stream and every running tool. */
  'turns.stop': method(
    Type.Object({ chatId: Id }, { additionalProperties: false }),
    Type.Object({ stopped: Type.Boolean() }),
  ),
  /**
   * Answers the question a call waits on — an approval, a change a tool proposes, an MCP server's
   * form. `answered` is false when it no longer waits (stopped, answered elsewhere). Refused with
   * `invalid_answer` when the answer is not one the question takes (or does not fit the form).
   */
  'calls.answer': method(
    Type.Object({ chatId: Id, questionId: Id, answer: Answer }, { additionalProperties: false }),
    Type.Object({ answered: Type.Boolean() }),
  ),
  /** Every saved rule: global, per project folder and per chat. */
  'permissions.list': method(Empty, Type.Array(PermissionRule)),
  /** Refused with `invalid_rule`; a `project` rule needs its folder, a `chat` rule its chat. */
  'permissions.add': method(
    Type.Object(
      {
        rule: RuleText,
        action: RuleAction,
        scope: RuleScope,
        folder: Type.Optional(FolderPath),
        chatId: Type.Optional(Id),
      },
      { additionalProperties: false },
    ),
    PermissionRule,
  ),
  'permissions.update': method(
    Type.Object(
      { id: Id, rule: Type.Optional(RuleText), action: Type.Optional(RuleAction) },
      { additionalProperties: false },
    ),
    PermissionRule,
  ),
  'permissions.remove': method(
    Type.Object({ id: Id }, { additionalProperties: false }),
    Type.Object({ id: Type.String() }),
  ),
  'providers.list': method(Empty, ProvidersList),
  'providers.create': method(CreateProviderBody, ProviderInfo),
  'providers.update': method(UpdateProviderBody, ProviderInfo),
  'providers.delete': method(
    Type.Object({ id: Id }, { additionalProperties: false }),
    Type.Object({ id: Type.String() }),
  ),
  /** The models the provider offers, fetched from it. */
  'providers.models': method(
    Type.Object({ id: Id }, { additionalProperties: false }),
    Type.Object({ models: Type.Array(Type.String()) }),
  ),
  /** The models a provider would list with these settings, unsaved: the form's Test connection. */
  'providers.test': method(TestProviderBody, ProviderTestResult),
  /**
   * The model servers running on this computer (Ollama, LM Studio, llama.cpp, vLLM), probed on
   * 127.0.0.1 only, with their models: the provider form's Detect local servers.
   */
  'providers.detectLocal': method(Empty, Type.Array(DetectedServer)),
  /** A provider's prices by model: the person's own, and the defaults that apply at its endpoint. */
  'prices.list': method(
    Type.Object({ providerId: Id }, { additionalProperties: false }),
    Type.Array(ModelPriceEntry),
  ),
  /** States a model's price for a provider; its later responses are costed at it. The list after. */
  'prices.set': method(
    Type.Object(
      { providerId: Id, model: Type.String({ minLength: 1, maxLength: 200 }), price: ModelPrice },
      { additionalProperties: false },
    ),
    Type.Array(ModelPriceEntry),
  ),
  /** Forgets the person's price of a model (the default applies again, where there is one). The list after. */
  'prices.reset': method(
    Type.Object(
      { providerId: Id, model: Type.String({ minLength: 1, maxLength: 200 }) },
      { additionalProperties: false },
    ),
    Type.Array(ModelPriceEntry),
  ),
  /** Tokens and cost of the last `days` days (today included): per day, the costliest chats, the total. */
  'usage.report': method(
    Type.Object({ days: Type.Integer({ minimum: 1, maximum: 366 }) }, { additionalProperties: false }),
    UsageReport,
  ),
  /** A chat's tokens and cost, its subagents' included. */
  'usage.chat': method(Type.Object({ chatId: Id }, { additionalProperties: false }), UsageTotal),
  'agents.list': method(Empty, Type.Array(AgentProfile)),
  'agents.create': method(CreateAgentProfileBody, AgentProfile),
  'agents.update': method(UpdateAgentProfileBody, AgentProfile),
  'agents.delete': method(
    Type.Object({ id: Id }, { additionalProperties: false }),
    Type.Object({ id: Type.String() }),
  ),
  /** Every server as saved, with what is known of its session; starts and connects nothing. */
  'mcp.list': method(Empty, Type.Array(McpServerInfo)),
  /** Added on, but a stdio server waits for `mcp.approve` of its command line before it is started. */
  'mcp.add': method(McpServerInput, McpServerInfo),
  /** Edits a server; a changed launch makes a stdio server wait for approval again. Its session is closed. */
  'mcp.update': method(
    Type.Object({ name: Id, server: McpServerInput }, { additionalProperties: false }),
    McpServerInfo,
  ),
  'mcp.approve': method(Type.Object({ name: Id }, { additionalProperties: false }), McpServerInfo),
  /** Turning a server off closes its session and ends a stdio server's whole process tree. */
  'mcp.setEnabled': method(
    Type.Object({ name: Id, enabled: Type.Boolean() }, { additionalProperties: false }),
    McpServerInfo,
  ),
  'mcp.remove': method(
    Type.Object({ name: Id }, { additionalProperties: false }),
    Type.Object({ name: Type.String() }),
  ),
  /** Servers from an `mcpServers` JSON file (Claude Desktop, Cursor), each awaiting approval. */
  'mcp.import': method(
    Type.Object({ json: Type.String({ maxLength: 1_000_000 }) }, { additionalProperties: false }),
    Type.Object({ added: Type.Array(Type.String()), skipped: Type.Array(Type.String()) }),
  ),
  /**
   * Starts OAuth sign-in to a remote server: the authorization code flow with PKCE through a loopback
   * redirect on 127.0.0.1, or client credentials. Resolves once the browser is to be opened.
   */
  'mcp.signIn': method(Type.Object({ name: Id }, { additionalProperties: false }), McpSignIn),
  /** Forgets a server's tokens (its registered client stays); it needs sign-in again. */
  'mcp.signOut': method(Type.Object({ name: Id }, { additionalProperties: false }), McpServerInfo),
  /**
   * Each enabled server's resources, or why not. It connects the servers first, as the inspector
   * does: the person opened the attach dialog to choose among them.
   */
  'mcp.resources': method(Empty, Type.Array(McpServerResources)),
  /**
   * Each enabled server's prompts with their arguments, or why not. It connects the servers first:
   * the person typed `/` in the composer to choose among them.
   */
  'mcp.prompts': method(Empty, Type.Array(McpServerPrompts)),
  /** A prompt's messages as text for the composer; refused with `missing_argument` for a required one left out. */
  'mcp.getPrompt': method(McpGetPromptRequest, McpRenderedPrompt),
  'mcp.stderr': method(
    Type.Object({ name: Id }, { additionalProperties: false }),
    Type.Object({ text: Type.String() }),
  ),
  /**
   * Tool services, configured and announced, as far as they are known now: connects nothing
   * (`services.connect` does), so announced services are those heard since the broker connected.
   */
  'services.list': method(Empty, Type.Array(ToolServiceInfo)),
  /**
   * Connects the broker when one is set and not yet connected — the person opened Settings → Tool
   * services or saved the broker — waiting a few seconds at most; answers how it stands then. Live
   * services announce themselves on connecting, and arrive as `services.changed`.
   */
  'services.connect': method(Empty, BrokerInfo),
  /** A descriptor file's content: a service, a tool, or an array of them. Refused with `invalid_descriptor`. */
  'services.add': method(
    Type.Object(
      { json: Type.String({ minLength: 1, maxLength: 1_000_000 }) },
      { additionalProperties: false },
    ),
    Type.Object({ added: Type.Array(Type.String()) }),
  ),
  /** A configured service (its tools with it) or one tool; a stdio service's process tree ends. */
  'services.remove': method(
    Type.Object({ id: Id }, { additionalProperties: false }),
    Type.Object({ id: Type.String() }),
  ),
  /**
   * Turns a service on or off. For an announced service, `version` is the one the person was shown
   * (its `version`): turning it on is refused with `service_changed` when it announces another now.
   */
  'services.setEnabled': method(
    Type.Object(
      { id: Id, enabled: Type.Boolean(), version: Type.Optional(Type.String({ maxLength: 64 })) },
      { additionalProperties: false },
    ),
    ToolServiceInfo,
  ),
  'services.broker': method(Empty, BrokerInfo),
  /** The broker's URL, auth and CA file; the secret goes to the secret store and never comes back. */
  'services.setBroker': method(BrokerInput, BrokerInfo),
  /**
   * Every custom tool file found for the project (or none), with how loading it went so far: reads
   * the tool folders, starts no host (`customTools.load` does).
   */
  'customTools.list': method(
    Type.Object({ folder: Type.Optional(FolderPath) }, { additionalProperties: false }),
    CustomToolsInfo,
  ),
  /**
   * Loads the project's tool folders as a turn would — the person's, the configured ones, the
   * project's own once trusted — starting their hosts, then lists them as `customTools.list`: the
   * person opened Settings → Custom tools (or Tools) and is shown how loading went.
   */
  'customTools.load': method(
    Type.Object({ folder: Type.Optional(FolderPath) }, { additionalProperties: false }),
    CustomToolsInfo,
  ),
  /** Ends the tool hosts (after their `onSession(shutdown)`) and loads the folders again. */
  'customTools.reload': method(
    Type.Object({ folder: Type.Optional(FolderPath) }, { additionalProperties: false }),
    CustomToolsInfo,
  ),
  /** The end of a module's log file. */
  'customTools.log': method(
    Type.Object({ file: FolderPath }, { additionalProperties: false }),
    CustomToolLog,
  ),
  /**
   * The variables (names, or `PREFIX*`) a tool folder's host and the programs it starts get from
   * Atelier's environment besides the shell tool's allowlist; an empty list passes the allowlist alone.
   */
  'customTools.setEnvironment': method(
    Type.Object(
      {
        folder: FolderPath,
        names: Type.Array(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*\\*?$', maxLength: 200 }), {
          maxItems: 100,
        }),
      },
      { additionalProperties: false },
    ),
    Type.Object({ folder: Type.String(), names: Type.Array(Type.String()) }),
  ),
  /**
   * Lets a project's own tool folders (`.atelier/tools`, …) run code: its modules as they are now;
   * one added or edited later waits until the folder is trusted again.
   */
  'folders.trust': method(
    Type.Object({ folder: FolderPath }, { additionalProperties: false }),
    Type.Object({ folder: Type.String(), trusted: Type.Array(Type.String()) }),
  ),
  'folders.untrust': method(
    Type.Object({ folder: FolderPath }, { additionalProperties: false }),
    Type.Object({ folder: Type.String(), trusted: Type.Array(Type.String()) }),
  ),
  /** A chat's checkpoints, oldest first: one for each turn that may have changed its folder, one for each restore. */
  'checkpoints.list': method(
    Type.Object({ chatId: Id }, { additionalProperties: false }),
    Type.Object({ checkpoints: Type.Array(Checkpoint) }),
  ),
  /** What a checkpoint's turn (or restore) changed, path by path, each with its diff and the calls that made it. */
  'checkpoints.changes': method(Type.Object({ id: Id }, { additionalProperties: false }), CheckpointChanges),
  /**
   * Undoes a turn's changes to the folder (the conversation stays), or — for a restore's own
   * checkpoint — the restore (redo). A path changed since is a conflict: `choices` settle them, and
   * an unsettled one keeps the person's version. `preview` says what it would do and writes nothing.
   */
  'checkpoints.undo': method(
    Type.Object(
      {
        id: Id,
        choices: Type.Optional(Type.Array(ConflictChoice, { maxItems: 10_000 })),
        preview: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
    RestoreOutcome,
  ),
  /**
   * Rewinds the chat to before one of the person's prompts (its turn): the folder, the conversation or
   * both. The later turns are kept in a fork chat; conflicts are as for `checkpoints.undo`.
   */
  'checkpoints.rewind': method(
    Type.Object(
      {
        chatId: Id,
        turnId: Id,
        scope: RestoreScope,
        choices: Type.Optional(Type.Array(ConflictChoice, { maxItems: 10_000 })),
        preview: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
    RestoreOutcome,
  ),
  /** The person's hooks, then the project's (`folder`): listed even where the project is not trusted. */
  'hooks.list': method(
    Type.Object({ folder: Type.Optional(FolderPath) }, { additionalProperties: false }),
    Type.Array(HookEntry),
  ),
  /** Adds a hook to `~/.atelier/hooks.json` (`user`) or the project's `.atelier/hooks.json`. */
  'hooks.add': method(
    Type.Object(
      {
        ...HookPlace,
        event: HookEvent,
        matcher: Type.Optional(HookMatcher),
        command: HookCommandLine,
        timeout: Type.Optional(HookTimeout),
      },
      { additionalProperties: false },
    ),
    HookEntry,
  ),
  /** Changes a hook's matcher, command or timeout; a new matcher moves it, so its id may change. */
  'hooks.update': method(
    Type.Object(
      {
        ...HookPlace,
        id: HookId,
        matcher: Type.Optional(HookMatcher),
        command: Type.Optional(HookCommandLine),
        timeout: Type.Optional(HookTimeout),
      },
      { additionalProperties: false },
    ),
    HookEntry,
  ),
  'hooks.remove': method(
    Type.Object({ ...HookPlace, id: HookId }, { additionalProperties: false }),
    Type.Object({ id: Type.String() }),
  ),
  /** Runs one hook with a sample input for its event (or `input`), whatever its matcher; refused in an untrusted project. */
  'hooks.test': method(
    Type.Object(
      { ...HookPlace, id: HookId, input: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
      { additionalProperties: false },
    ),
    HookRun,
  ),
  /** The latest runs, newest last: of one chat, or all of them (tests included). */
  'hooks.runs': method(
    Type.Object({ chatId: Type.Optional(Id) }, { additionalProperties: false }),
    Type.Array(HookRun),
  ),
  /** Adds the hooks of a Claude Code or Gemini CLI settings file, and says what could not be mapped. */
  'hooks.import': method(
    Type.Object(
      {
        ...HookPlace,
        from: FolderPath,
        dialect: Type.Union([Type.Literal('claude'), Type.Literal('gemini')]),
      },
      { additionalProperties: false },
    ),
    HookImport,
  ),
  'preferences.get': method(Empty, Preferences),
  /** What this machine has to confine the agent's commands (found once by a probe run), and the settings. */
  'sandbox.status': method(Empty, SandboxInfo),
  'preferences.update': method(Type.Partial(Preferences, { additionalProperties: false }), Preferences),
  /** Every language server Atelier knows: shipped, found on PATH, the person's own; running, available or missing. Starts nothing. */
  'lsp.status': method(Empty, Type.Object({ servers: Type.Array(LanguageServerInfo) })),
  /** Starts a server (a known one by id, or one being configured) in a scratch folder and reports what it can do; ends it after. */
  'lsp.test': method(
    Type.Union([
      Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
      Type.Object({ server: CustomLanguageServer }, { additionalProperties: false }),
    ]),
    LanguageServerTest,
  ),
  /**
   * Every registered tool with its effective settings. Loads and connects nothing: custom tools not
   * yet loaded (`customTools.load`) and MCP servers not yet connected (a turn) are not among them.
   */
  'tools.list': method(Empty, ToolSettingsListResponse),
  /** Refused with `invalid_parameters`, `cannot_disable` or `unknown_tool`. */
  'tools.update': method(
    Type.Composite([Type.Object({ name: Id }), UpdateToolSettingsBody], { additionalProperties: false }),
    ToolSettingsDescriptor,
  ),
}

/** Main → renderer events, named `namespace.event`; `window.atelier.namespace.onEvent(listener)`. */
export const events = {
  'chats.changed': Type.Object({ chats: Type.Array(Chat) }),
  'preferences.changed': Preferences,
  'turns.event': Type.Object({ chatId: Type.String(), turnId: Type.String(), event: TurnEvent }),
  'providers.changed': ProvidersList,
  'agents.changed': Type.Object({ agents: Type.Array(AgentProfile) }),
  /** After any edit, and whenever a server connects, disconnects or fails (a turn started it, it crashed). */
  'mcp.changed': Type.Object({ servers: Type.Array(McpServerInfo) }),
  'permissions.changed': Type.Object({ rules: Type.Array(PermissionRule) }),
  /** After any edit, a broker connecting or dropping, a service announcing itself or lapsing. */
  'services.changed': Type.Object({ services: Type.Array(ToolServiceInfo), broker: BrokerInfo }),
  /** A tool folder changed on disk, loaded, or its host started or stopped: ask `customTools.list` (or `load`) again. */
  'customTools.changed': Type.Object({}),
  /** A chat's checkpoints changed: one was recorded, ended, or a restore ran. */
  'checkpoints.changed': Type.Object({ chatId: Type.String() }),
  /** The first snapshot of a folder, as it goes. */
  'checkpoints.progress': SnapshotProgress,
  /** A language server started, ended or failed: ask `lsp.status` again. */
  'lsp.changed': Type.Object({}),
}

export type Methods = typeof methods
export type MethodName = keyof Methods
export type EventName = keyof typeof events
export type MethodRequest<M extends MethodName> = Static<Methods[M]['request']>
export type MethodResponse<M extends MethodName> = Static<Methods[M]['response']>
export type EventPayload<E extends EventName> = Static<(typeof events)[E]>

export const methodNames = Object.keys(methods) as MethodName[]
export const eventNames = Object.keys(events) as EventName[]

export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(methods, name)
}
