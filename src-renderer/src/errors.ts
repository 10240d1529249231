import { isAtelierErrorPayload } from '../../src-shared/errors'

/** A readable message for anything a call rejected with. */
export function errorMessage(error: unknown): string {
  if (isAtelierErrorPayload(error)) return error.message
  if (error instanceof Error) return error.message
  return String(error)
}
