/** MCP servers as the settings page edits them. */
import { type Static, Type } from '@sinclair/typebox'

const Name = Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-zA-Z0-9_-]+$' })
const StringMap = Type.Record(Type.String(), Type.String())

export const McpServerInput = Type.Union([
  Type.Object(
    {
      name: Name,
      transport: Type.Literal('stdio'),
      command: Type.String({ minLength: 1, maxLength: 4096 }),
      args: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 200 })),
      env: Type.Optional(StringMap),
      cwd: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()])),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      name: Name,
      transport: Type.Literal('http'),
      url: Type.String({ pattern: '^https?://\\S+$', maxLength: 2000 }),
      headers: Type.Optional(StringMap),
    },
    { additionalProperties: false },
  ),
])
export type McpServerInput = Static<typeof McpServerInput>

/** A server as a turn or the inspector found it: connected with its tools, or why not. */
export const McpServerStatus = Type.Object({
  id: Type.String(),
  name: Type.String(),
  connected: Type.Boolean(),
  /** Its tools under the names the model sees. */
  tools: Type.Array(Type.String()),
  error: Type.Optional(Type.String()),
})
export type McpServerStatus = Static<typeof McpServerStatus>

export const McpServerInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  transport: Type.Union([Type.Literal('stdio'), Type.Literal('http')]),
  /** The exact command line (stdio) or URL (http). */
  target: Type.String(),
  enabled: Type.Boolean(),
  /**
   * A stdio server whose launch (command line, environment, working folder), as it now stands, has
   * not been approved: it is not started.
   */
  needsApproval: Type.Boolean(),
  /** The server as added or last edited, for the edit form. */
  definition: McpServerInput,
  /** A session is open (a stdio server's process runs). Servers connect only for a turn or the inspector. */
  running: Type.Boolean(),
  /** Why the last connection or tool listing failed. */
  error: Type.Optional(Type.String()),
  /** Its tools under the names the model sees, as last listed (empty before it first ran). */
  tools: Type.Array(Type.String()),
})
export type McpServerInfo = Static<typeof McpServerInfo>
