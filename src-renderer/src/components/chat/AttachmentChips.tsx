import type { AttachedContent } from '../../../../src-shared/attachments'
import { AttachmentThumbnail } from './AttachmentThumbnail'
import type { ComposerAttachment } from './attachments'
import { ChatIcon } from './ChatIcon'

/** What a chip shows: an attachment in the composer, or as the sent message keeps it. */
export type ChipAttachment = ComposerAttachment | AttachedContent

function keyOf(attachment: ChipAttachment): string {
  switch (attachment.kind) {
    case 'mcp-resource':
      return `resource\n${attachment.server}\n${attachment.uri}`
    case 'file':
      return `file\n${attachment.path}`
    case 'notice':
      return `notice\n${attachment.name}`
    case 'image':
      return `image\n${'path' in attachment ? attachment.path : attachment.base64.slice(0, 64)}\n${attachment.name}`
  }
}

/** What the remove button says: the kind, then the name, so a screen reader tells them apart. */
const KIND_WORD = { 'mcp-resource': 'resource', file: 'file', image: 'image', notice: 'notice' } as const

function tooltipOf(attachment: ChipAttachment): string {
  const cut = 'truncated' in attachment && attachment.truncated ? ' (cut at 100,000 characters)' : ''
  switch (attachment.kind) {
    case 'mcp-resource':
      return `${attachment.server}: ${attachment.uri}${cut}`
    case 'file':
      return `${attachment.path}${cut}`
    case 'notice':
      return attachment.text
    case 'image':
      return `${attachment.name} · ${attachment.mimeType} · ${Math.max(1, Math.round(attachment.bytes / 1024))} KB`
  }
}

const ICONS = { 'mcp-resource': 'file', file: 'file', notice: 'info' } as const

/**
 * What is attached to a message: above the composer (removable) and in the sent message's bubble.
 * A resource's chip names it and its server, a file's its name (its path is the tooltip), an image's
 * is a thumbnail; a notice (what Atelier told the model with the prompt: files the person reverted)
 * names itself, its text the tooltip.
 */
export function AttachmentChips({
  attachments,
  onRemove,
  label = 'Attachments',
}: {
  attachments: readonly ChipAttachment[]
  onRemove?: (attachment: ChipAttachment) => void
  label?: string
}) {
  if (attachments.length === 0) return null
  return (
    <ul className="attachment-chips" aria-label={label}>
      {attachments.map((attachment) => (
        <li
          key={keyOf(attachment)}
          className={`attachment-chip attachment-chip--${attachment.kind}`}
          title={tooltipOf(attachment)}
        >
          {attachment.kind === 'image' ? (
            <AttachmentThumbnail image={attachment} />
          ) : (
            <ChatIcon name={ICONS[attachment.kind]} size={13} />
          )}
          <span className="attachment-chip-name">{attachment.name}</span>
          {attachment.kind === 'notice' && <span className="visually-hidden">: {attachment.text}</span>}
          {attachment.kind === 'mcp-resource' && (
            <span className="attachment-chip-server">{attachment.server}</span>
          )}
          {attachment.kind === 'file' && attachment.path !== attachment.name && (
            <span className="attachment-chip-server">{attachment.path}</span>
          )}
          {onRemove && (
            <button
              type="button"
              className="icon-button attachment-chip-remove"
              aria-label={`Remove ${KIND_WORD[attachment.kind]} ${attachment.name}`}
              onClick={() => onRemove(attachment)}
            >
              <ChatIcon name="close" size={12} />
            </button>
          )}
        </li>
      ))}
    </ul>
  )
}
