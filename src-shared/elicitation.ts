/**
 * MCP elicitation as every layer sees it: what a server asks the person during a tool call (a
 * message and the restricted, flat schema of the form it wants filled in), and the person's answer.
 * The form's fields, defaults and validation live here once, so the card in the chat and the main
 * process judge an answer by the very same rules.
 */
import { type Static, Type } from '@sinclair/typebox'
import { QuestionBase } from './approvals'

const Described = {
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
}

/** The schema kinds MCP allows in `requestedSchema` (2025-11-25): flat, primitive, with defaults. */
const StringField = Type.Object({
  type: Type.Literal('string'),
  ...Described,
  minLength: Type.Optional(Type.Number()),
  maxLength: Type.Optional(Type.Number()),
  format: Type.Optional(Type.String()),
  /** A single choice: the plain values (with legacy `enumNames` as their labels)… */
  enum: Type.Optional(Type.Array(Type.String())),
  enumNames: Type.Optional(Type.Array(Type.String())),
  /** …or values with their labels. */
  oneOf: Type.Optional(Type.Array(Type.Object({ const: Type.String(), title: Type.String() }))),
  default: Type.Optional(Type.String()),
})
const NumberField = Type.Object({
  type: Type.Union([Type.Literal('number'), Type.Literal('integer')]),
  ...Described,
  minimum: Type.Optional(Type.Number()),
  maximum: Type.Optional(Type.Number()),
  default: Type.Optional(Type.Number()),
})
const BooleanField = Type.Object({
  type: Type.Literal('boolean'),
  ...Described,
  default: Type.Optional(Type.Boolean()),
})
/** Several choices. */
const ArrayField = Type.Object({
  type: Type.Literal('array'),
  ...Described,
  minItems: Type.Optional(Type.Number()),
  maxItems: Type.Optional(Type.Number()),
  items: Type.Object({
    type: Type.Optional(Type.Literal('string')),
    enum: Type.Optional(Type.Array(Type.String())),
    anyOf: Type.Optional(Type.Array(Type.Object({ const: Type.String(), title: Type.String() }))),
  }),
  default: Type.Optional(Type.Array(Type.String())),
})
export const ElicitationProperty = Type.Union([StringField, NumberField, BooleanField, ArrayField])
export type ElicitationProperty = Static<typeof ElicitationProperty>

export const ElicitationSchema = Type.Object({
  type: Type.Literal('object'),
  properties: Type.Record(Type.String(), ElicitationProperty),
  required: Type.Optional(Type.Array(Type.String())),
})
export type ElicitationSchema = Static<typeof ElicitationSchema>

/** A server's question as a card shows it, during the call it names. */
export const ElicitationRequest = Type.Object({
  kind: Type.Literal('elicitation'),
  ...QuestionBase,
  /** The MCP server's name, as the person named it. */
  server: Type.String(),
  message: Type.String(),
  requestedSchema: ElicitationSchema,
})
export type ElicitationRequest = Static<typeof ElicitationRequest>

export const ElicitationValue = Type.Union([
  Type.String(),
  Type.Number(),
  Type.Boolean(),
  Type.Array(Type.String()),
])
export type ElicitationValue = Static<typeof ElicitationValue>
export const ElicitationContent = Type.Record(Type.String(), ElicitationValue)
export type ElicitationContent = Static<typeof ElicitationContent>

/** `accept` sends the form's content; `decline` says no; `cancel` dismisses without choosing. */
export const ElicitationAction = Type.Union([
  Type.Literal('accept'),
  Type.Literal('decline'),
  Type.Literal('cancel'),
])
export type ElicitationAction = Static<typeof ElicitationAction>

export const ElicitationAnswer = Type.Union([
  Type.Object(
    { action: Type.Literal('accept'), content: ElicitationContent },
    { additionalProperties: false },
  ),
  Type.Object({ action: Type.Literal('decline') }, { additionalProperties: false }),
  Type.Object({ action: Type.Literal('cancel') }, { additionalProperties: false }),
])
export type ElicitationAnswer = Static<typeof ElicitationAnswer>

/** What the person is asked, before it has a card: the server, its message, its form. */
export interface ElicitationQuestion {
  server: string
  message: string
  requestedSchema: ElicitationSchema
}

export interface ElicitationOption {
  value: string
  label: string
}

interface FieldBase {
  name: string
  /** The field's title, else its name: the control's accessible name. */
  label: string
  description?: string
  required: boolean
}

/** One form field, by the control that edits it. */
export type ElicitationField = FieldBase &
  (
    | { kind: 'text'; format?: string; minLength?: number; maxLength?: number; default?: string }
    | { kind: 'number'; integer: boolean; minimum?: number; maximum?: number; default?: number }
    | { kind: 'boolean'; default?: boolean }
    | { kind: 'choice'; options: ElicitationOption[]; default?: string }
    | {
        kind: 'multi'
        options: ElicitationOption[]
        minItems?: number
        maxItems?: number
        default?: string[]
      }
  )

/** The form's fields, in the schema's order. */
export function elicitationFields(schema: ElicitationSchema): ElicitationField[] {
  const required = new Set(schema.required ?? [])
  return Object.entries(schema.properties).map(([name, property]) =>
    fieldOf(name, property, required.has(name)),
  )
}

