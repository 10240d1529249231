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

/** A file of the chat's bound folder, named with `@` in the composer; main reads it when the turn starts. */
export const FileAttachment = Type.Object(
  {
    kind: Type.Literal('file'),
    /** Relative to the chat's folder, as the `@` menu lists it. */
    path: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { additionalProperties: false },
)
export type FileAttachment = Static<typeof FileAttachment>

/** The image types every provider Atelier speaks to takes in a user message. */
export const IMAGE_MIME_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const
/** The largest image a message may carry: the providers' own limits are about this (Anthropic's is 5 MB). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024

/** All of one message's images together, so the largest `turns.start` stays bounded. */
export const MAX_MESSAGE_IMAGE_BYTES = MAX_IMAGE_BYTES

/** An image pasted or dropped into the composer, its bytes as base64; main saves it when the turn starts. */
export const ImageAttachment = Type.Object(
  {
    kind: Type.Literal('image'),
    mimeType: Type.Union(IMAGE_MIME_TYPES.map((type) => Type.Literal(type))),
    // Base64 is 4/3 the bytes; the exact byte cap is checked once decoded.
    base64: Type.String({ minLength: 1, maxLength: Math.ceil(MAX_IMAGE_BYTES / 3) * 4 }),
    /** The file's name where it had one (a dropped file), for the chip. */
    name: Type.Optional(Type.String({ maxLength: 255 })),
  },
  { additionalProperties: false },
)
export type ImageAttachment = Static<typeof ImageAttachment>

/** What `turns.start` takes beside the prompt. */
export const Attachment = Type.Union([McpResourceAttachment, FileAttachment, ImageAttachment])
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

/** A file of the chat's folder as it was when the message was sent. */
export const AttachedFile = Type.Object({
  kind: Type.Literal('file'),
  /** Relative to the chat's folder. */
  path: Type.String(),
  /** The file's name, for the chip. */
  name: Type.String(),
  text: Type.String(),
  /** The text was cut at `FILE_TEXT_LIMIT` characters. */
  truncated: Type.Optional(Type.Boolean()),
})
export type AttachedFile = Static<typeof AttachedFile>

/** The most of one mentioned file's text that reaches the model, as for a resource. */
export const FILE_TEXT_LIMIT = RESOURCE_TEXT_LIMIT

/**
 * An image as the message keeps it: saved under the data folder's images (as generated images are),
 * so the database holds its path, not its bytes; `images.read` shows it.
 */
export const AttachedImage = Type.Object({
  kind: Type.Literal('image'),
  path: Type.String(),
  mimeType: Type.String(),
  name: Type.String(),
  bytes: Type.Number(),
})
export type AttachedImage = Static<typeof AttachedImage>

/**
 * What Atelier itself tells the model with a prompt, unasked: that the person undid or rewound some
 * of its changes to the folder since its last turn, and which files.
 */
export const AttachedNotice = Type.Object({
  kind: Type.Literal('notice'),
  /** A few words, for the chip. */
  name: Type.String(),
  text: Type.String(),
})
export type AttachedNotice = Static<typeof AttachedNotice>

export const AttachedContent = Type.Union([AttachedMcpResource, AttachedFile, AttachedImage, AttachedNotice])
export type AttachedContent = Static<typeof AttachedContent>
