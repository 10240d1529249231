/**
 * How a settings form ties each field to its error: the message under the field, and the ids its
 * input names in `aria-describedby` so a screen reader reads the error with the field.
 */
export function fieldErrors<Field extends string>(id: string, errors: Partial<Record<Field, string>>) {
  return {
    /** The id of a field's input; its error and hint ids derive from it. */
    idOf: (field: Field) => `${id}-${field}`,
    invalid: (field: Field) => (errors[field] ? true : undefined),
    /** The `aria-describedby` of a field: its error, if any, then its hints. */
    described: (field: Field, ...more: (string | false | undefined)[]) =>
      [errors[field] && `${id}-${field}-error`, ...more].filter(Boolean).join(' ') || undefined,
    errorOf: (field: Field) =>
      errors[field] && (
        <p className="field-error" id={`${id}-${field}-error`} role="alert">
          {errors[field]}
        </p>
      ),
  }
}

export type FieldErrors<Field extends string> = ReturnType<typeof fieldErrors<Field>>
