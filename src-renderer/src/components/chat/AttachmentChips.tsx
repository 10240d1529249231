import { ChatIcon } from './ChatIcon'

interface ChipAttachment {
  server: string
  uri: string
  name: string
  truncated?: boolean
}

/**
 * Resources attached to a message: above the composer (removable) and in the sent message's bubble.
 * Each chip names the resource and its server; its URI is the tooltip.
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
          key={`${attachment.server}\n${attachment.uri}`}
          className="attachment-chip"
          title={`${attachment.server}: ${attachment.uri}${attachment.truncated ? ' (cut at 100,000 characters)' : ''}`}
        >
          <ChatIcon name="file" size={13} />
          <span className="attachment-chip-name">{attachment.name}</span>
          <span className="attachment-chip-server">{attachment.server}</span>
          {onRemove && (
            <button
              type="button"
              className="icon-button attachment-chip-remove"
              aria-label={`Remove resource ${attachment.name}`}
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
