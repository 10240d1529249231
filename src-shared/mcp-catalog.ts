/** What the enabled MCP servers offer beside tools: resources to attach, prompts for the composer. */
import { type Static, Type } from '@sinclair/typebox'

export const McpResourceInfo = Type.Object({
  uri: Type.String(),
  name: Type.String(),
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  mimeType: Type.Optional(Type.String()),
})
export type McpResourceInfo = Static<typeof McpResourceInfo>

/** One server's resources, or why there are none to show (not connected, none offered). */
export const McpServerResources = Type.Object({
  server: Type.String(),
  resources: Type.Array(McpResourceInfo),
  error: Type.Optional(Type.String()),
})
export type McpServerResources = Static<typeof McpServerResources>

export const McpPromptArgument = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  required: Type.Boolean(),
})
export type McpPromptArgument = Static<typeof McpPromptArgument>

export const McpPromptInfo = Type.Object({
  name: Type.String(),
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  arguments: Type.Array(McpPromptArgument),
})
export type McpPromptInfo = Static<typeof McpPromptInfo>

export const McpServerPrompts = Type.Object({
  server: Type.String(),
  prompts: Type.Array(McpPromptInfo),
  error: Type.Optional(Type.String()),
})
export type McpServerPrompts = Static<typeof McpServerPrompts>

export const McpGetPromptRequest = Type.Object(
  {
    server: Type.String({ minLength: 1, maxLength: 32 }),
    name: Type.String({ minLength: 1, maxLength: 500 }),
    arguments: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 100_000 }))),
  },
  { additionalProperties: false },
)
export type McpGetPromptRequest = Static<typeof McpGetPromptRequest>

/** A prompt's messages as text for the composer: each message's text, one after the other. */
export const McpRenderedPrompt = Type.Object({ text: Type.String() })
export type McpRenderedPrompt = Static<typeof McpRenderedPrompt>
