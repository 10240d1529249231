/**
 * Errors that cross a process boundary. Electron keeps only `message` of a thrown Error, so every
 * failure travels as a plain `{ code, message, data }` object and is rebuilt on the other side.
 * Every code any layer sends — the contract's, a tool call's, a provider's, a turn's, a service's —
 * is in one list, so a code the app acts on cannot be misspelled on either side.
 */
import { Type } from '@sinclair/typebox'

/** The contract's own: a request refused before any service ran, or a failure nobody named. */
const CONTRACT_ERROR_CODES = [
  'unknown_method',
  'forbidden',
  /** The web page lost its connection to the host, or was not let in. */
  'disconnected',
  /** This host cannot do it (a folder dialog, reading attachments): another one can. */
  'unsupported',
  'internal',
] as const

/** Why the app's database could not be opened: each says what the person can do about it. */
const DATABASE_ERROR_CODES = [
  /** The file is damaged (or is not a database at all): a copy is kept before anything else. */
  'database_corrupt',
  /** The database file is there but holds nothing (0 bytes): not taken for a new one. */
  'database_empty',
  /** The folder, the file or the drive is read-only: nothing is wrong with the data. */
  'database_read_only',
  /** This user may not open the file or its folder (another user's, often root's after sudo). */
  'database_permission_denied',
  /** The disk (or the user's quota) is full. */
  'database_disk_full',
  /** A newer Atelier has written it: update Atelier. */
  'database_too_new',
] as const

/**
 * How a tool call failed, as the model, the CLI and the UI see it: a ToolError's code. Services use
 * `validation_failed` and `not_found` too, with the same meaning.
 */
export const TOOL_ERROR_TYPES = [
  'unknown_tool',
  'not_enabled',
  'not_offered',
  'validation_failed',
  'blocked',
  /** The person (or a deny rule) refused the call. */
  'denied',
  'timeout',
  'aborted',
  'execution_failed',
  'path_denied',
  'invalid_path',
  'not_found',
  'not_read',
  /** Atelier closed while the call (or the turn) ran: nobody knows how far it got. */
  'interrupted',
  /** The chat's bound folder is gone (deleted, moved, not mounted): no tool runs until it is bound again. */
  'folder_missing',
  /** A failure the model cannot fix: it ended the turn. */
  'fatal',
] as const

/** How a model provider failed (see src-main/providers/provider-error.ts). */
const PROVIDER_ERROR_CODES = [
  'provider_rate_limited',
  'provider_unavailable',
  'provider_auth',
  'provider_rejected',
  'provider_connection',
  /** The request is longer than the model's context window: compact, don't retry. */
  'provider_context_overflow',
  'provider_error',
] as const

/** Why a turn ended failed, besides a provider's code, `interrupted` and `internal`. */
const TURN_ERROR_CODES = [
  /** The model kept calling tools past the iteration limit. */
  'max_iterations',
  /** The model reached its output limit before it finished its answer. */
  'max_tokens',
  /** The same call with the same arguments, again and again. */
  'repeated_call',
  /** A tool's FatalToolError: a failure the model cannot fix. */
  'fatal_tool_error',
  /** A tool stopped the turn (its `ctx.abort()`), as the stop button would. */
  'stopped_by_tool',
  /** A UserPromptSubmit hook answered `continue: false` (or blocked the prompt). */
  'stopped_by_hook',
] as const

