/**
 * Attachments as the model reads them: each one a delimited block of context before the prompt,
 * so the model can tell what the person attached from what they wrote.
 */
import type { MessagePart } from '../../src-shared/agent'
import type { AttachedContent } from '../../src-shared/attachments'

/** A user message's text for the model: its attachments' blocks first, then what was typed. */
export function userMessageText(parts: readonly MessagePart[]): string {
  const blocks = parts.flatMap((part) => (part.type === 'attachment' ? [contextBlock(part.attachment)] : []))
  const typed = parts.flatMap((part) => (part.type === 'text' ? [part.text] : []))
  return [...blocks, ...typed].join('\n')
}

/** One attachment as a block the model cannot mistake for the prompt. */
export function contextBlock(attachment: AttachedContent): string {
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
