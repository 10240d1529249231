import { IMAGE_MIME_TYPES, MAX_IMAGE_BYTES } from '../../../../src-shared/attachments'
import type { ComposerAttachment } from './attachments'

type ImageType = (typeof IMAGE_MIME_TYPES)[number]

const isImageType = (type: string): type is ImageType =>
  (IMAGE_MIME_TYPES as readonly string[]).includes(type)

/** The image files a paste or a drop carries (any image type: an unsupported one is said so). */
export function imageFiles(data: DataTransfer | null): File[] {
  if (!data) return []
  return Array.from(data.files).filter((file) => file.type.startsWith('image/'))
}

/** A pasted or dropped image as an attachment, or why it cannot be one. */
export async function readImage(
  file: File,
): Promise<Extract<ComposerAttachment, { kind: 'image' }> | { error: string }> {
  const name = file.name || 'Pasted image'
  if (!isImageType(file.type)) {
    return { error: `“${name}” is a ${file.type} image; a message takes PNG, JPEG, GIF or WebP.` }
  }
  if (file.size > MAX_IMAGE_BYTES) {
    const size = (file.size / (1024 * 1024)).toFixed(1)
    return {
      error: `“${name}” takes ${size} MB; an image may take at most ${MAX_IMAGE_BYTES / (1024 * 1024)} MB.`,
    }
  }
  const bytes = new Uint8Array(await file.arrayBuffer())
  return { kind: 'image', mimeType: file.type, base64: toBase64(bytes), name, bytes: bytes.length }
}

function toBase64(bytes: Uint8Array): string {
  // In slices: String.fromCharCode with a whole image's bytes as arguments overflows the stack.
  let binary = ''
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000))
  }
  return btoa(binary)
}
