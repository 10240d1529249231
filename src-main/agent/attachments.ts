/**
 * Attachments as the model reads them: each one a delimited block of context before the prompt,
 * so the model can tell what the person attached from what they wrote; images go beside the text
 * in each provider's own image format. And what reads them when a prompt is sent.
 */
import { resolve } from 'node:path'
import type { AttachmentPart, MessagePart } from '../../src-shared/agent'
import type {
  AttachedContent,
  AttachedFile,
  AttachedImage,
  Attachment,
  ImageAttachment,
  McpResourceAttachment,
} from '../../src-shared/attachments'
import { MAX_ATTACHMENTS, MAX_IMAGE_BYTES, MAX_MESSAGE_IMAGE_BYTES } from '../../src-shared/attachments'
import type { Chat } from '../../src-shared/contract'
import { AtelierError } from '../../src-shared/errors'
import type { ModelImage } from '../providers/types'
import { isInside } from '../tools/paths'

/** A user message's text for the model: its attachments' blocks first, then what was typed. */
export function userMessageText(parts: readonly MessagePart[]): string {
  const blocks = parts.flatMap((part) =>
    part.type === 'attachment' && part.attachment.kind !== 'image' ? [contextBlock(part.attachment)] : [],
  )
  const typed = parts.flatMap((part) => (part.type === 'text' ? [part.text] : []))
  return [...blocks, ...typed].join('\n')
}

/**
 * A user message's images, by where they are saved; the adapters read the bytes. Given the images
 * folder (for a request, not an estimate), an image saved anywhere else is left out: the adapters
 * would send whatever file a stored path names, and a stored message is not proof it was Atelier's.
 */
export function userMessageImages(parts: readonly MessagePart[], imagesDir?: string): ModelImage[] {
  return parts.flatMap((part) =>
    part.type === 'attachment' &&
    part.attachment.kind === 'image' &&
    (imagesDir === undefined || isInside(resolve(imagesDir), resolve(part.attachment.path)))
      ? [{ mimeType: part.attachment.mimeType, path: part.attachment.path }]
      : [],
  )
}

/** One attachment as a block the model cannot mistake for the prompt. */
export function contextBlock(attachment: Exclude<AttachedContent, AttachedImage>): string {
  if (attachment.kind === 'notice') return `<notice from="Atelier">\n${attachment.text}\n</notice>`
  if (attachment.kind === 'file') {
    const cut = attachment.truncated ? '\n[… the rest of this file was cut]' : ''
    return `<file path="${escapeAttribute(attachment.path)}">\n${attachment.text}${cut}\n</file>`
  }
  const attributes = [
    ['server', attachment.server],
    ['uri', attachment.uri],
    ['name', attachment.name],
    ...(attachment.mimeType ? [['mimeType', attachment.mimeType]] : []),
  ]
    .map(([name, value]) => `${name}="${escapeAttribute(value ?? '')}"`)
    .join(' ')
  const cut = attachment.truncated ? '\n[… the rest of this resource was cut]' : ''
  return `<resource ${attributes}>\n${attachment.text}${cut}\n</resource>`
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')
}

/** Where each kind of attachment is read from when a prompt is sent. */
export interface AttachmentSources {
  /** The MCP servers' resources, all in one go (the servers are prepared once). */
  resources(attachments: McpResourceAttachment[]): Promise<AttachmentPart[]>
  /** A file of the chat's folder, through the path policy and read_file's size cap. */
  file(chat: Chat, path: string): Promise<AttachedFile>
  /** Saves a pasted image (its bytes checked to be what its type says) with the chat's images. */
  image(chat: Chat, image: ImageAttachment, data: Buffer): Promise<AttachedImage>
}

/**
 * Reads what a prompt attached into its message's parts, in the order attached. Everything that can
 * refuse (a resource, a file) is read before any image is saved, so a refused send leaves nothing.
 */
export async function readAttachments(
  attachments: readonly Attachment[],
  chat: Chat,
  sources: AttachmentSources,
): Promise<AttachmentPart[]> {
  if (attachments.length > MAX_ATTACHMENTS) {
    throw new AtelierError('validation_failed', `A message takes at most ${MAX_ATTACHMENTS} attachments.`)
  }
  // The images are checked first (size, type), as that costs no I/O; their total from the base64's
  // length before any is decoded, so a message of many large images is refused without decoding them.
  const pasted = attachments.filter((item): item is ImageAttachment => item.kind === 'image')
  checkMessageImages(pasted.reduce((sum, item) => sum + base64Bytes(item.base64), 0))
  const images = pasted.map((item) => ({ item, data: decodeImage(item) }))
  checkMessageImages(images.reduce((sum, { data }) => sum + data.length, 0))
  const parts = new Map<Attachment, AttachmentPart>()
  const resources = attachments.filter((item): item is McpResourceAttachment => item.kind === 'mcp-resource')
  if (resources.length > 0) {
    const read = await sources.resources(resources)
    resources.forEach((item, index) => {
      const part = read[index]
      if (part) parts.set(item, part)
    })
  }
  for (const item of attachments) {
    if (item.kind === 'file')
      parts.set(item, { type: 'attachment', attachment: await sources.file(chat, item.path) })
  }
  for (const { item, data } of images) {
    parts.set(item, { type: 'attachment', attachment: await sources.image(chat, item, data) })
  }
  return attachments.flatMap((item) => parts.get(item) ?? [])
}

/** How many bytes a base64 string decodes to, from its length alone (its padding aside). */
function base64Bytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0
  return Math.floor((base64.length * 3) / 4) - padding
}

function checkMessageImages(total: number): void {
  if (total > MAX_MESSAGE_IMAGE_BYTES) {
    throw new AtelierError(
      'validation_failed',
      `A message's images may take ${megabytes(MAX_MESSAGE_IMAGE_BYTES)} in all; these take ${megabytes(total)}.`,
    )
  }
}

/** The first bytes each image type starts with: a file that says PNG but is not one is refused here. */
const SIGNATURES: Record<ImageAttachment['mimeType'], (data: Buffer) => boolean> = {
  'image/png': (data) =>
    data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (data) => data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff,
  'image/gif': (data) => data.subarray(0, 4).toString('latin1') === 'GIF8',
  'image/webp': (data) =>
    data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP',
}

/** A pasted image's bytes, refused when too large or not the type it claims. */
export function decodeImage(image: ImageAttachment): Buffer {
  const data = Buffer.from(image.base64, 'base64')
  const name = image.name ? `"${image.name}"` : 'The image'
  if (data.length > MAX_IMAGE_BYTES) {
    throw new AtelierError(
      'validation_failed',
      `${name} takes ${megabytes(data.length)}; an image may take at most ${megabytes(MAX_IMAGE_BYTES)}.`,
    )
  }
  if (!SIGNATURES[image.mimeType](data)) {
    throw new AtelierError('validation_failed', `${name} is not a ${image.mimeType} image.`)
  }
  return data
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}
