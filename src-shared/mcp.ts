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

export const McpServerInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  transport: Type.Union([Type.Literal('stdio'), Type.Literal('http')]),
  /** The exact command line (stdio) or URL (http). */
  target: Type.String(),
  enabled: Type.Boolean(),
  /** A stdio server whose command line, as it now stands, has not been approved: it is not started. */
  needsApproval: Type.Boolean(),
})
export type McpServerInfo = Static<typeof McpServerInfo>
