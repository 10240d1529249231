/**
 * A stored MCP server as one use of it needs it — a connection's launch, a sign-in's target — with
 * its sealed values opened for that use only; a value that cannot be opened fails here, naming it.
 */
import { AtelierError } from '../../../src-shared/errors'
import { MCP_URL, type SealedSecrets, type SealedUrl } from '../../core/sealed-secrets'
import type { StoredMcpServer } from '../../db/mcp-servers-repository'
import type { McpServerConfig } from './mcp-connection'
import type { OAuthTarget } from './oauth/mcp-oauth'

/** Where a person types a secret of an MCP server again once its seal no longer opens. */
const RETYPE = 'type it again in Settings → MCP, or add the server again with `atelier mcp add`'

/** A sealed value of a server's settings, opened; `name` says which, should it fail. */
export function openSealed(secrets: SealedSecrets, name: string, sealed: Buffer): string {
  return secrets.open(sealed, name, RETYPE)
}

/** A remote server's URL as typed, stored: see `SealedSecrets.sealUrl`. */
export function sealUrl(secrets: SealedSecrets, typed: string, kept: SealedUrl | undefined): SealedUrl {
  return secrets.sealUrl(typed, kept, MCP_URL)
}

/** The server as a connection needs it: its secret values unsealed, for this launch only. */
export function launchConfig(server: StoredMcpServer, secrets: SealedSecrets): McpServerConfig {
  const { enabled: _, approvedLaunch: __, secrets: sealed, oauthSecrets, sealedUrl, ...config } = server
  // Unsealed here only to fail now, as unlaunchable, rather than inside the connection.
  if (oauthSecrets?.clientSecret) openSealed(secrets, 'the OAuth client secret', oauthSecrets.clientSecret)
  if (oauthSecrets?.clientPrivateKey) {
    openSealed(secrets, 'the OAuth private key', oauthSecrets.clientPrivateKey)
  }
  const unsealed = Object.fromEntries(
    Object.entries(sealed).map(([name, value]) => [name, openSealed(secrets, name, value)]),
  )
  if (config.transport === 'stdio') return { ...config, env: { ...config.env, ...unsealed } }
  const url = secrets.openUrl({ shown: config.url, sealed: sealedUrl }, MCP_URL.what, RETYPE)
  return { ...config, url, headers: { ...config.headers, ...unsealed } }
}

/** A remote server as signing in needs it: its headers, client secret and key unsealed, for this use only. */
export function oauthTarget(server: StoredMcpServer, secrets: SealedSecrets): OAuthTarget {
  const config = launchConfig(server, secrets)
  if (config.transport !== 'http') {
    throw new AtelierError('invalid_transport', `“${server.name}” is a stdio server: it has no sign-in.`)
  }
  const { clientSecret, clientPrivateKey } = server.oauthSecrets ?? {}
  return {
    id: server.id,
    name: server.name,
    url: config.url,
    headers: config.headers,
    settings: {
      ...config.oauth,
      ...(clientSecret && { clientSecret: openSealed(secrets, 'the OAuth client secret', clientSecret) }),
      ...(clientPrivateKey && {
        clientPrivateKey: openSealed(secrets, 'the OAuth private key', clientPrivateKey),
      }),
    },
  }
}
