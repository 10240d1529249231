import { createHash } from 'node:crypto'

const MAX_NAME = 64

/**
 * The registry name of an MCP server's tool: `server__tool`, cut to the characters and length every
 * provider accepts. A name that had to change gets a short hash of the original, so it stays unique
 * and the same across restarts.
 */
export function mcpToolName(server: string, tool: string): string {
  const wanted = `${server}__${tool}`
  const safe = wanted.replace(/[^a-zA-Z0-9_-]/g, '_')
  if (safe === wanted && safe.length <= MAX_NAME) return safe
  const hash = createHash('sha256').update(wanted).digest('hex').slice(0, 8)
  return `${safe.slice(0, MAX_NAME - hash.length - 1)}_${hash}`
}
