/**
 * ToolDefinition[] → each provider's wire format. Source schemas stay plain JSON Schema; only the
 * OpenAI Responses boundary derives the strict dialect.
 */
import { PROVIDER_KIND_NAMES, type ProviderKind } from '../../src-shared/agent'
import type { JsonSchema, ToolDefinition } from '../../src-shared/tools'

export interface ResponsesFunctionTool {
  type: 'function'
  name: string
  description: string
  parameters: JsonSchema
  strict: boolean
}

export interface ChatCompletionFunctionTool {
  type: 'function'
  function: { name: string; description: string; parameters: JsonSchema }
}

/** Gemini's JSON Schema field takes the schema as written (additionalProperties included). */
export interface GeminiFunctionDeclaration {
  name: string
  description: string
  parametersJsonSchema: JsonSchema
}

export interface AnthropicTool {
  name: string
  description: string
  input_schema: JsonSchema
}

export { PROVIDER_KIND_NAMES as PROVIDER_KINDS, type ProviderKind }

const LENGTH_BOUNDS = new Set(['minLength', 'maxLength'])
const COMPOSITION = ['oneOf', 'anyOf', 'allOf', 'not', '$ref']

/**
 * Plain JSON Schema for the wire: TypeBox's symbol-keyed metadata goes, and a union of constants
 * (how TypeBox writes an enum) becomes `{ type, enum }`, which every provider and strict mode accept.
 */
function plain(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema), (_key, value: unknown) => literalUnionAsEnum(value)) as JsonSchema
}

function literalUnionAsEnum(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as JsonSchema).anyOf)) return value
  const { anyOf, ...rest } = value as JsonSchema & { anyOf: JsonSchema[] }
  const constants = anyOf.map((member) => member.const)
  const types = new Set(anyOf.map((member) => member.type))
  const onlyConstants = anyOf.every(
    (member) => 'const' in member && Object.keys(member).every((k) => k === 'const' || k === 'type'),
  )
  if (!onlyConstants || types.size !== 1) return value
  return { ...rest, type: [...types][0], enum: constants }
}

function isObjectSchema(schema: JsonSchema): boolean {
  return schema.type === 'object' || schema.properties !== undefined
}

/** A map (`{ [key]: T }`) has no fixed keys to require, so strict mode cannot express it. */
function isMapSchema(schema: JsonSchema): boolean {
  return (
    'patternProperties' in schema ||
    (typeof schema.additionalProperties === 'object' && schema.additionalProperties !== null)
  )
}

/**
 * The Responses strict dialect: every property required at every depth, optionals as nullable
 * unions, `additionalProperties: false`, length bounds dropped (the executor still enforces them).
 */
export function toStrictSchema(schema: JsonSchema): JsonSchema {
  return strictify(plain(schema))
}

function strictify(schema: JsonSchema): JsonSchema {
  const result: JsonSchema = {}
  for (const [key, value] of Object.entries(schema)) {
    if (!LENGTH_BOUNDS.has(key)) result[key] = value
  }
  if (isObjectSchema(schema) && !isMapSchema(schema)) {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
    const required = new Set((schema.required ?? []) as string[])
    result.properties = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => {
        const strict = strictify(property)
        return [name, required.has(name) ? strict : nullable(strict)]
      }),
    )
    result.required = Object.keys(properties)
    result.additionalProperties = false
  }
  if (schema.items && typeof schema.items === 'object') result.items = strictify(schema.items as JsonSchema)
  return result
}

/** An optional key as "this type, or null"; an enum or a constant also has to admit null. */
function nullable(schema: JsonSchema): JsonSchema {
  const { const: constant, ...result } = schema
  if (constant !== undefined) result.enum = [constant]
  if (typeof schema.type === 'string') result.type = [schema.type, 'null']
  else if (Array.isArray(schema.type) && !schema.type.includes('null')) result.type = [...schema.type, 'null']
  if (Array.isArray(result.enum) && !result.enum.includes(null)) result.enum = [...result.enum, null]
  return result
}

/** Whether OpenAI's strict mode accepts a schema as it stands. */
export function isStrictCompatible(schema: JsonSchema, root = true): boolean {
  if (root && schema.type !== 'object') return false
  const banned = [...COMPOSITION, ...LENGTH_BOUNDS, 'patternProperties']
  if (banned.some((key) => key in schema)) return false
  // An optional object is `["object", "null"]` by now: an open one is as incompatible as when required.
  const nullableObject = Array.isArray(schema.type) && schema.type.includes('object')
  if (isObjectSchema(schema) || nullableObject) {
    if (schema.additionalProperties !== false) return false
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
    const required = new Set((schema.required ?? []) as string[])
    for (const [name, property] of Object.entries(properties)) {
      if (!required.has(name) || !isStrictCompatible(property, false)) return false
    }
  }
  if (schema.items && typeof schema.items === 'object')
    return isStrictCompatible(schema.items as JsonSchema, false)
  return true
}

/**
 * A mapping remembered for the list it was given: a turn computes its projection once, and every
 * request of the turn and the inspector's view of it read the very same wire objects.
 */
function perList<T>(map: (definitions: readonly ToolDefinition[]) => T[]) {
  const cache = new WeakMap<readonly ToolDefinition[], T[]>()
  return (definitions: readonly ToolDefinition[]): T[] => {
    let wire = cache.get(definitions)
    if (!wire) {
      wire = map(definitions)
      cache.set(definitions, wire)
    }
    return wire
  }
}

export const toolDefsToResponsesAPI = perList((definitions): ResponsesFunctionTool[] =>
  definitions.map(({ name, description, parameters }) => {
    const strictSchema = toStrictSchema(parameters)
    const strict = isStrictCompatible(strictSchema)
    return {
      type: 'function',
      name,
      description,
      parameters: strict ? strictSchema : plain(parameters),
      strict,
    }
  }),
)

export const toolDefsToChatCompletions = perList((definitions): ChatCompletionFunctionTool[] =>
  definitions.map(({ name, description, parameters }) => ({
    type: 'function',
    function: { name, description, parameters: plain(parameters) },
  })),
)

export const toolDefsToGeminiInteractions = perList((definitions): GeminiFunctionDeclaration[] =>
  definitions.map(({ name, description, parameters }) => ({
    name,
    description,
    parametersJsonSchema: plain(parameters),
  })),
)

export const toolDefsToAnthropic = perList((definitions): AnthropicTool[] =>
  definitions.map(({ name, description, parameters }) => ({
    name,
    description,
    input_schema: plain(parameters),
  })),
)

/** The exact tool list a provider of this kind receives. */
export function toolDefsForProvider(kind: ProviderKind, definitions: readonly ToolDefinition[]): unknown[] {
  switch (kind) {
    case 'openai-responses':
      return toolDefsToResponsesAPI(definitions)
    case 'openai-chat':
      return toolDefsToChatCompletions(definitions)
    case 'gemini':
      return toolDefsToGeminiInteractions(definitions)
    case 'anthropic':
      return toolDefsToAnthropic(definitions)
  }
}

/** Characters per token, the usual rough measure for English and JSON. */
const CHARS_PER_TOKEN = 4

/** Each tool as a provider of this kind receives it, with an estimate of the tokens it costs. */
export function wireToolsWithTokens(kind: ProviderKind, definitions: readonly ToolDefinition[]) {
  return toolDefsForProvider(kind, definitions).map((wire, index) => ({
    name: definitions[index]?.name ?? '',
    tokens: Math.ceil(JSON.stringify(wire).length / CHARS_PER_TOKEN),
    wire,
  }))
}
