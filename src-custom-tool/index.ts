/**
 * The contract of a custom tool module, for the people who write them: `import type {
 * CustomToolFactory } from 'atelier'`. A module's default export (or the module itself, when it is
 * a function) is a factory; Atelier calls it with a `CustomToolAPI` in a host process of its tool
 * folder and offers what it returns to the model beside the built-in tools. See README "Custom tools".
 *
 * Only types and a few pure helpers live here: the host process imports it, and a tool module may
 * too (`import { textResult } from 'atelier'` resolves to this file).
 */
import type * as TypeBox from '@sinclair/typebox'
import type { Static, TSchema } from '@sinclair/typebox'

export const ATELIER_CUSTOM_TOOLS_VERSION = 1

export type CustomToolContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }

/** What `execute` returns, and what `onUpdate` streams: content for the model, details for hooks and the card. */
export interface CustomToolResult<Details = unknown> {
  content: CustomToolContent[]
  details?: Details
  /** The call failed, though it returned: the model reads the content as the error. */
  isError?: boolean
}

/** Streams a partial result; each replaces the one before on the tool card. */
export type CustomToolUpdate<Details = unknown> = (partial: CustomToolResult<Details>) => void

/** The model a chat's turn talks to: the provider's name (as in Settings → Providers) and the model's id. */
export interface CustomToolModel {
  provider: string
  model: string
}

/** One message of a chat as Atelier stores it: its parts are text, tool calls and tool results. */
export interface CustomToolMessage {
  id: string
  role: 'user' | 'assistant' | 'tool'
  parts: { type: string; [key: string]: unknown }[]
  createdAt: number
}

/**
 * Read access to a chat's conversation, to rebuild a tool's state from its history when the
 * session changes (a branch, a switch, a resumed chat). It reads; nothing here writes.
 */
export interface CustomToolSessionManager {
  /** The chat's messages, oldest first; none outside a chat. */
  getMessages(): Promise<CustomToolMessage[]>
}

/** What a call knows of where it runs. */
export interface CustomToolContext {
  toolCallId: string
  /** The chat the call belongs to; null for `atelier tool` without `--chat`. */
  chatId: string | null
  /** The chat's bound folder (agent mode), else the person's home folder. */
  cwd: string
  mode: 'agent' | 'chat'
  /** Whether a person is watching in the app (false in `atelier run` and `atelier tool`). */
  hasUI: boolean
  /** The tool's settings as saved in Settings → Tools (its timeout, for one). */
  settings: Record<string, unknown>
  /** The provider and model of the turn that made the call; null outside a turn (`atelier tool`). */
  model: CustomToolModel | null
  /** The chat's messages, read-only. */
  sessionManager: CustomToolSessionManager
  /** Stops the whole turn, this call included, as the person's stop button does. */
  abort(reason?: string): void
}

/**
 * Lifecycle of a tool module. Atelier sends `start` after the factory ran and `shutdown` before its
 * host stops (a reload after an edit, the app quitting); `new` for a chat created, `branch` for a
 * chat forked (`chatId` the fork, `fromChatId` the chat it came from), `switch` when the app opens
 * another chat, `resume` for the first turn in this process of a chat that had turns before,
 * `turn_start` and `turn_end` around each turn, `message` for each message a turn stores,
 * `auto_compaction_start`/`auto_compaction_end` around a compaction and `auto_retry_start`/
 * `auto_retry_end` around a provider retry. `tree`, `ttsr_triggered` and `todo_reminder` have no
 * moment in Atelier and never come (docs/custom-tools.md says why). A handler should ignore what it
 * does not know.
 */
export interface CustomToolSessionEvent {
  reason:
    | 'start'
    | 'switch'
    | 'branch'
    | 'tree'
    | 'shutdown'
    | 'new'
    | 'resume'
    | 'turn_start'
    | 'turn_end'
    | 'message'
    | 'auto_compaction_start'
    | 'auto_compaction_end'
    | 'auto_retry_start'
    | 'auto_retry_end'
    | 'ttsr_triggered'
    | 'todo_reminder'
  /** The chat it happened in; absent for `start` and `shutdown`, which are the host's own. */
  chatId?: string
  /** For `branch`: the chat the fork was made from. */
  fromChatId?: string
  /** For `message`: the message stored. */
  message?: CustomToolMessage
}

export interface CustomToolSessionContext {
  cwd: string
  hasUI: boolean
  /** The event's chat's messages, read-only (none for `start` and `shutdown`). */
  sessionManager: CustomToolSessionManager
}

/**
 * The app's colours, light or dark as the app shows now, for a render hook that colours its
 * Markdown (an inline `<span style>` is dropped: use them to choose words or emoji, or in an image).
 */
export interface CustomToolTheme {
  name: 'light' | 'dark'
  colors: {
    bg: string
    fg: string
    muted: string
    border: string
    accent: string
    danger: string
  }
}

export interface RenderResultOptions {
  /** The card is open (true) or shows its one-line form (false). */
  expanded: boolean
  /** The result is an `onUpdate` partial, not the final one. */
  isPartial: boolean
  /** For a partial of a running call: counts up with each update, to animate a spinner by. */
  spinnerFrame?: number
}

/**
 * What a call does, as the approval policy weighs it: `read` runs without asking in the default
 * mode, the others ask. Default: `other`.
 */