/** What the services refuse with, named for what the caller can do about it. */
const SERVICE_ERROR_CODES = [
  // Running a turn.
  'no_provider',
  'missing_api_key',
  'missing_model',
  'turn_running',
  'nothing_to_retry',
  // Secrets and keys.
  'key_storage_unavailable',
  'key_unreadable',
  'secret_missing',
  'secret_unreadable',
  // Settings, rules and profiles.
  'invalid_parameters',
  'cannot_disable',
  'invalid_rule',
  'invalid_answer',
  'agent_exists',
  'builtin_profile',
  // Checkpoints.
  /** A redo that would overwrite what came after (the chat went on since a rewind). */
  'checkpoint_conflict',
  // Folders.
  'invalid_folder',
  // Chats.
  /** A file to import as a chat that is not an Atelier chat export (malformed, cut short, another version). */
  'invalid_chat_file',
  // MCP servers and their sign-in.
  'name_taken',
  'invalid_name',
  'invalid_url',
  'invalid_transport',
  'invalid_import',
  'invalid_oauth',
  'invalid_secret',
  'server_unavailable',
  /** The server wants the person to sign in (401/403, or a passive flow that reached the sign-in page). */
  'needs_sign_in',
  'missing_argument',
  'prompt_failed',
  'resource_unreadable',
  'sign_in_failed',
  'sign_in_timeout',
  'sign_in_not_needed',
  'sign_in_superseded',
  'signed_out',
  // Custom tools and tool services.
  /** A custom tool module that loads but gives no usable tool. */
  'invalid_custom_tool',
  'invalid_descriptor',
  'not_connected',
  /** An announced tool service announced something else since the person was shown it. */
  'service_changed',
  /** A server set to run in the sandbox, where there is none: it is not started. */
  'sandbox_unavailable',
  // Hooks.
  /** A hook to add that cannot run as written (an unknown event, a matcher that is not a pattern). */
  'invalid_hook',
  /** A project's hook, in a folder the person has not trusted: listed, never run. */
  'untrusted_folder',
] as const

/** Every code an Atelier error carries; each appears in exactly one group above. */
export const ERROR_CODES = [
  ...CONTRACT_ERROR_CODES,
  ...DATABASE_ERROR_CODES,
  ...TOOL_ERROR_TYPES,
  ...PROVIDER_ERROR_CODES,
  ...TURN_ERROR_CODES,
  ...SERVICE_ERROR_CODES,
] as const

/** Any code of ERROR_CODES: what `AtelierError.code`, a turn's error and a failed call carry. */
export const ErrorCode = Type.Union(ERROR_CODES.map((code) => Type.Literal(code)))
export type ErrorCode = (typeof ERROR_CODES)[number]

/** How a model provider failed: one of PROVIDER_ERROR_CODES. */
export type ProviderErrorCode = (typeof PROVIDER_ERROR_CODES)[number]

const KNOWN_CODES: ReadonlySet<string> = new Set(ERROR_CODES)

/** Whether a value from the other side of a boundary (an error payload) is a code of the union. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && KNOWN_CODES.has(value)
}

/** The wire shape of every error: what the renderer receives when a call is rejected. */
export interface AtelierErrorPayload {
  code: ErrorCode
  message: string
  data?: unknown
}

/**
 * How every error class of Atelier is recognized: its instances carry a `Symbol.for` key of the
 * class, set by its constructor. That survives bundle copies, where `instanceof` does not, and a
 * subclass's instances carry the keys of the classes above it too.
 */
export function errorBrand(className: string) {
  const key = Symbol.for(`atelier.error.${className}`)
  return {
    mark(error: Error): void {
      Object.defineProperty(error, key, { value: true })
    },
    is(value: unknown): boolean {
      return value instanceof Error && (value as unknown as Record<symbol, unknown>)[key] === true
    },
  }
}

const ATELIER_ERROR = errorBrand('AtelierError')

/** A typed error with a stable code, thrown by services and turned into a payload at the boundary. */
export class AtelierError extends Error {
  override readonly name: string = 'AtelierError'

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
    ATELIER_ERROR.mark(this)
  }

  toPayload(): AtelierErrorPayload {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data }
  }

  static isInstance(value: unknown): value is AtelierError {
    return ATELIER_ERROR.is(value)
  }
}

export function isAtelierErrorPayload(value: unknown): value is AtelierErrorPayload {
  if (typeof value !== 'object' || value === null) return false
  const candidate = value as Record<string, unknown>
  return isErrorCode(candidate.code) && typeof candidate.message === 'string'
}

/**
 * Any thrown value as a payload. Atelier's errors (tool, provider and service errors alike) keep
 * their code; anything else — a library's error, Node's `ENOENT` — is `internal`, its words kept.
 */
export function toErrorPayload(error: unknown): AtelierErrorPayload {
  if (AtelierError.isInstance(error)) return error.toPayload()
  if (isAtelierErrorPayload(error)) return { code: error.code, message: error.message, data: error.data }
  return { code: 'internal', message: errorMessage(error) }
}

/** The words of anything thrown: an Error's message, else the value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
