/**
 * What a person attaches to a message beside its text, and what of it the message keeps. A union
 * by `kind`, so other sources (files named with @, images) join it as new members.
 */
import { type Static, Type } from '@sinclair/typebox'

/** An MCP server's resource, named by the server and its URI; main reads it when the turn starts. */
export const McpResourceAttachment = Type.Object(
  {
    kind: Type.Literal('mcp-resource'),
    server: Type.String({ minLength: 1, maxLength: 32 }),
    uri: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { additionalProperties: false },
)
export type McpResourceAttachment = Static<typeof McpResourceAttachment>

/** What `turns.start` takes beside the prompt. */
export const Attachment = Type.Union([McpResourceAttachment])
export type Attachment = Static<typeof Attachment>

/** How many attachments one message may carry. */
export const MAX_ATTACHMENTS = 20

/** The most of one resource's text that reaches the model; the rest is cut and said to be. */
export const RESOURCE_TEXT_LIMIT = 100_000

/**
 * An attachment as the user message stores it: what was read when it was sent, so the model sees the
 * same context on every later request and a reload shows the same chip.
 */
export const AttachedMcpResource = Type.Object({
  kind: Type.Literal('mcp-resource'),
  server: Type.String(),
  uri: Type.String(),
  /** The resource's name (its title where it has one), for the chip. */
  name: Type.String(),
  mimeType: Type.Optional(Type.String()),
  /** Its text contents, or a line saying what binary contents there were. */
  text: Type.String(),
  /** The text was cut at `RESOURCE_TEXT_LIMIT` characters. */
  truncated: Type.Optional(Type.Boolean()),
})
export type AttachedMcpResource = Static<typeof AttachedMcpResource>

export const AttachedContent = Type.Union([AttachedMcpResource])
export type AttachedContent = Static<typeof AttachedContent>
