/**
 * Signing in to remote MCP servers (OAuth 2.1, as the MCP authorization specification has it), and
 * each server's sign-in state. The person starts a sign-in; it resolves as soon as the authorization
 * URL is known (the desktop app opens it in the system browser, the web host and the CLI show it)
 * and completes in the background when the browser comes back to the loopback listener: the code is
 * exchanged, the server is connected again so its tools are listed, and settings hear of it.
 * Connections made for turns and the inspector get a passive provider: they use and refresh stored
 * tokens, and where the person would be needed they only mark the server as needing sign-in.
 */
import { randomBytes } from 'node:crypto'
import { auth, type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import packageJson from '../../../../package.json'
import { AtelierError, errorMessage } from '../../../../src-shared/errors'
import type { McpAuthState, McpServerStatus, McpSignIn } from '../../../../src-shared/mcp'
import type { SealedSecrets } from '../../../core/sealed-secrets'
import type { McpOAuthCredentialsRepository } from '../../../db/mcp-oauth-credentials-repository'
import {
  AtelierOAuthProvider,
  type OAuthSettings,
  StoredClientCredentialsProvider,
} from './atelier-oauth-provider'
import { CALLBACK_PATH, type LoopbackCallback, listenForCallback } from './loopback-callback'
import { OAuthCredentials } from './oauth-credentials'

/** How long a sign-in waits for the browser to come back. */
export const SIGN_IN_TIMEOUT_MS = 5 * 60 * 1000

/** A remote server as signing in to it needs it. */
export interface OAuthTarget {
  id: string
  name: string
  url: string
  headers: Record<string, string>
  settings: OAuthSettings
}

export interface McpOAuthOptions {
  repository: McpOAuthCredentialsRepository
  secrets: SealedSecrets
  /** Opens a URL in the system browser (the desktop app); true when it did. */
  openExternal?: (url: string) => boolean | Promise<boolean>
  timeoutMs?: number
  /** A server's sign-in state moved. */
  onChange(): void
}

/**
 * A passive flow stopped at the person: `scope` is what it would have asked for (a step-up's wider
 * one). Stored with the server's credentials, so a sign-in started by another process (`atelier
 * mcp login` after `atelier run` was refused) asks for it too.
 */
interface NeedsSignIn {
  reachedAuthorization: boolean
  scope?: string
}

/**
 * A sign-in under way, recorded before its first await: a newer sign-in of the same server (or
 * signing out) sets `cancelled` and closes its listener, and from then on it writes nothing.
 */
interface PendingSignIn {
  callback?: LoopbackCallback
  completion?: Promise<void>
  cancelled?: Error
}

/** Connects the server again after signing in; its status, or undefined when it is off. */
export type Reconnect = () => Promise<McpServerStatus | undefined>

export class McpOAuth {
  /** Why the last sign-in of a server failed (timed out, refused, the exchange failed). */
  private readonly failures = new Map<string, string>()
  private readonly pending = new Map<string, PendingSignIn>()
  private readonly timeoutMs: number

  constructor(private readonly options: McpOAuthOptions) {
    this.timeoutMs = options.timeoutMs ?? SIGN_IN_TIMEOUT_MS
  }

  /** For a connection of a turn or the inspector: stored tokens, refreshed; never a browser. */
  passiveProvider(target: OAuthTarget): OAuthClientProvider {
    const credentials = this.credentials(target.id)
    if (target.settings.grant === 'client_credentials') {
      return new StoredClientCredentialsProvider(credentials, target.settings, () => this.signedIn(target.id))
    }
    return new AtelierOAuthProvider(credentials, target.settings, undefined, {
      signInNeeded: (scope, reachedAuthorization) =>
        this.markNeedsSignIn(target.id, scope, reachedAuthorization),
      tokensSaved: () => this.signedIn(target.id),
    })
  }

  /** `refused`: the server's last connection was refused as unauthorized. */
  state(serverId: string, refused: boolean): McpAuthState {
    const credentials = this.credentials(serverId)
    if (refused || credentials.has('sign_in_needed')) return 'needs-sign-in'
    return credentials.has('tokens') ? 'signed-in' : 'none'
  }

  failure(serverId: string): string | undefined {
    return this.failures.get(serverId)
  }

  /**
   * Starts signing in. A sign-in of the same server still waiting for the browser is dropped. Client
   * credentials, a stored token that still works, or a refresh need no browser: then it is done when
   * this resolves, with `authorizationUrl: null`.
   */
  async signIn(target: OAuthTarget, reconnect: Reconnect): Promise<McpSignIn> {
    this.cancel(target.id, new AtelierError('sign_in_superseded', 'A new sign-in replaced this one.'))
    this.failures.delete(target.id)
    if (target.settings.grant === 'client_credentials') return this.signInAsMachine(target, reconnect)

    // Recorded before anything is awaited, so a sign-in started meanwhile replaces this one.
    const entry: PendingSignIn = {}
    this.pending.set(target.id, entry)
    const credentials = this.credentials(target.id)
    const state = randomBytes(16).toString('base64url')
    let callback: LoopbackCallback
    try {
      callback = await listenForCallback({
        state,
        port: registeredPort(credentials),
        timeoutMs: this.timeoutMs,
        serverName: target.name,
      })
    } catch (error) {
      if (this.pending.get(target.id) === entry) this.pending.delete(target.id)
      throw this.failed(target, error)
    }
    entry.callback = callback
    if (entry.cancelled) {
      callback.close(entry.cancelled)
      throw entry.cancelled
    }
    // After a passive flow got as far as authorizing (a step-up, a refresh token refused), signing
    // in asks for what it would have asked for, whatever tokens are stored.
    const stopped = credentials.read<NeedsSignIn>('sign_in_needed')
    const again = stopped?.reachedAuthorization === true
    let authorizationUrl: URL | undefined
    const provider = new AtelierOAuthProvider(
      credentials,
      target.settings,
      {
        redirectUrl: callback.redirectUrl,
        state,
        freshAuthorization: again,
        redirect: (url) => {
          authorizationUrl = url
        },
        superseded: () => entry.cancelled !== undefined,
      },
      { signInNeeded: () => {}, tokensSaved: () => {} },
    )
    const serverUrl = new URL(target.url)
    let probe: Client | undefined
    let exchange: (code: string) => Promise<void>
    try {
      if (again) {
        const scope = stopped?.scope
        await auth(provider, { serverUrl, scope })
        exchange = async (authorizationCode) => {
          const result = await auth(provider, { serverUrl, authorizationCode, scope })
          if (result !== 'AUTHORIZED') throw new UnauthorizedError('Failed to authorize')
        }
      } else {
        // Through the transport, so the server's own challenge (its metadata URL, its scope) leads.
        const transport = new StreamableHTTPClientTransport(serverUrl, {
          requestInit: { headers: target.headers },
          authProvider: provider,
        })
        probe = new Client({ name: 'Atelier', version: packageJson.version })
        try {
          await probe.connect(transport)
          // Some servers let anyone initialize and guard only what comes after.
          await probe.listTools()
        } catch (error) {
          if (!(error instanceof UnauthorizedError) || !authorizationUrl) throw error
        }
        exchange = (code) => transport.finishAuth(code)
      }
    } catch (error) {
      callback.close(error as Error)
      await probe?.close()
      if (this.pending.get(target.id) === entry) this.pending.delete(target.id)
      throw entry.cancelled ?? this.failed(target, error)
    }
    if (entry.cancelled) {
      await probe?.close()
      throw entry.cancelled
    }

    if (!authorizationUrl) {
      this.pending.delete(target.id)
      callback.close(new AtelierError('sign_in_not_needed', 'No browser was needed.'))
      await probe?.close()
      credentials.forget('sign_in_needed')
      await reconnect()
      return { authorizationUrl: null, opened: false }
    }

    const completion = (async () => {
      try {
        const arrival = await callback.arrival
        try {
          await exchange(arrival.code)
        } catch (error) {
          const failure = this.failed(target, error)
          arrival.answer({ ok: false, message: failure.message })
          throw failure
        }
        arrival.answer({ ok: true })
      } finally {
        // A newer sign-in's verifier is that one's to forget.
        if (!entry.cancelled) credentials.forget('code_verifier')
        await probe?.close()
      }
      credentials.forget('sign_in_needed')
      await reconnect()
    })()
    entry.completion = completion
    completion
      .catch((error: unknown) => {
        if (this.pending.get(target.id) === entry) {
          this.failures.set(target.id, errorMessage(error))
        }
      })
      .finally(() => {
        if (this.pending.get(target.id) !== entry) return
        this.pending.delete(target.id)
        this.options.onChange()
      })
    const opened = await this.open(authorizationUrl.href)
    if (entry.cancelled) throw entry.cancelled
    return { authorizationUrl: authorizationUrl.href, opened }
  }

  /** Settles when the server's sign-in under way ends: rejects with why it failed. */
  completion(serverId: string): Promise<void> {
    return this.pending.get(serverId)?.completion ?? Promise.resolve()
  }

  /**
   * Forgets the tokens, a sign-in under way and the scope a step-up asked for; the next use needs
   * signing in again, from the start.
   */
  signOut(serverId: string): void {
    this.cancel(serverId, new AtelierError('signed_out', 'Signed out.'))
    const credentials = this.credentials(serverId)
    const hadSignedIn = credentials.has('tokens') || credentials.has('sign_in_needed')
    credentials.forget('tokens', 'code_verifier', 'discovery', 'sign_in_needed')
    this.failures.delete(serverId)
    if (hadSignedIn)
      credentials.write('sign_in_needed', { reachedAuthorization: false } satisfies NeedsSignIn)
  }

  /**
   * The server's OAuth settings changed or it was removed: what it was signed in with is dropped
   * (its stored rows go with the server when it is deleted).
   */
  forget(serverId: string, { credentials = true } = {}): void {
    this.cancel(serverId, new AtelierError('sign_in_superseded', 'The server was changed.'))
    if (credentials) this.options.repository.forgetSignIn(serverId)
    else this.credentials(serverId).forget('sign_in_needed')
    this.failures.delete(serverId)
  }

  close(): void {
    for (const serverId of [...this.pending.keys()]) {
      this.cancel(serverId, new AtelierError('sign_in_superseded', 'Atelier is closing.'))
    }
  }

  private async signInAsMachine(target: OAuthTarget, reconnect: Reconnect): Promise<McpSignIn> {
    const { clientId, clientSecret, clientPrivateKey } = target.settings
    if (!clientId || !(clientSecret || clientPrivateKey)) {
      throw new AtelierError(
        'invalid_oauth',
        `“${target.name}” signs in with client credentials, which need a client id, and a client secret or private key.`,
      )
    }
    // The connection's own provider asks for a token on the server's 401, as it would for a turn.
    this.credentials(target.id).forget('tokens', 'sign_in_needed')
    const status = await reconnect()
    if (status?.error) {
      const failure = this.failed(target, new Error(status.error))
      this.failures.set(target.id, failure.message)
      throw failure
    }
    return { authorizationUrl: null, opened: false }
  }

  private markNeedsSignIn(serverId: string, scope: string | undefined, reachedAuthorization: boolean): void {
    const credentials = this.credentials(serverId)
    const known = credentials.read<NeedsSignIn>('sign_in_needed')
    const kept = reachedAuthorization ? scope : known?.scope
    const next: NeedsSignIn = {
      reachedAuthorization: reachedAuthorization || (known?.reachedAuthorization ?? false),
      ...(kept !== undefined && { scope: kept }),
    }
    if (known?.reachedAuthorization === next.reachedAuthorization && known.scope === next.scope) return
    credentials.write('sign_in_needed', next)
    if (!known) this.options.onChange()
  }

  private signedIn(serverId: string): void {
    const credentials = this.credentials(serverId)
    if (!credentials.has('sign_in_needed')) return
    credentials.forget('sign_in_needed')
    this.options.onChange()
  }

  private cancel(serverId: string, reason: Error): void {
    const pending = this.pending.get(serverId)
    if (!pending) return
    this.pending.delete(serverId)
    pending.cancelled = reason
    pending.callback?.close(reason)
  }

  private failed(target: OAuthTarget, error: unknown): AtelierError {
    if (AtelierError.isInstance(error) && error.code.startsWith('sign_in')) return error
    const reason = errorMessage(error)
    return new AtelierError('sign_in_failed', `Signing in to “${target.name}” failed: ${reason}`)
  }

  private async open(url: string): Promise<boolean> {
    if (!this.options.openExternal || !opensInBrowser(url)) return false
    try {
      return (await this.options.openExternal(url)) !== false
    } catch {
      return false
    }
  }

  private credentials(serverId: string): OAuthCredentials {
    return new OAuthCredentials(this.options.repository, this.options.secrets, serverId)
  }
}

/**
 * Only https authorization pages are opened, and http ones on this machine (a local server under
 * development); any other is shown for the person to open, so a server cannot send the browser to
 * a plain-http page elsewhere.
 */
export function opensInBrowser(url: string): boolean {
  if (!URL.canParse(url)) return false
  const { protocol, hostname } = new URL(url)
  return (
    protocol === 'https:' || (protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(hostname))
  )
}

/** The loopback port the stored registration names, so signing in again need not register again. */
function registeredPort(credentials: OAuthCredentials): number | undefined {
  const stored = credentials.read<{ redirect_uris?: string[] }>('client_information')
  const uri = stored?.redirect_uris?.[0]
  if (!uri || !URL.canParse(uri)) return undefined
  const url = new URL(uri)
  return url.hostname === '127.0.0.1' && url.pathname === CALLBACK_PATH && url.port
    ? Number(url.port)
    : undefined
}
