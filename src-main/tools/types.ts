import type { ChatMode } from '../../src-shared/contract'
import type { ToolDefinition, ToolSettingsMetadata, ToolSource } from '../../src-shared/tools'
import type { ImageGenerator } from '../providers/image-generation'
import type { ToolErrorType } from './errors'

export type { ToolDefinition, ToolSettingsMetadata, ToolSource }

/** A tool's settings after defaults < saved < overrides, parameters validated. */
export interface EffectiveToolSettings {
  enabled: boolean
  parameters: Record<string, unknown>
}

/** Everything a tool may know about the call it is serving. */
export interface ToolContext {
  chatId: string | undefined
  /** The settings owner; the desktop app uses one local user. */
  user: string
  /** The chat's bound folder, or null when none is bound. */
  workingDirectory: string | null
  /** In `chat` mode the bound folder is not injected into tools. */
  mode: ChatMode
  /** Whether path-taking tools are confined to the bound folder (agent mode). */
  restrict: boolean
  /** Aborted on user stop or timeout; long work must pass it on. */
  signal: AbortSignal
  /** Streams progress to whoever watches the call (the UI, the CLI). */
  onUpdate(progress: unknown): void
  settings: EffectiveToolSettings
  /** Paths no tool may touch whatever the settings say: the app's own data folder. */
  protectedPaths: string[]
  /** What this chat has read, by real path and sha256: the guard on overwriting files. */
  ledger: FreshnessLedger
  /** Makes images with the person's providers (generate_image); absent where none is wired. */
  images?: ImageGenerator
}

/** The chat's record of file contents it has seen. */
export interface FreshnessLedger {
  record(realPath: string, sha256: string): void
  get(realPath: string): string | undefined
}

/** A result with more control than a plain string. `data` reaches hooks and the UI, never the model. */
export interface ToolOutput {
  content: string
  isError?: boolean
  /** How an error result failed, when the tool knows better than `execution_failed`. */
  errorType?: ToolErrorType
  data?: unknown
}

export interface RegisteredTool {
  definition: ToolDefinition
  /** Tailors the definition to the effective settings (e.g. a limit in the description). */
  buildDefinition?: (settings: EffectiveToolSettings) => ToolDefinition
  settings: ToolSettingsMetadata
  /**
   * Results longer than this are cut with a notice (default: the executor's cap). A tool whose
   * whole output must reach the model, like read_file's byte views, sets its own.
   */
  maxResultChars?: number
  /**
   * The tool enforces `timeoutSeconds` itself (the shells kill their process group and report
   * `timed_out`); the executor's own deadline then only backs it up, a little later.
   */
  managesOwnTimeout?: boolean
  /**
   * The longest a call may run, when the tool's own deadline can outlast `timeoutSeconds` (an MCP
   * call's timeout restarts with each progress notification, under this cap). Default: timeoutSeconds.
   */
  maxRuntimeSeconds?: (settings: EffectiveToolSettings) => number
  /** Receives arguments that already passed the definition's schema. */
  execute: (args: unknown, context: ToolContext) => Promise<unknown>
}
