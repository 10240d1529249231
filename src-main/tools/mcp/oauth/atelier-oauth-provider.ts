/**
 * Atelier's side of the SDK's OAuth client: where the registration, tokens, PKCE verifier and
 * discovered metadata of a server are kept (sealed, per server), and what "go to the authorization
 * page" means. The SDK does the protocol — discovery, registration, PKCE, token requests, refresh,
 * step-up — and calls in here.
 *
 * Two modes. Interactive: a sign-in the person asked for, with a loopback listener waiting for the
 * browser to come back; the authorization URL is handed to whoever opens it. Passive: a turn or the
 * inspector using the server; stored tokens are sent and refreshed as the SDK sees fit, but nothing
 * is registered and no browser is opened — a flow that would need the person only records that the
 * server needs sign-in.
 */
import { createPrivateKey, randomBytes } from 'node:crypto'
import {
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js'
import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/sdk/client/auth-extensions.js'
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js'
import { AtelierError } from '../../../../src-shared/errors'
import type { McpOAuthConfig } from '../../../core/mcp-server-config'
import type { OAuthCredentials } from './oauth-credentials'

/** A server's `oauth` settings with the client secret and key unsealed, for this provider only. */
export type OAuthSettings = McpOAuthConfig & { clientSecret?: string; clientPrivateKey?: string }

/**
 * Passive providers never send anyone to the authorization page, so the redirect they name is never
 * visited; the SDK only needs one to tell an authorization-code client from a machine client.
 */
const PASSIVE_REDIRECT_URL = 'http://127.0.0.1/callback'

export interface InteractiveSignIn {
  /** The loopback listener's URL. */
  redirectUrl: string
  /** The `state` the listener expects back. */
  state: string
  /** Stored tokens are not offered: the person is signing in again for more (a step-up). */
  freshAuthorization: boolean
  /** The SDK has the authorization URL: the person must visit it. */
  redirect(url: URL): void
  /** A newer sign-in of the same server replaced this one: the verifier stored is that one's. */
  superseded(): boolean
}

export interface ProviderEvents {
  /**
   * A passive flow stopped where the person would be needed: before registering a client, or at
   * the authorization page (`reachedAuthorization`), with the scope it would have asked for.
   */
  signInNeeded(scope: string | undefined, reachedAuthorization: boolean): void
  /** Tokens were stored (received or refreshed). */
  tokensSaved(): void
}

/** A passive flow reached the point where only the person can go on. */
export class SignInRequiredError extends AtelierError {
  override readonly name = 'SignInRequiredError'

  constructor(message: string) {
    super('needs_sign_in', message)
  }
}

export class AtelierOAuthProvider implements OAuthClientProvider {
  /** A passive flow stopped where the person would have been needed. */
  signInNeeded = false
  private tokensSavedHere = false

  constructor(
    private readonly credentials: OAuthCredentials,
    private readonly settings: OAuthSettings,
    private readonly interactive: InteractiveSignIn | undefined,
    private readonly events: ProviderEvents,
  ) {}

  get redirectUrl(): string {
    return this.interactive?.redirectUrl ?? PASSIVE_REDIRECT_URL
  }

  get clientMetadataUrl(): string | undefined {
    return this.settings.clientMetadataUrl
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Atelier',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A desktop app cannot keep a secret of its own; only a configured one is used.
      token_endpoint_auth_method: this.settings.clientSecret ? 'client_secret_basic' : 'none',
      ...(this.settings.scope && { scope: this.settings.scope }),
    }
  }

  state(): string {
    return this.interactive?.state ?? randomBytes(16).toString('base64url')
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const stored = this.credentials.read<OAuthClientInformationMixed>('client_information')
    const { clientId, clientSecret } = this.settings
    if (clientId) {
      // Pre-registered: the settings say who we are; a stored copy only adds the SDK's issuer stamp.
      if (stored?.client_id === clientId && stored.client_secret === clientSecret) return stored
      return { client_id: clientId, ...(clientSecret && { client_secret: clientSecret }) }
    }
    const redirectUris = (stored as { redirect_uris?: string[] } | undefined)?.redirect_uris
    // Registered for another loopback port (that one was taken this time): registered again.
    if (stored && this.interactive && redirectUris?.length && !redirectUris.includes(this.redirectUrl)) {
      return undefined
    }
    if (!stored && !this.interactive) {
      // Registering a client is part of signing in, which only the person starts.
      this.needsSignIn(undefined, false)
      throw new SignInRequiredError('needs sign-in: this server has not been signed in to')
    }
    return stored
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.credentials.write('client_information', information)
  }

  tokens(): OAuthTokens | undefined {
    if (this.interactive?.freshAuthorization && !this.tokensSavedHere) return undefined
    return this.credentials.read<OAuthTokens>('tokens')
  }

  saveTokens(tokens: OAuthTokens): void {
    // As received: the SDK's issuer stamp must come back unchanged.
    this.credentials.write('tokens', tokens)
    this.tokensSavedHere = true
    this.events.tokensSaved()
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    if (this.interactive) this.interactive.redirect(authorizationUrl)
    else this.needsSignIn(authorizationUrl.searchParams.get('scope') ?? undefined, true)
  }

  saveCodeVerifier(codeVerifier: string): void {
    // A passive flow never goes on to a code, and must not replace the verifier of a sign-in under way.
    if (this.interactive && !this.interactive.superseded())
      this.credentials.write('code_verifier', codeVerifier)
  }

  codeVerifier(): string {
    const verifier = this.credentials.read<string>('code_verifier')
    if (!verifier)
      throw new AtelierError(
        'sign_in_failed',
        'No sign-in is under way for this server (no PKCE code verifier is stored).',
      )
    return verifier
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.credentials.write('discovery', state)
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.credentials.read<OAuthDiscoveryState>('discovery')
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all') this.credentials.forget('client_information', 'tokens', 'code_verifier', 'discovery')
    else if (scope === 'client') this.credentials.forget('client_information')
    else if (scope === 'verifier') this.credentials.forget('code_verifier')
    else this.credentials.forget(scope)
  }

  /**
   * The server refused a request for want of scope (403 `insufficient_scope`). The SDK tries a
   * refresh first; until tokens that suffice are stored, signing in again (for that scope) is what
   * will help, so it is recorded now rather than lost in the SDK's "403 after trying upscoping".
   */
  refused(response: Response): void {
    const { error, scope } = extractWWWAuthenticateParams(response)
    if (error === 'insufficient_scope' && !this.interactive) this.needsSignIn(scope, true)
  }

  private needsSignIn(scope: string | undefined, reachedAuthorization: boolean): void {
    this.signInNeeded = true
    this.events.signInNeeded(scope, reachedAuthorization)
  }
}

