/**
 * How Atelier signs in to a remote server, as a connection needs it: the settings' `oauth` without
 * the client secret and private key, which stay sealed and are read only by the OAuth provider.
 */
export interface McpOAuthConfig {
  clientId?: string
  clientMetadataUrl?: string
  grant?: 'authorization_code' | 'client_credentials'
  scope?: string
  signingAlgorithm?: string
}

/** An MCP server as a connection needs it, and as the database keeps it. */
export type McpServerConfig = { id: string; name: string } & (
  | {
      transport: 'stdio'
      command: string
      args: string[]
      env: Record<string, string>
      cwd: string | null
      /** Runs in the sandbox (see `McpServerInput`). */
      sandboxed?: boolean
    }
  | { transport: 'http'; url: string; headers: Record<string, string>; oauth?: McpOAuthConfig }
)
