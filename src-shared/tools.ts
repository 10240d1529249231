/**
 * Tool types that cross the process boundary: what the settings panel lists and edits. The runtime
 * side (executors, contexts) lives in `src-main/tools/types.ts`.
 */
import { type Static, Type } from '@sinclair/typebox'

/** A JSON Schema object, as sent to providers. Built-in tools author it with TypeBox. */
export type JsonSchema = Record<string, unknown>

/** What a model sees of a tool. */
export interface ToolDefinition {
  name: string
  description: string
  parameters: JsonSchema
}

export const ToolCategory = Type.Union([
  Type.Literal('system'),
  Type.Literal('image'),
  Type.Literal('interaction'),
])
export type ToolCategory = Static<typeof ToolCategory>

export const ToolParameterType = Type.Union([
  Type.Literal('integer'),
  Type.Literal('number'),
  Type.Literal('string'),
  Type.Literal('boolean'),
  Type.Literal('enum'),
  Type.Literal('string-list'),
])
export type ToolParameterType = Static<typeof ToolParameterType>

/** One user-editable setting of a tool; the settings form is generated from these. */
export const ToolParameterDescriptor = Type.Object({
  name: Type.String(),
  type: ToolParameterType,
  label: Type.String(),
  description: Type.Optional(Type.String()),
  min: Type.Optional(Type.Number()),
  max: Type.Optional(Type.Number()),
  /** The choices of an `enum` parameter. */
  allowedValues: Type.Optional(Type.Array(Type.String())),
  unit: Type.Optional(Type.String()),
})
export type ToolParameterDescriptor = Static<typeof ToolParameterDescriptor>

export const ToolSettingsMetadata = Type.Object({
  title: Type.String(),
  description: Type.String(),
  category: ToolCategory,
  enabledByDefault: Type.Boolean(),
  canDisable: Type.Boolean(),
  defaultParameters: Type.Record(Type.String(), Type.Unknown()),
  parameterDescriptors: Type.Array(ToolParameterDescriptor),
})
export type ToolSettingsMetadata = Static<typeof ToolSettingsMetadata>

/** Where a registry entry came from: built in, or added at run time by a later source. */
export const ToolSource = Type.Union([
  Type.Object({ kind: Type.Literal('builtin') }),
  Type.Object({ kind: Type.Literal('mcp'), server: Type.String() }),
  Type.Object({ kind: Type.Literal('service'), service: Type.String() }),
  Type.Object({ kind: Type.Literal('custom'), module: Type.String() }),
])
export type ToolSource = Static<typeof ToolSource>

/** One tool as the settings panel shows it: metadata plus the effective state for this user. */
export const ToolSettingsDescriptor = Type.Composite([
  ToolSettingsMetadata,
  Type.Object({
    name: Type.String(),
    source: ToolSource,
    enabled: Type.Boolean(),
    parameters: Type.Record(Type.String(), Type.Unknown()),
    /** Set when the saved settings did not validate and the defaults are in force instead. */
    invalidSavedSettings: Type.Optional(Type.Object({ message: Type.String() })),
  }),
])
export type ToolSettingsDescriptor = Static<typeof ToolSettingsDescriptor>

export const ToolSettingsListResponse = Type.Object({ tools: Type.Array(ToolSettingsDescriptor) })
export type ToolSettingsListResponse = Static<typeof ToolSettingsListResponse>

export const UpdateToolSettingsBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
)
export type UpdateToolSettingsBody = Static<typeof UpdateToolSettingsBody>
