/**
 * A tool's argument schema read as form fields, and the form's drafts turned into the call's
 * arguments and back. Only what a form shows well gets its own field; anything else (objects,
 * unions, arrays of objects) is a JSON field, so every schema still has a form.
 */

type JsonSchema = Record<string, unknown>

export type ArgumentFieldKind = 'text' | 'number' | 'boolean' | 'choice' | 'lines' | 'json'

export interface ArgumentField {
  name: string
  kind: ArgumentFieldKind
  required: boolean
  description?: string
  /** A `choice` field's options. */
  options?: string[]
}

/** What the form holds for each field: the text typed, or a checkbox's state. */
export type ArgumentDrafts = Record<string, string | boolean>

function kindOf(schema: JsonSchema): ArgumentFieldKind {
  if (Array.isArray(schema.enum) && schema.enum.every((option) => typeof option === 'string')) return 'choice'
  const items = schema.items as JsonSchema | undefined
  switch (schema.type) {
    case 'string':
      return 'text'
    case 'number':
    case 'integer':
      return 'number'
    case 'boolean':
      return 'boolean'
    case 'array':
      return items?.type === 'string' ? 'lines' : 'json'
    default:
      return 'json'
  }
}

/** The fields of an object schema, required ones first, each as the schema orders them. */
export function argumentFields(schema: JsonSchema): ArgumentField[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : [])
  const fields = Object.entries(properties).map(([name, property]): ArgumentField => {
    const kind = kindOf(property)
    return {
      name,
      kind,
      required: required.has(name),
      ...(typeof property.description === 'string' && { description: property.description }),
      ...(kind === 'choice' && { options: property.enum as string[] }),
    }
  })
  return [...fields.filter((field) => field.required), ...fields.filter((field) => !field.required)]
}

/** The schema's defaults: what the form starts from. */
export function schemaDefaults(schema: JsonSchema): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  return Object.fromEntries(
    Object.entries(properties)
      .filter(([, property]) => property.default !== undefined)
      .map(([name, property]) => [name, property.default]),
  )
}

/** Arguments as the form shows them; a value the field cannot hold goes in as JSON text. */
export function draftsOfValues(fields: ArgumentField[], values: Record<string, unknown>): ArgumentDrafts {
  const drafts: ArgumentDrafts = {}
  for (const field of fields) {
    const value = values[field.name]
    if (field.kind === 'boolean') drafts[field.name] = value === true
    else if (value === undefined) drafts[field.name] = ''
    else if (field.kind === 'lines' && Array.isArray(value)) drafts[field.name] = value.join('\n')
    else if (typeof value === 'string' && field.kind !== 'json') drafts[field.name] = value
    else if (typeof value === 'number' && field.kind === 'number') drafts[field.name] = String(value)
    else drafts[field.name] = JSON.stringify(value, null, 2)
  }
  return drafts
}

/**
 * The call's arguments from the form. An empty optional field is left out; what does not parse (a
 * number that is not one, JSON that is not) is sent as typed, so the tool's validation says why,
 * as it would to a model.
 */
export function valuesOfDrafts(fields: ArgumentField[], drafts: ArgumentDrafts): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const field of fields) {
    const draft = drafts[field.name]
    if (typeof draft === 'boolean') {
      if (draft || field.required) values[field.name] = draft
      continue
    }
    if (draft === undefined || (draft.trim() === '' && !field.required)) continue
    values[field.name] = parsedDraft(field.kind, draft)
  }
  return values
}

function parsedDraft(kind: ArgumentFieldKind, draft: string): unknown {
  if (kind === 'number') {
    const number = Number(draft.trim())
    return draft.trim() !== '' && Number.isFinite(number) ? number : draft
  }
  if (kind === 'lines') return draft.split('\n').filter((line) => line.trim() !== '')
  if (kind === 'json') {
    try {
      return JSON.parse(draft) as unknown
    } catch {
      return draft
    }
  }
  return draft
}