/**
 * A machine client (`grant: client_credentials`): no redirect, so the SDK asks the token endpoint
 * for a token directly. What the SDK's `ClientCredentialsProvider` does, with the tokens, the
 * discovered metadata and the client's binding to its authorization server kept sealed: the first
 * sign-in binds the configured client to the authorization server it was sent to (the SDK stamps
 * it), and from then on the SDK refuses to send the secret to any other one the server might name.
 */
export class StoredClientCredentialsProvider implements OAuthClientProvider {
  /** With a private key: the token requests carry a JWT it signed (`private_key_jwt`), not a secret. */
  readonly addClientAuthentication: OAuthClientProvider['addClientAuthentication']

  constructor(
    private readonly credentials: OAuthCredentials,
    private readonly settings: OAuthSettings,
    private readonly onTokensSaved: () => void,
  ) {
    const { clientId = '', clientPrivateKey, signingAlgorithm } = settings
    this.addClientAuthentication = clientPrivateKey
      ? createPrivateKeyJwtAuth({
          issuer: clientId,
          subject: clientId,
          privateKey: clientPrivateKey,
          alg: signingAlgorithmOf(clientPrivateKey, signingAlgorithm),
        })
      : undefined
  }

  get redirectUrl(): undefined {
    return undefined
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Atelier',
      redirect_uris: [],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: this.settings.clientPrivateKey ? 'private_key_jwt' : 'client_secret_basic',
      ...(this.settings.scope && { scope: this.settings.scope }),
    }
  }

  clientInformation(): OAuthClientInformationMixed {
    const { clientId = '', clientSecret } = this.settings
    const stored = this.credentials.read<OAuthClientInformationMixed>('client_information')
    if (stored?.client_id === clientId && stored.client_secret === clientSecret) return stored
    return { client_id: clientId, ...(clientSecret && { client_secret: clientSecret }) }
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.credentials.write('client_information', information)
  }

  tokens(): OAuthTokens | undefined {
    return this.credentials.read<OAuthTokens>('tokens')
  }

  saveTokens(tokens: OAuthTokens): void {
    this.credentials.write('tokens', tokens)
    this.onTokensSaved()
  }

  redirectToAuthorization(): void {
    throw new AtelierError('invalid_oauth', 'A client-credentials sign-in has no authorization page.')
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new AtelierError('invalid_oauth', 'A client-credentials sign-in has no code verifier.')
  }

  prepareTokenRequest(scope?: string): URLSearchParams {
    return new URLSearchParams({ grant_type: 'client_credentials', ...(scope && { scope }) })
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.credentials.write('discovery', state)
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.credentials.read<OAuthDiscoveryState>('discovery')
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'tokens') this.credentials.forget('tokens')
    if (scope === 'all' || scope === 'discovery') this.credentials.forget('discovery')
  }
}

/**
 * The JWS algorithm a PEM private key signs with: the one configured, checked against the key, or
 * the usual one for it (ES256/ES384/ES512 by curve, RS256, PS256). A key that cannot sign is refused
 * with `invalid_oauth`; one that cannot be read at all, with Node's own error.
 */
export function signingAlgorithmOf(pem: string, configured: string | undefined): string {
  if (!pem.includes('-----BEGIN PRIVATE KEY-----')) {
    throw new AtelierError('invalid_oauth', 'it must be a PKCS #8 PEM key ("-----BEGIN PRIVATE KEY-----")')
  }
  const key = createPrivateKey(pem)
  const type = key.asymmetricKeyType
  const curve = key.asymmetricKeyDetails?.namedCurve
  const usual =
    type === 'ec'
      ? ({ prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' } as Record<string, string>)[
          curve ?? ''
        ]
      : type === 'rsa'
        ? 'RS256'
        : type === 'rsa-pss'
          ? 'PS256'
          : undefined
  if (!usual) {
    throw new AtelierError(
      'invalid_oauth',
      `a ${type}${curve ? ` (${curve})` : ''} key cannot sign client assertions`,
    )
  }
  if (!configured) return usual
  const family = configured.slice(0, 2)
  const fits = type === 'ec' ? configured === usual : family === 'RS' || family === 'PS'
  if (!fits)
    throw new AtelierError('invalid_oauth', `${configured} does not fit a ${type} key (use ${usual})`)
  return configured
}
