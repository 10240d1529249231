/**
 * The messages between the app and a tool folder's host process. Plain JSON over the process's
 * message channel (Node's fork IPC, or Electron's utility process port). The host runs the
 * person's code; the app keeps what must outlive it: the programs `exec` starts, the log files,
 * the person's answers.
 */
import type {
  CustomToolMessage,
  CustomToolModel,
  CustomToolSessionEvent,
  CustomToolTheme,
} from '../../../src-custom-tool/index'
import type { CustomToolLoadError } from '../../../src-shared/custom-tools'
import type { JsonSchema, ToolKind } from '../../../src-shared/tools'

export interface HostedToolInfo {
  name: string
  label: string
  description: string
  parameters: JsonSchema
  kind: ToolKind
  /** The module that made it. */
  file: string
}

export interface CallContextMessage {
  toolCallId: string
  chatId: string | null
  cwd: string
  mode: 'agent' | 'chat'
  settings: Record<string, unknown>
  model: CustomToolModel | null
  /** The app's colours as it shows now, for the render hooks. */
  theme: CustomToolTheme
}

export interface PartialResult {
  text: string
  call?: string
  rendered?: string
}

/** What a call gave: the text the model reads, and the card's rendering. */
export interface HostedResult {
  text: string
  isError: boolean
  details?: unknown
  images: { data: string; mimeType: string }[]
  call?: string
  collapsed?: string
  expanded?: string
}

/** The session events the app sends while hosts run (start and shutdown are the host's own). */
export type SessionReason = Exclude<CustomToolSessionEvent['reason'], 'start' | 'shutdown'>

/** A session event the app sends, with the chat it happened in. */
export type SessionEvent = Omit<CustomToolSessionEvent, 'reason'> & { reason: SessionReason }

export type ToHost =
  | {
      type: 'load'
      files: string[]
      hasUI: boolean
      /** The cwd outside any call. */
      home: string
      /** Paths jiti maps imports to: our typebox and our `atelier` entry. */
      aliases: Record<string, string>
    }
  | { type: 'call'; id: string; tool: string; args: unknown; context: CallContextMessage }
  | { type: 'abort'; id: string; reason: string }
  | {
      type: 'exec-done'
      execId: string
      result: { stdout: string; stderr: string; code: number | null; killed: boolean }
    }
  | { type: 'confirmed'; confirmId: string; accepted: boolean; error?: string }
  /** A lifecycle event of the session a chat in `cwd` runs (onSession). */
  | { type: 'session'; event: SessionEvent; cwd: string }
  /** The answer to `messages`. */
  | { type: 'messages-read'; readId: string; messages: CustomToolMessage[] }
  /** Asked after an abort: a host that cannot answer is stuck in a loop. */
  | { type: 'ping' }
  | { type: 'shutdown' }

export type FromHost =
  | {
      type: 'loaded'
      tools: HostedToolInfo[]
      errors: { file: string; error: CustomToolLoadError }[]
    }
  | { type: 'update'; id: string; partial: PartialResult }
  | { type: 'notify'; id: string | null; level: 'info' | 'warning' | 'error'; message: string }
  | { type: 'result'; id: string; result: HostedResult }
  /**
   * The call threw. `fatal`: a FatalToolError (by its name), which ends the turn; its cause, as
   * text, is for the log alone.
   */
  | { type: 'failed'; id: string; message: string; fatal?: { cause?: string } }
  /** A module reads a chat's messages (`ctx.sessionManager`). */
  | { type: 'messages'; readId: string; chatId: string | null }
  | { type: 'abort-turn'; id: string; reason: string }
  | {
      type: 'exec'
      id: string | null
      execId: string
      command: string
      args: string[]
      cwd: string
      timeoutMs: number | null
    }
  | { type: 'exec-cancel'; execId: string }
  | {
      type: 'confirm'
      id: string
      confirmId: string
      action: { label: string; detail?: string; preview?: string }
    }
  | { type: 'log'; file: string; level: 'debug' | 'info' | 'warn' | 'error'; message: string }
  | { type: 'pong' }
  | { type: 'shutdown-done' }
