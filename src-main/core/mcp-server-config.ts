/** An MCP server as a connection needs it, and as the database keeps it. */
export type McpServerConfig = { id: string; name: string } & (
  | { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd: string | null }
  | { transport: 'http'; url: string; headers: Record<string, string> }
)
