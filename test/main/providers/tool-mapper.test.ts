import { Type } from '@sinclair/typebox'
import { describe, expect, it } from 'vitest'
import {
  isStrictCompatible,
  PROVIDER_KINDS,
  type ProviderKind,
  toolDefsForProvider,
  toolDefsToAnthropic,
  toolDefsToChatCompletions,
  toolDefsToGeminiInteractions,
  toolDefsToResponsesAPI,
  toStrictSchema,
} from '../../../src-main/providers/tool-mapper'
import '../../../src-main/tools/builtin'
import { builtinTools } from '../../../src-main/tools/registry'
import { getDefaultToolSettings } from '../../../src-main/tools/settings-policy'
import type { RegisteredTool } from '../../../src-main/tools/types'
import type { JsonSchema, ToolDefinition } from '../../../src-shared/tools'

const MAPPERS: Record<ProviderKind, (definitions: ToolDefinition[]) => unknown[]> = {
  'openai-responses': toolDefsToResponsesAPI,
  'openai-chat': toolDefsToChatCompletions,
  gemini: toolDefsToGeminiInteractions,
  anthropic: toolDefsToAnthropic,
}

/** The definition a turn sends with the tool's default settings. */
function definitionOf(tool: RegisteredTool): ToolDefinition {
  return tool.buildDefinition?.(getDefaultToolSettings(tool)) ?? tool.definition
}

const BUILTINS = builtinTools.list().map(({ tool }) => ({ name: tool.definition.name, tool }))
const WIRE_CASES = PROVIDER_KINDS.flatMap((provider) =>
  BUILTINS.map(({ name, tool }) => [provider, name, tool] as const),
)

/** Where symbol-keyed properties hide in a value, as JSON paths. */
function symbolKeyPaths(value: unknown, path = '$'): string[] {
  if (typeof value !== 'object' || value === null) return []
  const own = Object.getOwnPropertySymbols(value).map((symbol) => `${path}[${String(symbol)}]`)
  return [...own, ...Object.entries(value).flatMap(([key, item]) => symbolKeyPaths(item, `${path}.${key}`))]
}

/** An object schema the strict dialect accepts: every property required, nothing extra. */
function strictObject(properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
    ...extra,
  }
}

// The seed's own example of a source schema and its Responses-wire form.
const readFileSource: JsonSchema = {
  type: 'object',
  properties: { path: { type: 'string' }, startLine: { type: 'integer', minimum: 1 } },
  required: ['path'],
}

const searchSource: JsonSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 200, pattern: '^\\S' },
    limit: { type: 'integer', minimum: 1, maximum: 50 },
    mode: { type: 'string', enum: ['fast', 'thorough'] },
    filters: {
      type: 'object',
      properties: { glob: { type: 'string', minLength: 1 }, depth: { type: 'integer', minimum: 0 } },
      required: ['glob'],
    },
    paths: { type: 'array', minItems: 1, maxItems: 10, items: { type: 'string', maxLength: 4096 } },
    edits: {
      type: 'array',
      items: {
        type: 'object',
        properties: { oldText: { type: 'string', minLength: 1 }, newText: { type: 'string' } },
        required: ['oldText'],
      },
    },
  },
  required: ['query', 'edits'],
}

