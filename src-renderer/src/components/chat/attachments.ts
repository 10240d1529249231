import type { ChatMessage } from '../../../../src-shared/agent'
import type { Attachment } from '../../../../src-shared/attachments'

/** An attachment as the composer holds it before sending: what to ask main for, and what to call it. */
export interface ComposerAttachment {
  server: string
  uri: string
  name: string
}

export const sameAttachment = (a: Pick<ComposerAttachment, 'server' | 'uri'>, b: ComposerAttachment) =>
  a.server === b.server && a.uri === b.uri

export function toAttachment({ server, uri }: ComposerAttachment): Attachment {
  return { kind: 'mcp-resource', server, uri }
}

/** What a stored prompt had attached, so a retry sends it again with them. */
export function attachmentsOf(message: ChatMessage | undefined): ComposerAttachment[] {
  return (message?.parts ?? []).flatMap((part) =>
    part.type === 'attachment'
      ? [{ server: part.attachment.server, uri: part.attachment.uri, name: part.attachment.name }]
      : [],
  )
}
