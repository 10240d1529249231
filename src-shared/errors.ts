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
    readonly code: CoreErrorCode | (string & {}),
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

/** The words of anything thrown: an Error's message, else the value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
