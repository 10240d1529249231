/**
 * Model arguments, read strictly. `null` counts as absent, so a Responses-strict model (which must
 * send every key, null for the ones it omits) and a model that leaves keys out take the same path.
 * A present argument of the wrong type is a ToolArgumentError — never replaced by a default.
 */
import { Kind, type TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import { errorMessage } from '../../src-shared/errors'
import type { JsonSchema } from '../../src-shared/tools'
import { ToolArgumentError } from './errors'

const MAX_REPORTED = 5

/** Removes `null` values of optional properties, at every depth the schema describes. */
export function dropNullOptionals(schema: JsonSchema, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = schema.items as JsonSchema | undefined
    return items ? value.map((item) => dropNullOptionals(items, item)) : value
  }
  if (typeof value !== 'object' || value === null) return value
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set((schema.required ?? []) as string[])
  const result: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    if (item === null && !required.has(key)) continue
    const property = properties[key]
    result[key] = property ? dropNullOptionals(property, item) : item
  }
  return result
}

export type ArgumentValidator = (args: unknown) => unknown

/** One problem with the arguments: where, what, and the value found there. */
interface ArgumentProblem {
  path: string
  message: string
  value: unknown
}

/** The problems with `args`, none when they fit the schema. */
type SchemaCheck = (args: unknown) => ArgumentProblem[]

const compiled = new WeakMap<JsonSchema, SchemaCheck>()

/**
 * Plain JSON Schema (MCP servers, custom tools) is checked by Ajv; our own tools' TypeBox schemas by
 * TypeBox's compiler, whose messages read better.
 */
let ajv: Ajv | undefined
/**
 * `addUsedSchema: false`: a schema that names itself (`$id`) is not kept by that name, so the same
 * schema announced again, or two servers' schemas with one `$id`, compile rather than collide.
 */
function plainSchemas(): Ajv {
  ajv ??= addFormats(new Ajv({ allErrors: true, strict: false, verbose: true, addUsedSchema: false }))
  return ajv
}

/**
 * Why a plain JSON Schema cannot check anything (it does not compile), or undefined when it can:
 * for a schema that comes with a tool's description (a tool service's argument), read before the
 * tool is offered.
 */
export function jsonSchemaProblem(schema: JsonSchema): string | undefined {
  try {
    plainSchemas().compile(schema)
    return undefined
  } catch (error) {
    return errorMessage(error)
  }
}

function compile(schema: JsonSchema): SchemaCheck {
  if (Kind in schema) {
    const check = TypeCompiler.Compile(schema as TSchema)
    return (args) =>
      check.Check(args)
        ? []
        : [...check.Errors(args)].map(({ path, message, value }) => ({ path, message, value }))
  }
  const validate = plainSchemas().compile(schema)
  return (args) =>
    validate(args)
      ? []
      : (validate.errors ?? []).map((error) => ({
          path: error.instancePath,
          message: error.message ?? 'is invalid',
          value: error.data,
        }))
}

/**
 * A validator for a tool's source schema, compiled once. Length bounds that the strict wire dialect
 * drops are still enforced here, because this checks the source schema.
 */
export function validateToolArguments(toolName: string, schema: JsonSchema, raw: unknown): unknown {
  const args = dropNullOptionals(schema, parseArguments(toolName, raw))
  let check = compiled.get(schema)
  if (!check) {
    check = compile(schema)
    compiled.set(schema, check)
  }
  const problems = check(args)
  if (problems.length === 0) return args
  const seen = new Set<string>()
  const lines: string[] = []
  for (const problem of problems) {
    const path = problem.path || '(arguments)'
    if (seen.has(path)) continue
    seen.add(path)
    lines.push(`${path}: ${problem.message}${describeValue(problem.value)}`)
    if (lines.length === MAX_REPORTED) break
  }
  throw new ToolArgumentError(lines.join('; '), problems[0]?.path.slice(1) || undefined)
}

function parseArguments(toolName: string, raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {}
  if (raw.trim() === '') return {}
  try {
    return JSON.parse(raw)
  } catch (error) {
    throw new ToolArgumentError(`the arguments of ${toolName} are not valid JSON (${errorMessage(error)})`)
  }
}

function describeValue(value: unknown): string {
  if (value === undefined) return ''
  const text = JSON.stringify(value)
  return ` (got ${text !== undefined && text.length > 60 ? `${text.slice(0, 57)}...` : text})`
}