function fieldOf(name: string, property: ElicitationProperty, required: boolean): ElicitationField {
  const base: FieldBase = {
    name,
    label: property.title?.trim() || name,
    ...(property.description && { description: property.description }),
    required,
  }
  switch (property.type) {
    case 'boolean':
      return { ...base, kind: 'boolean', ...defined('default', property.default) }
    case 'number':
    case 'integer':
      return {
        ...base,
        kind: 'number',
        integer: property.type === 'integer',
        ...defined('minimum', property.minimum),
        ...defined('maximum', property.maximum),
        ...defined('default', property.default),
      }
    case 'array': {
      const { items } = property
      const options =
        items.anyOf?.map((option) => ({ value: option.const, label: option.title })) ??
        (items.enum ?? []).map((value) => ({ value, label: value }))
      return {
        ...base,
        kind: 'multi',
        options,
        ...defined('minItems', property.minItems),
        ...defined('maxItems', property.maxItems),
        ...defined('default', property.default),
      }
    }
    case 'string': {
      const options =
        property.oneOf?.map((option) => ({ value: option.const, label: option.title })) ??
        property.enum?.map((value, index) => ({ value, label: property.enumNames?.[index] ?? value }))
      if (options) return { ...base, kind: 'choice', options, ...defined('default', property.default) }
      return {
        ...base,
        kind: 'text',
        ...defined('format', property.format),
        ...defined('minLength', property.minLength),
        ...defined('maxLength', property.maxLength),
        ...defined('default', property.default),
      }
    }
  }
}

/** The schema's defaults as content: what Accept sends when the person changes nothing (SEP-1034). */
export function elicitationDefaults(schema: ElicitationSchema): ElicitationContent {
  const content: ElicitationContent = {}
  for (const field of elicitationFields(schema)) {
    if (field.default !== undefined) content[field.name] = field.default
  }
  return content
}

/**
 * What is wrong with accepted content, field by field (empty when nothing is): a missing required
 * field, a value of the wrong type, outside its bounds or not one of its choices, a field the form
 * does not have.
 */
export function elicitationProblems(
  schema: ElicitationSchema,
  content: Record<string, unknown>,
): Record<string, string> {
  const problems: Record<string, string> = {}
  const fields = elicitationFields(schema)
  const names = new Set(fields.map((field) => field.name))
  for (const name of Object.keys(content)) {
    if (!names.has(name)) problems[name] = 'The form has no such field.'
  }
  for (const field of fields) {
    const value = content[field.name]
    if (value === undefined) {
      if (field.required) problems[field.name] = `${field.label} is required.`
      continue
    }
    const problem = fieldProblem(field, value)
    if (problem) problems[field.name] = problem
  }
  return problems
}

function fieldProblem(field: ElicitationField, value: unknown): string | undefined {
  switch (field.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `${field.label} must be true or false.`
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return `${field.label} must be a number.`
      if (field.integer && !Number.isInteger(value)) return `${field.label} must be a whole number.`
      if (field.minimum !== undefined && value < field.minimum)
        return `${field.label} must be at least ${field.minimum}.`
      if (field.maximum !== undefined && value > field.maximum)
        return `${field.label} must be at most ${field.maximum}.`
      return undefined
    }
    case 'choice':
      return typeof value === 'string' && field.options.some((option) => option.value === value)
        ? undefined
        : `${field.label} must be one of: ${field.options.map((option) => option.label).join(', ')}.`
    case 'multi': {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
        return `${field.label} must be a list of choices.`
      const unknown = value.find((item) => !field.options.some((option) => option.value === item))
      if (unknown !== undefined) return `${field.label} has no choice “${unknown}”.`
      if (field.minItems !== undefined && value.length < field.minItems)
        return `Choose at least ${field.minItems} for ${field.label}.`
      if (field.maxItems !== undefined && value.length > field.maxItems)
        return `Choose at most ${field.maxItems} for ${field.label}.`
      return undefined
    }
    case 'text': {
      if (typeof value !== 'string') return `${field.label} must be text.`
      const length = [...value].length
      if (field.minLength !== undefined && length < field.minLength)
        return `${field.label} must be at least ${field.minLength} characters.`
      if (field.maxLength !== undefined && length > field.maxLength)
        return `${field.label} must be at most ${field.maxLength} characters.`
      return formatProblem(field.label, field.format, value)
    }
  }
}

/** The string formats MCP names; a format it does not name is not checked. */
function formatProblem(label: string, format: string | undefined, value: string): string | undefined {
  switch (format) {
    case 'email':
      return /^[^\s@]+@[^\s@]+$/.test(value) ? undefined : `${label} must be an email address.`
    case 'uri':
      return /^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$/.test(value) ? undefined : `${label} must be a URI.`
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : `${label} must be a date (YYYY-MM-DD).`
    case 'date-time':
      return /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value))
        ? undefined
        : `${label} must be a date and time.`
    default:
      return undefined
  }
}

function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }
}

/** An accepted answer in the form's words: `Release name: autumn · Urgent: no`. */
export function answerInWords(schema: ElicitationSchema, content: ElicitationContent): string {
  const parts = elicitationFields(schema).flatMap((field) => {
    const value = content[field.name]
    if (value === undefined) return []
    return [`${field.label}: ${valueInWords(field, value)}`]
  })
  return parts.length > 0 ? parts.join(' · ') : 'nothing filled in'
}

function valueInWords(field: ElicitationField, value: ElicitationValue): string {
  if (typeof value === 'boolean') return value ? 'yes' : 'no'
  const label = (item: string) =>
    field.kind === 'choice' || field.kind === 'multi'
      ? (field.options.find((option) => option.value === item)?.label ?? item)
      : item
  return Array.isArray(value) ? value.map(label).join(', ') || 'none' : label(String(value))
}
