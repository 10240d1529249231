/**
 * MCP roots: the folders a server may work in. A connection serves every chat, so its roots are
 * the project folder of the chat whose turn (or inspection) last prepared the servers — none for a
 * chat without a folder or in chat mode, where no folder is the chat's to share.
 */
import { basename } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Root } from '@modelcontextprotocol/sdk/types.js'

export function rootsOf(folder: string | null): Root[] {
  if (!folder) return []
  return [{ uri: pathToFileURL(folder).href, name: basename(folder) || folder }]
}