export type CustomToolKind = 'read' | 'edit' | 'execute' | 'network' | 'other'

export interface CustomTool<Parameters extends TSchema = TSchema, Details = unknown> {
  /** The name the model calls; unique among every tool Atelier offers (`[a-zA-Z0-9_-]{1,64}`). */
  name: string
  /** The title in the settings and on the tool card. */
  label: string
  description: string
  /** A TypeBox schema; arguments are validated against it before `execute` runs. */
  parameters: Parameters
  kind?: CustomToolKind
  execute(
    toolCallId: string,
    params: Static<Parameters>,
    onUpdate: CustomToolUpdate<Details> | undefined,
    ctx: CustomToolContext,
    signal: AbortSignal,
  ): Promise<CustomToolResult<Details>> | CustomToolResult<Details>
  /** Errors here are logged and change nothing else. */
  onSession?(event: CustomToolSessionEvent, ctx: CustomToolSessionContext): void | Promise<void>
  /** The card's head for this call, as Markdown; undefined for the default. */
  renderCall?(args: Static<Parameters>, theme: CustomToolTheme): string | undefined
  /** The card's body for a result, as Markdown; undefined, or a throw, for the default. */
  renderResult?(
    result: CustomToolResult<Details>,
    options: RenderResultOptions,
    theme: CustomToolTheme,
    args: Static<Parameters>,
  ): string | undefined
}

export interface ExecOptions {
  /** Kills the program and everything it started. */
  signal?: AbortSignal
  /** Where it runs; relative to `api.cwd`. Default: `api.cwd`. */
  cwd?: string
  /** Default: the rest of the call's timeout. */
  timeoutMs?: number
}

export interface ExecResult {
  stdout: string
  stderr: string
  /** The exit code; null when it was killed or did not start. */
  code: number | null
  /** Stopped by the signal, the timeout or a signal of its own. */
  killed: boolean
}

/** A person's view of the tool: real in the app, a no-op in `atelier run` and `atelier tool`. */
export interface CustomToolUI {
  /** A line on the tool card of the call that is running (in the log otherwise). */
  notify(message: string, level?: 'info' | 'warning' | 'error'): void
}

export interface CustomToolLogger {
  debug(message: string, ...data: unknown[]): void
  info(message: string, ...data: unknown[]): void
  warn(message: string, ...data: unknown[]): void
  error(message: string, ...data: unknown[]): void
}

/** A change a tool proposes and a person confirms (Apply) or discards, on a card in the chat. */
export interface PendingAction {
  label: string
  /** What it will do, in a sentence or two. */
  detail?: string
  /** What it will change, shown on the card (a diff, a list). */
  preview?: string
  /** Runs once the person applies it. */
  apply(): unknown
}

export interface CustomToolAPI {
  /** The folder of the call being served (the chat's bound folder); the home folder outside a call. */
  readonly cwd: string
  /** Runs a program without a shell; the signal kills it with everything it started. */
  exec(command: string, args: string[], options?: ExecOptions): Promise<ExecResult>
  readonly ui: CustomToolUI
  readonly hasUI: boolean
  /** Writes to this module's log file (Settings → Custom tools shows it). */
  readonly logger: CustomToolLogger
  /** Atelier's own `@sinclair/typebox`, so schemas need no install beside the tool. */
  readonly typebox: typeof TypeBox
  /** This module: the helpers and FatalToolError below. */
  readonly atelier: AtelierExports
  /**
   * Asks the person, on a card in the chat, to apply a change; resolves true once `apply` ran,
   * false when they discarded it. Refused (rejects) where nobody can answer: `atelier run`, `atelier tool`.
   * Only during a call.
   */
  pushPendingAction(action: PendingAction): Promise<boolean>
}

/**
 * A factory's tools take any parameters: TypeScript cannot infer each tool's own from a return
 * type, so `params` is loosely typed there. `defineTool` types one tool's `params` by its schema.
 */
// biome-ignore lint/suspicious/noExplicitAny: each tool of a factory has its own parameter schema
type AnyTool = CustomTool<any, any>

export type CustomToolFactory = (api: CustomToolAPI) => AnyTool | AnyTool[] | Promise<AnyTool | AnyTool[]>

/**
 * A failure the model cannot fix (a bug, an expired credential, a database down): throw it from
 * `execute` and the turn ends; its message goes to the person, never into the model's context, and
 * its `cause` only to the module's log.
 */
export class FatalToolError extends Error {
  override readonly name = 'FatalToolError'

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}

/** A text result. */
export function textResult<Details = unknown>(text: string, details?: Details): CustomToolResult<Details> {
  return { content: [{ type: 'text', text }], ...(details !== undefined && { details }) }
}

/** Types a factory without a type annotation: `export default defineTools((api) => …)`. */
export function defineTools(factory: CustomToolFactory): CustomToolFactory {
  return factory
}

/** Types one tool's `params` (and `renderCall`'s args) by its schema. */
export function defineTool<Parameters extends TSchema, Details = unknown>(
  tool: CustomTool<Parameters, Details>,
): CustomTool<Parameters, Details> {
  return tool
}

export interface AtelierExports {
  ATELIER_CUSTOM_TOOLS_VERSION: number
  textResult: typeof textResult
  defineTools: typeof defineTools
  defineTool: typeof defineTool
  FatalToolError: typeof FatalToolError
}
