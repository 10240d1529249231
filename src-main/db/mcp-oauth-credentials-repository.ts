import type { Database } from './database'

/**
 * What OAuth keeps per remote MCP server. `client_secret` and `client_private_key` are part of the
 * server's settings (saved with them); the others are what signing in leaves behind, and
 * `sign_in_needed` what the next sign-in must ask for (a step-up's wider scope), for whichever
 * process signs in next.
 */
export type McpOAuthCredentialKind =
  | 'client_secret'
  | 'client_private_key'
  | 'client_information'
  | 'tokens'
  | 'code_verifier'
  | 'discovery'
  | 'sign_in_needed'

/** Sealed values only: the repository never sees a credential in clear. */
export class McpOAuthCredentialsRepository {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      get: db.prepare<[string, string], { sealed: Buffer }>(
        'SELECT sealed FROM mcp_oauth_credentials WHERE server_id = ? AND kind = ?',
      ),
      put: db.prepare(
        `INSERT INTO mcp_oauth_credentials (server_id, kind, sealed) VALUES (?, ?, ?)
         ON CONFLICT (server_id, kind) DO UPDATE SET sealed = excluded.sealed`,
      ),
      delete: db.prepare('DELETE FROM mcp_oauth_credentials WHERE server_id = ? AND kind = ?'),
      forgetSignIn: db.prepare(
        "DELETE FROM mcp_oauth_credentials WHERE server_id = ? AND kind NOT IN ('client_secret', 'client_private_key')",
      ),
    }
  }

  get(serverId: string, kind: McpOAuthCredentialKind): Buffer | undefined {
    return this.statements.get.get(serverId, kind)?.sealed
  }

  put(serverId: string, kind: McpOAuthCredentialKind, sealed: Buffer): void {
    this.statements.put.run(serverId, kind, sealed)
  }

  delete(serverId: string, kind: McpOAuthCredentialKind): void {
    this.statements.delete.run(serverId, kind)
  }

  /** Everything signing in left (the configured client secret and key stay). */
  forgetSignIn(serverId: string): void {
    this.statements.forgetSignIn.run(serverId)
  }
}