describe('tool mapper', () => {
  describe('toStrictSchema', () => {
    it('returns every property required, optionals nullable, and no extra keys for the seed example', () => {
      expect(toStrictSchema(readFileSource)).toEqual({
        type: 'object',
        properties: { path: { type: 'string' }, startLine: { type: ['integer', 'null'], minimum: 1 } },
        required: ['path', 'startLine'],
        additionalProperties: false,
      })
    })

    it('returns no minLength or maxLength at any depth', () => {
      const strict = toStrictSchema(searchSource) as {
        properties: Record<string, { properties?: Record<string, JsonSchema>; items?: JsonSchema }>
      }
      const { query, filters, paths, edits } = strict.properties
      for (const node of [
        query,
        filters?.properties?.glob,
        paths?.items,
        edits?.items,
        (edits?.items?.properties as Record<string, JsonSchema> | undefined)?.oldText,
      ]) {
        expect(node).toBeDefined()
        expect(node).not.toHaveProperty('minLength')
        expect(node).not.toHaveProperty('maxLength')
      }
    })

    it('returns minimum, maximum, enum, pattern, minItems and maxItems as the source has them', () => {
      expect(toStrictSchema(searchSource)).toMatchObject({
        properties: {
          query: { type: 'string', pattern: '^\\S' },
          limit: { type: ['integer', 'null'], minimum: 1, maximum: 50 },
          mode: { enum: ['fast', 'thorough', null] },
          filters: { properties: { depth: { minimum: 0 } } },
          paths: { minItems: 1, maxItems: 10 },
        },
      })
    })

    it('returns nested objects and array items in the strict dialect too', () => {
      const strict = toStrictSchema(searchSource)
      expect(strict).toMatchObject({
        required: ['query', 'limit', 'mode', 'filters', 'paths', 'edits'],
        properties: {
          filters: {
            type: ['object', 'null'],
            properties: { glob: { type: 'string' }, depth: { type: ['integer', 'null'], minimum: 0 } },
            required: ['glob', 'depth'],
            additionalProperties: false,
          },
          paths: { type: ['array', 'null'], items: { type: 'string' } },
          edits: {
            type: 'array',
            items: {
              type: 'object',
              properties: { oldText: { type: 'string' }, newText: { type: ['string', 'null'] } },
              required: ['oldText', 'newText'],
              additionalProperties: false,
            },
          },
        },
      })
      expect(isStrictCompatible(strict)).toBe(true)
    })

    it('returns an optional enum that also lists null, so the model can leave it out', () => {
      const strict = toStrictSchema({
        type: 'object',
        properties: { mode: { type: 'string', enum: ['fast', 'thorough'] } },
      })
      expect(strict.properties).toEqual({
        mode: { type: ['string', 'null'], enum: ['fast', 'thorough', null] },
      })
    })

    it('returns a required enum unchanged', () => {
      const strict = toStrictSchema({
        type: 'object',
        properties: { mode: { type: 'string', enum: ['fast', 'thorough'] } },
        required: ['mode'],
      })
      expect(strict.properties).toEqual({ mode: { type: 'string', enum: ['fast', 'thorough'] } })
    })

    it('leaves the source schema as it was', () => {
      const before = structuredClone(searchSource)
      toStrictSchema(searchSource)
      expect(searchSource).toEqual(before)
    })

    it('returns plain JSON for a TypeBox schema', () => {
      const strict = toStrictSchema(
        Type.Object({ path: Type.String(), startLine: Type.Optional(Type.Integer({ minimum: 1 })) }),
      )
      expect(symbolKeyPaths(strict)).toEqual([])
      expect(strict).toEqual(toStrictSchema(readFileSource))
    })
  })

  describe('isStrictCompatible', () => {
    it.each<[string, JsonSchema]>([
      ['the root is not an object', { type: 'array', items: strictObject({ a: { type: 'string' } }) }],
      [
        'additionalProperties: false is missing',
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      ],
      [
        'a nested object allows additional properties',
        strictObject({
          filters: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        }),
      ],
      [
        'a property is not required',
        strictObject({ a: { type: 'string' }, b: { type: 'string' } }, { required: ['a'] }),
      ],
      [
        'a property of array items is not required',
        strictObject({
          edits: {
            type: 'array',
            items: strictObject({ a: { type: 'string' }, b: { type: 'string' } }, { required: ['b'] }),
          },
        }),
      ],
      ['a property uses anyOf', strictObject({ a: { anyOf: [{ type: 'string' }, { type: 'integer' }] } })],
      [
        'array items use oneOf',
        strictObject({ a: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] } } }),
      ],
      ['the root uses allOf', strictObject({ a: { type: 'string' } }, { allOf: [{ type: 'object' }] })],
      ['a nested property uses not', strictObject({ o: strictObject({ a: { not: { type: 'null' } } }) })],
      ['a property uses $ref', strictObject({ a: { $ref: '#/$defs/Thing' } })],
      ['a property has minLength', strictObject({ a: { type: 'string', minLength: 1 } })],
      [
        'array items have maxLength',
        strictObject({ a: { type: 'array', items: { type: 'string', maxLength: 10 } } }),
      ],
    ])('returns false when %s', (_, schema) => {
      expect(isStrictCompatible(schema)).toBe(false)
    })

    it('returns true for a hand-written strict schema', () => {
      expect(
        isStrictCompatible(
          strictObject({
            a: { type: ['string', 'null'], pattern: '^x' },
            items: { type: 'array', items: strictObject({ b: { type: 'integer', minimum: 0 } }) },
          }),
        ),
      ).toBe(true)
    })

    it('returns true for what toStrictSchema derives', () => {
      expect(isStrictCompatible(toStrictSchema(readFileSource))).toBe(true)
      expect(isStrictCompatible(toStrictSchema(searchSource))).toBe(true)
    })

    it('returns false for a source schema with optional keys', () => {
      expect(isStrictCompatible(readFileSource)).toBe(false)
    })
  })

  describe('toolDefsToResponsesAPI', () => {
    it('returns the strict dialect with strict: true for a schema that converts', () => {
      const [wire] = toolDefsToResponsesAPI([
        { name: 'read_file', description: 'Reads a file.', parameters: readFileSource },
      ])
      expect(wire).toEqual({
        type: 'function',
        name: 'read_file',
        description: 'Reads a file.',
        parameters: toStrictSchema(readFileSource),
        strict: true,
      })
    })

    it('returns the source schema with strict: false for one that cannot be strict', () => {
      const parameters = {
        type: 'object',
        properties: { value: { anyOf: [{ type: 'string' }, { type: 'integer' }], minLength: 1 } },
      }
      const [wire] = toolDefsToResponsesAPI([{ name: 'set_value', description: 'Sets.', parameters }])
      expect(wire).toMatchObject({ parameters, strict: false })
    })

    // A built-in that fails here should be fixed, not exempted: the spec asks strict: true per tool.
    it.each(BUILTINS.map(({ name }) => name))('returns strict: true for the built-in %s', (name) => {
      const entry = builtinTools.get(name)
      expect(entry).toBeDefined()
      const [wire] = toolDefsToResponsesAPI([definitionOf(entry?.tool as RegisteredTool)])
      expect(wire?.strict).toBe(true)
      expect(isStrictCompatible(wire?.parameters ?? {})).toBe(true)
    })

    it('covers the built-in tools, get_current_datetime among them', () => {
      expect(BUILTINS.map(({ name }) => name)).toContain('get_current_datetime')
    })
  })

  describe('plain providers', () => {
    it.each([
      ['toolDefsToChatCompletions', toolDefsToChatCompletions],
      ['toolDefsToGeminiInteractions', toolDefsToGeminiInteractions],
      ['toolDefsToAnthropic', toolDefsToAnthropic],
    ] as const)('%s returns the source schema, optionals and length bounds kept', (_, map) => {
      const parameters = Type.Object({
        path: Type.String({ minLength: 1 }),
        startLine: Type.Optional(Type.Integer({ minimum: 1 })),
      })
      const wire = map([{ name: 'read_file', description: 'Reads a file.', parameters }])
      const schema = JSON.stringify(wire)
      expect(schema).toContain('"required":["path"]')
      expect(schema).toContain('"minLength":1')
      expect(schema).not.toContain('null')
      expect(symbolKeyPaths(wire)).toEqual([])
    })
  })

  describe('toolDefsForProvider', () => {
    const definitions: ToolDefinition[] = [
      {
        name: 'read_file',
        description: 'Reads a file.',
        parameters: Type.Object({
          path: Type.String({ minLength: 1 }),
          startLine: Type.Optional(Type.Integer()),
        }),
      },
    ]

    it.each(PROVIDER_KINDS)('returns the %s wire format', (kind) => {
      expect(toolDefsForProvider(kind, definitions)).toStrictEqual(MAPPERS[kind](definitions))
    })
  })

  describe('what each provider receives for each built-in', () => {
    it.each(WIRE_CASES)('%s › %s', (provider, _, tool) => {
      expect(MAPPERS[provider]([definitionOf(tool)])).toMatchSnapshot()
    })

    it.each(WIRE_CASES)('%s › %s is plain JSON', (provider, _, tool) => {
      const wire = MAPPERS[provider]([definitionOf(tool)])
      expect(JSON.parse(JSON.stringify(wire))).toStrictEqual(wire)
      expect(symbolKeyPaths(wire)).toEqual([])
    })
  })
})

describe('toStrictSchema edge cases', () => {
  it('leaves a map-typed property alone, so the tool is sent non-strict rather than as an empty object', () => {
    const parameters = Type.Object(
      { env: Type.Record(Type.String(), Type.String()) },
      { additionalProperties: false },
    )
    const [tool] = toolDefsToResponsesAPI([{ name: 'run', description: 'Runs.', parameters }])
    expect(tool?.strict).toBe(false)
    expect(tool?.parameters).toEqual(JSON.parse(JSON.stringify(parameters)))
  })

  it('lets an optional constant be null', () => {
    const strict = toStrictSchema(
      Type.Object({ kind: Type.Optional(Type.Literal('file')) }, { additionalProperties: false }),
    )
    expect(strict.properties).toEqual({ kind: { type: ['string', 'null'], enum: ['file', null] } })
    expect(isStrictCompatible(strict)).toBe(true)
  })
})
