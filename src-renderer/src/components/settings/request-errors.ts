import { isAtelierErrorPayload } from '../../../../src-shared/errors'
import { errorMessage } from '../../errors'

/**
 * A refused request, split between the fields it names (a `validation_failed` payload lists the
 * schema paths it broke) and whatever is left for the form as a whole.
 */
export function splitRequestError(
  error: unknown,
  fields: readonly string[],
  describe: (field: string, schemaMessage: string) => string,
): { fields: Record<string, string>; form?: string } {
  if (isAtelierErrorPayload(error) && error.code === 'validation_failed') {
    const errors = (error.data as { errors?: { path: string; message: string }[] } | undefined)?.errors ?? []
    const byField: Record<string, string> = {}
    for (const { path, message } of errors) {
      const field = path.split('/')[1]
      if (field && fields.includes(field) && !byField[field]) byField[field] = describe(field, message)
    }
    if (Object.keys(byField).length > 0) return { fields: byField }
  }
  return { fields: {}, form: errorMessage(error) }
}
