/**
 * Errors that cross a process boundary. Electron keeps only `message` of a thrown Error, so every
 * failure travels as a plain `{ code, message, data }` object and is rebuilt on the other side.
 */

/** Codes of the foundation; later layers add their own (tool errors, provider errors, ...). */
export type CoreErrorCode =
  | 'validation_failed'
  | 'unknown_method'
  | 'forbidden'
  | 'not_found'
  | 'database_corrupt'
  | 'internal'

/** The wire shape of every error: what the renderer receives when a call is rejected. */
export interface AtelierErrorPayload {
  code: string
  message: string
  data?: unknown
}

/** A typed error with a stable code, thrown by services and turned into a payload at the boundary. */
export class AtelierError extends Error {
  override readonly name = 'AtelierError'

  constructor(
    readonly code: CoreErrorCode | (string & {}),
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }

  toPayload(): AtelierErrorPayload {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data }
  }

  /** Works across bundle copies, where `instanceof` does not. */
  static isInstance(value: unknown): value is AtelierError {
    return (
      value instanceof Error &&
      value.name === 'AtelierError' &&
      typeof (value as AtelierError).code === 'string'
    )
  }
}

export function isAtelierErrorPayload(value: unknown): value is AtelierErrorPayload {
  if (typeof value !== 'object' || value === null) return false
  const candidate = value as Record<string, unknown>
  return typeof candidate.code === 'string' && typeof candidate.message === 'string'
}

/** Any thrown value as a payload; unknown failures become `internal` with their message kept. */
export function toErrorPayload(error: unknown): AtelierErrorPayload {
  if (AtelierError.isInstance(error)) return error.toPayload()
  if (isAtelierErrorPayload(error)) return { code: error.code, message: error.message, data: error.data }
  if (error instanceof Error) {
    // Errors with a code of their own (FatalToolError's `fatal`, Node's `ENOENT`) keep it.
    const code = (error as Error & { code?: unknown }).code
    return { code: typeof code === 'string' ? code : 'internal', message: error.message }
  }
  return { code: 'internal', message: String(error) }
}
