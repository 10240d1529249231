/**
 * Tool-service descriptors as the seed writes them, checked: a service (where requests go, the
 * config it takes) and its tools (what the model sees, the config values). A tool that names an
 * unknown service, leaves out a required config param or gives one the service does not take is
 * refused with a message naming it.
 */
import { Value } from '@sinclair/typebox/value'
import { AtelierError } from '../../../src-shared/errors'
import {
  ServiceAnnouncement,
  type ServiceAnnouncement as ServiceAnnouncementType,
  ServiceDescriptor,
  type ServiceDescriptor as ServiceDescriptorType,
  TOOL_DESCRIPTOR_KEYS,
  ToolDescriptor,
  type ToolDescriptor as ToolDescriptorType,
} from '../../../src-shared/tool-services'
import type { JsonSchema } from '../../../src-shared/tools'
import { jsonSchemaProblem } from '../arg-parsing'

/** The JSON Schema types an argument may declare. */
const ARGUMENT_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array'])
/**
 * An object argument without a schema takes any keys. Said so, a strict wire format cannot express
 * it (it would close the object to `{}`), so the tool goes to the model without strict mode.
 */
const ANY_OBJECT = { additionalProperties: {} }
/** The types whose values have a shape of their own, which a `schema` describes. */
const SHAPED_TYPES = new Set(['object', 'array'])

export interface Descriptors {
  services: ServiceDescriptorType[]
  tools: ToolDescriptorType[]
}

/** Sorts what a file holds — one descriptor or an array of them — into services and tools. */
export function readDescriptors(json: unknown): Descriptors {
  const items = Array.isArray(json) ? json : [json]
  const found: Descriptors = { services: [], tools: [] }
  for (const [index, item] of items.entries()) {
    const where = Array.isArray(json) ? ` (item ${index + 1})` : ''
    if (typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'tool-service') {
      found.tools.push(checked(ToolDescriptor, item, `tool descriptor${where}`))
    } else {
      found.services.push(checked(ServiceDescriptor, item, `service descriptor${where}`))
    }
  }
  return found
}

/**
 * An announcement as it came over the broker, checked: a NATS service descriptor (closed: a
 * `command`, or any key Atelier does not know, is refused) and tools of that service. Throws
 * `invalid_descriptor` naming what does not fit.
 */
export function readAnnouncement(json: unknown): ServiceAnnouncementType {
  const announcement = checked<ServiceAnnouncementType>(ServiceAnnouncement, json, 'service announcement')
  const stray = announcement.tools.find((tool) => tool.service !== announcement.service.id)
  if (stray) {
    throw invalid(
      `The announced tool "${stray.name}" names the service "${stray.service}", not "${announcement.service.id}".`,
    )
  }
  return announcement
}

function checked<T>(schema: Parameters<typeof Value.Check>[0], value: unknown, what: string): T {
  if (Value.Check(schema, value)) return value as T
  const first = Value.Errors(schema, value).First()
  const at = first?.path ? ` at ${first.path}` : ''
  throw invalid(`Not a valid ${what}${at}: ${first?.message ?? 'unexpected shape'}.`)
}

/** The config values a tool gives its service, checked against what the service takes. */
export function toolConfig(
  tool: ToolDescriptorType,
  service: ServiceDescriptorType | undefined,
): Record<string, unknown> {
  if (!service) {
    throw invalid(`The tool "${tool.name}" names the service "${tool.service}", which is not configured.`)
  }
  const params = service['config-params'] ?? []
  const config = Object.fromEntries(
    Object.entries(tool).filter(([key]) => !(TOOL_DESCRIPTOR_KEYS as readonly string[]).includes(key)),
  )
  for (const key of Object.keys(config)) {
    if (!params.some((param) => param.name === key)) {
      const takes = params.map((param) => param.name).join(', ') || 'none'
      throw invalid(
        `The tool "${tool.name}" gives "${key}", which the service "${service.id}" does not take (it takes: ${takes}).`,
      )
    }
  }
  for (const param of params) {
    if (param.required && !(param.name in config)) {
      throw invalid(
        `The tool "${tool.name}" does not give "${param.name}", which the service "${service.id}" requires.`,
      )
    }
  }
  for (const argument of tool.arguments ?? []) {
    const which = `The argument "${argument.name}" of the tool "${tool.name}"`
    if (!ARGUMENT_TYPES.has(argument.type)) {
      throw invalid(`${which} has the type "${argument.type}"; use one of ${[...ARGUMENT_TYPES].join(', ')}.`)
    }
    if (argument.schema) checkArgumentSchema(which, argument.type, argument.schema)
  }
  return config
}

/** A `schema` fits only an object or array argument, of its own type, and must compile. */
function checkArgumentSchema(which: string, type: string, schema: Record<string, unknown>): void {
  if (!SHAPED_TYPES.has(type)) {
    throw invalid(`${which} has a schema, which only an object or array argument may have.`)
  }
  if (schema.type !== undefined && schema.type !== type) {
    throw invalid(`${which} is of type "${type}", but its schema says ${JSON.stringify(schema.type)}.`)
  }
  const problem = jsonSchemaProblem(argumentSchema(type, '', schema))
  if (problem) throw invalid(`${which} has a schema that is not valid JSON Schema: ${problem}`)
}

/**
 * What the model sees: every declared argument — with its schema, when it has one — required
 * unless it says `"required": false`, and nothing else.
 */
export function argumentsSchema(tool: ToolDescriptorType): JsonSchema {
  const args = tool.arguments ?? []
  return {
    type: 'object',
    properties: Object.fromEntries(
      args.map(({ name, type, description, schema }) => [
        name,
        argumentSchema(type, description, schema ?? (type === 'object' ? ANY_OBJECT : undefined)),
      ]),
    ),
    required: args.filter((argument) => argument.required !== false).map((argument) => argument.name),
    additionalProperties: false,
  }
}

function argumentSchema(type: string, description: string, schema: Record<string, unknown> = {}): JsonSchema {
  return { ...schema, type, description }
}

function invalid(message: string): AtelierError {
  return new AtelierError('invalid_descriptor', message)
}
