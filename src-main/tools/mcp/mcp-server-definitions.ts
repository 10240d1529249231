/**
 * An MCP server as the person types it (`McpServerInput`) turned into the one the database keeps,
 * and back: values marked secret sealed, masked ones kept as stored, a remote server's URL and OAuth
 * settings checked before anything is saved — and, the other way, the masked form every listing shows.
 */
import { isHttpsUrl } from '@modelcontextprotocol/sdk/client/auth.js'
import { AtelierError, errorMessage } from '../../../src-shared/errors'
import { isSecret, type McpOAuthSettings, type McpServerInput } from '../../../src-shared/mcp'
import { MASKED_VALUE } from '../../../src-shared/secrets'
import type { McpOAuthConfig } from '../../core/mcp-server-config'
import type { SealedSecrets } from '../../core/sealed-secrets'
import type { OAuthSecrets, StoredMcpServer } from '../../db/mcp-servers-repository'
import type { McpServerConfig } from './mcp-connection'
import { openSealed, sealUrl } from './mcp-launch-config'
import { signingAlgorithmOf } from './oauth/atelier-oauth-provider'

/** A server as its settings say, before `enabled` and the approval. */
export type StoredDefinition = McpServerConfig &
  Pick<StoredMcpServer, 'secrets' | 'oauthSecrets' | 'sealedUrl'>

/**
 * The server as the database keeps it: every value sealed but those the person marked not
 * secret, and a remote server's URL sealed when it carries credentials. `current`: the server as
 * stored before an edit, whose values (and URL credentials) a masked one keeps.
 */
export function storedDefinition(
  id: string,
  input: McpServerInput,
  current: StoredMcpServer | undefined,
  secrets: SealedSecrets,
): StoredDefinition {
  const typed = (input.transport === 'stdio' ? input.env : input.headers) ?? {}
  for (const name of Object.keys(input.secret ?? {})) {
    if (!(name in typed)) {
      throw new AtelierError('invalid_secret', `${name} is marked secret or public, but has no value.`, {
        name,
      })
    }
  }
  // Names mean environment variables of a stdio server and headers of a remote one.
  const kept = current?.transport === input.transport ? current : undefined
  const clear: Record<string, string> = {}
  const sealed: Record<string, Buffer> = {}
  for (const [name, sent] of Object.entries(typed)) {
    const value = sent === MASKED_VALUE ? storedValue(kept, name, secrets) : sent
    if (isSecret(input.secret, name)) sealed[name] = secrets.seal(value, kept?.secrets[name])
    else clear[name] = value
  }
  if (input.transport === 'stdio') {
    return {
      id,
      name: input.name,
      transport: 'stdio',
      command: input.command,
      args: input.args ?? [],
      env: clear,
      cwd: input.cwd ?? null,
      ...(input.sandboxed && { sandboxed: true }),
      secrets: sealed,
    }
  }
  const keptUrl = kept?.transport === 'http' ? { shown: kept.url, sealed: kept.sealedUrl } : undefined
  const url = sealUrl(secrets, validUrl(input.url), keptUrl)
  return {
    id,
    name: input.name,
    transport: 'http',
    url: url.shown,
    headers: clear,
    secrets: sealed,
    ...(url.sealed && { sealedUrl: url.sealed }),
    ...oauthFrom(input.oauth, kept, secrets),
  }
}

/**
 * The server for the edit form and every listing: secret values (and URL credentials) masked,
 * and the values marked not secret named as such.
 */
export function maskedDefinition(server: StoredMcpServer): McpServerInput {
  const masked = Object.fromEntries(Object.keys(server.secrets).map((name) => [name, MASKED_VALUE]))
  const clear = clearValues(server)
  const values = { ...clear, ...masked }
  const marks = Object.keys(clear).map((name) => [name, false] as const)
  const secret = marks.length > 0 ? { secret: Object.fromEntries(marks) } : {}
  return server.transport === 'stdio'
    ? {
        name: server.name,
        transport: 'stdio',
        command: server.command,
        args: server.args,
        env: values,
        ...secret,
        cwd: server.cwd,
        ...(server.sandboxed && { sandboxed: true }),
      }
    : {
        name: server.name,
        transport: 'http',
        url: server.url,
        headers: values,
        ...secret,
        ...(server.oauth && {
          oauth: {
            ...server.oauth,
            ...(server.oauthSecrets?.clientSecret && { clientSecret: MASKED_VALUE }),
            ...(server.oauthSecrets?.clientPrivateKey && { clientPrivateKey: MASKED_VALUE }),
          },
        }),
      }
}

