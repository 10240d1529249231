/**
 * One server's OAuth credentials at rest: each a JSON value sealed, so the database never holds a
 * token, a client secret or a verifier in clear.
 */
import type { SealedSecrets } from '../../../core/sealed-secrets'
import type {
  McpOAuthCredentialKind,
  McpOAuthCredentialsRepository,
} from '../../../db/mcp-oauth-credentials-repository'

export class OAuthCredentials {
  constructor(
    private readonly repository: McpOAuthCredentialsRepository,
    private readonly secrets: SealedSecrets,
    readonly serverId: string,
  ) {}

  /**
   * The value as stored; undefined when there is none or its seal no longer opens (the key file was
   * replaced): a credential that cannot be read is one to sign in for again, not a failure.
   */
  read<T>(kind: McpOAuthCredentialKind): T | undefined {
    const sealed = this.repository.get(this.serverId, kind)
    const text = sealed && this.secrets.openOrNothing(sealed)
    return text === undefined ? undefined : (JSON.parse(text) as T)
  }

  has(kind: McpOAuthCredentialKind): boolean {
    return this.repository.get(this.serverId, kind) !== undefined
  }

  write(kind: McpOAuthCredentialKind, value: unknown): void {
    this.repository.put(this.serverId, kind, this.secrets.seal(JSON.stringify(value)))
  }

  forget(...kinds: McpOAuthCredentialKind[]): void {
    for (const kind of kinds) this.repository.delete(this.serverId, kind)
  }
}
