import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { type DisplayImage, INLINE_IMAGE_TYPES } from '../../../src-shared/tools'
import type { ToolOutput } from '../types'

/**
 * An MCP result as the model reads it: text as text, images and audio described (raster images go
 * to the UI as the display, other media through `data`, never into the context), resources by
 * their text or URI, and structured content as JSON when the server gave nothing else to read.
 */
export function toToolOutput(result: CallToolResult): ToolOutput {
  const lines: string[] = []
  const images: DisplayImage[] = []
  const media: { type: string; mimeType: string; data: string }[] = []
  for (const item of result.content ?? []) {
    switch (item.type) {
      case 'text':
        lines.push(item.text)
        break
      case 'image':
      case 'audio':
        if (item.type === 'image' && INLINE_IMAGE_TYPES.has(item.mimeType)) {
          images.push({ mimeType: item.mimeType, data: item.data })
        } else media.push({ type: item.type, mimeType: item.mimeType, data: item.data })
        lines.push(
          `[${item.type}: ${item.mimeType}, ${Math.round((item.data.length * 3) / 4)} bytes, shown to the user]`,
        )
        break
      case 'resource': {
        const { resource } = item
        lines.push(
          'text' in resource
            ? resource.text
            : `[resource ${resource.uri} (${resource.mimeType ?? 'binary'})]`,
        )
        break
      }
      case 'resource_link':
        lines.push(`[resource ${item.uri}${item.description ? `: ${item.description}` : ''}]`)
        break
    }
  }
  if (result.structuredContent !== undefined && lines.length === 0) {
    lines.push(JSON.stringify(result.structuredContent, null, 2))
  }
  return {
    content: lines.join('\n') || '(no output)',
    isError: result.isError === true,
    ...(images.length > 0 && { display: { kind: 'images', images } }),
    ...((media.length > 0 || result.structuredContent !== undefined) && {
      data: {
        ...(media.length > 0 && { media }),
        ...(result.structuredContent !== undefined && { structured: result.structuredContent }),
      },
    }),
  }
}