/** What a server's tokens and registration are bound to: its URL and how it signs in. */
export function signInOf(server: StoredMcpServer): string {
  if (server.transport !== 'http') return ''
  const { clientSecret, clientPrivateKey } = server.oauthSecrets ?? {}
  return JSON.stringify([
    server.url,
    server.sealedUrl?.toString('base64') ?? '',
    server.oauth ?? {},
    clientSecret?.toString('base64') ?? '',
    clientPrivateKey?.toString('base64') ?? '',
  ])
}

/**
 * A remote server's `oauth` settings as stored: the client secret and private key sealed
 * (`MASKED_VALUE` keeps the stored one), the rest in clear, checked so that a sign-in cannot fail
 * later for a reason known now.
 */
function oauthFrom(
  input: McpOAuthSettings | undefined,
  current: StoredMcpServer | undefined,
  secrets: SealedSecrets,
): { oauth?: McpOAuthConfig; oauthSecrets?: OAuthSecrets } {
  if (!input) return {}
  const { clientSecret, clientPrivateKey, ...settings } = input
  const oauth = Object.fromEntries(
    Object.entries(settings).filter(([, value]) => value !== undefined && value !== ''),
  ) as McpOAuthConfig
  if (oauth.clientMetadataUrl !== undefined && !isHttpsUrl(oauth.clientMetadataUrl)) {
    throw new AtelierError(
      'invalid_oauth',
      `A client metadata document URL is https with a path, not "${oauth.clientMetadataUrl}".`,
    )
  }
  if ((clientSecret || clientPrivateKey) && !oauth.clientId) {
    throw new AtelierError('invalid_oauth', 'A client secret or key needs the client id it belongs to.')
  }
  if (clientPrivateKey && oauth.grant !== 'client_credentials') {
    throw new AtelierError('invalid_oauth', 'A private key signs client-credentials requests only.')
  }
  if (clientSecret && clientPrivateKey) {
    throw new AtelierError('invalid_oauth', 'A client authenticates with a secret or with a key, not both.')
  }
  if (oauth.grant === 'client_credentials' && !(oauth.clientId && (clientSecret || clientPrivateKey))) {
    throw new AtelierError(
      'invalid_oauth',
      'Client credentials need a client id, and a client secret or private key.',
    )
  }
  const stored = current?.oauthSecrets
  const sealed: OAuthSecrets = {}
  for (const [field, value, label] of [
    ['clientSecret', clientSecret, 'client secret'],
    ['clientPrivateKey', clientPrivateKey, 'private key'],
  ] as const) {
    if (value === MASKED_VALUE) {
      const kept = stored?.[field]
      if (!kept) {
        throw new AtelierError('secret_missing', `The OAuth ${label} has no stored value to keep: type it.`, {
          name: field,
        })
      }
      sealed[field] = kept
    } else if (value) {
      if (field === 'clientPrivateKey') checkPrivateKey(value, oauth.signingAlgorithm)
      sealed[field] = secrets.seal(value, stored?.[field])
    }
  }
  return { oauth, ...(Object.keys(sealed).length > 0 && { oauthSecrets: sealed }) }
}

/** What `name` holds now, for a value sent back masked. */
function storedValue(server: StoredMcpServer | undefined, name: string, secrets: SealedSecrets): string {
  const sealed = server?.secrets[name]
  if (server && sealed) return openSealed(secrets, name, sealed)
  const value = server && clearValues(server)[name]
  if (value === undefined) {
    throw new AtelierError('secret_missing', `${name} has no stored value to keep: type its value.`, {
      name,
    })
  }
  return value
}

/** The values kept in the clear: a stdio server's environment, a remote server's headers. */
function clearValues(server: StoredDefinition): Record<string, string> {
  return server.transport === 'stdio' ? server.env : server.headers
}

/** A private key that cannot sign is refused when it is typed, not at the first sign-in. */
function checkPrivateKey(pem: string, algorithm: string | undefined): void {
  try {
    signingAlgorithmOf(pem, algorithm)
  } catch (error) {
    throw new AtelierError('invalid_oauth', `The OAuth private key cannot be used: ${errorMessage(error)}`)
  }
}

function validUrl(url: string): string {
  if (!/^https?:\/\/\S+$/.test(url)) throw new AtelierError('invalid_url', `"${url}" is not an http(s) URL.`)
  return url
}
