import type { Attachment, ImageAttachment } from '../../../../src-shared/attachments'

/** An attachment as the composer holds it before sending: what to ask main for, and what to call it. */
export type ComposerAttachment =
  | { kind: 'mcp-resource'; server: string; uri: string; name: string }
  /** A file of the chat's folder, chosen in the `@` menu. */
  | { kind: 'file'; path: string; name: string }
  /** A pasted or dropped image, its bytes kept here until it is sent. */
  | { kind: 'image'; mimeType: ImageAttachment['mimeType']; base64: string; name: string; bytes: number }

export const sameAttachment = (
  a: Pick<ComposerAttachment & { kind: 'mcp-resource' }, 'server' | 'uri'>,
  b: ComposerAttachment,
) => b.kind === 'mcp-resource' && a.server === b.server && a.uri === b.uri

export function toAttachment(attachment: ComposerAttachment): Attachment {
  switch (attachment.kind) {
    case 'mcp-resource':
      return { kind: 'mcp-resource', server: attachment.server, uri: attachment.uri }
    case 'file':
      return { kind: 'file', path: attachment.path }
    case 'image':
      return {
        kind: 'image',
        mimeType: attachment.mimeType,
        base64: attachment.base64,
        name: attachment.name,
      }
  }
}
