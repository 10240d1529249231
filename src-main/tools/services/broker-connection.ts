/**
 * The one connection to the NATS broker the person set: its address and sealed secret as saved,
 * connecting only when asked (a turn, the inspector, the Tool services page, the CLI), and how the
 * connection stands for the panel.
 */
import { AtelierError, errorMessage } from '../../../src-shared/errors'
import {
  type BrokerInfo,
  type BrokerInput,
  DEFAULT_DISCOVER_WAIT_MS,
  type NatsServiceDescriptor,
  type ServiceAnnouncement,
} from '../../../src-shared/tool-services'
import { BROKER_URL, type SealedSecrets } from '../../core/sealed-secrets'
import type { AppSettingsRepository } from '../../db/app-settings-repository'
import { NatsBroker } from './nats-broker'
import { BROKER_LOG, type ServiceErrorLog } from './service-error-log'
import type { ServiceTransport } from './transport'

const BROKER_KEY = 'toolServices.broker'
const BROKER_SECRET_KEY = 'toolServices.brokerSecret'
/** The URL as typed, sealed, when it carries credentials (`nats://user:PASS@…`); `BROKER_KEY` holds it masked. */
const BROKER_URL_KEY = 'toolServices.brokerUrl'
/** Where the person types the broker's secret again once its seal no longer opens. */
const RETYPE = 'type it again in Settings → Tool services, or with `atelier services broker`'

interface StoredBroker {
  /** Its credentials masked (`SealedSecrets.sealUrl`). */
  url: string | null
  auth: BrokerInfo['auth']
  caFile: string | null
  discoverWaitMs: number
}

export interface BrokerConnectionDeps {
  settings: AppSettingsRepository
  secrets: SealedSecrets
  errors: ServiceErrorLog
  now: () => number
  /** The connection came up, dropped, came back or failed. */
  onStatus(): void
  /** A live service announced itself (unchecked: it comes from the network). */
  onAnnouncement(announcement: ServiceAnnouncement): void
  /** Every live service was asked to announce itself now (the connection came up, or back). */
  onDiscover(): void
}

export class BrokerConnection {
  private broker: NatsBroker | undefined
  private connecting: Promise<void> | undefined
  private status: BrokerInfo['status'] = 'off'
  private error: string | null = null
  private closed = false

  constructor(private readonly deps: BrokerConnectionDeps) {}

  get connected(): boolean {
    return this.status === 'connected'
  }

  /** The broker as saved and as the connection stands; the secret, and credentials in the URL, never leave. */
  info(): BrokerInfo {
    const stored = this.stored()
    return {
      ...stored,
      hasSecret: this.deps.settings.getRaw(BROKER_SECRET_KEY) !== undefined,
      status: stored.url ? this.status : 'off',
      error: this.error,
      errors: this.deps.errors.of(BROKER_LOG),
      warning: openToAnyone(stored),
    }
  }

  /** Why services over the broker cannot be reached now, for a turn that goes on without them. */
  whyUnreachable(): string {
    const { url } = this.stored()
    if (!url) return 'no broker is set (atelier services broker URL, or Settings → Tool services)'
    return `the broker ${url} is not reachable${this.error ? ` (${this.error})` : ''}`
  }

  /**
   * Saves the broker, its secret sealed (absent keeps the stored one) and its URL's credentials
   * sealed (masked ones keep the stored ones); `disconnect` ends the old connection.
   */
  save(input: BrokerInput): void {
    const now = this.deps.now()
    const stored = this.stored()
    const kept = stored.url === null ? undefined : { shown: stored.url, sealed: this.sealedUrl() }
    const url = input.url === null ? undefined : this.deps.secrets.sealUrl(input.url, kept, BROKER_URL)
    this.deps.settings.set(BROKER_URL_KEY, url?.sealed?.toString('base64') ?? null, now)
    this.deps.settings.set(
      BROKER_KEY,
      {
        url: url?.shown ?? null,
        auth: input.auth,
        caFile: input.caFile ?? null,
        discoverWaitMs: input.discoverWaitMs ?? stored.discoverWaitMs,
      },
      now,
    )
    if (input.secret !== undefined) {
      this.deps.settings.set(BROKER_SECRET_KEY, this.deps.secrets.seal(input.secret).toString('base64'), now)
    }
  }

  /**
   * Connects once a broker is set, waiting no longer than `waitMs`: a broker that drops packets
   * holds a connect for seconds. A failed connect is tried again at the next call.
   */
  async connect(waitMs: number): Promise<void> {
    let waited: NodeJS.Timeout | undefined
    await Promise.race([
      this.connectOnce().catch(() => {}),
      new Promise((done) => {
        waited = setTimeout(done, waitMs)
      }),
    ])
    clearTimeout(waited)
  }

  /** The way to a NATS service's queues; refused while not connected. */
  transportFor(service: NatsServiceDescriptor): ServiceTransport {
    if (!this.broker) throw new AtelierError('not_connected', 'Not connected to the broker.')
    return this.broker.transportFor(service)
  }

  /**
   * Ends the connection at once — it is off from this call on, and the next `connect` opens a new
   * one — and settles once the old one has closed.
   */
  disconnect(): Promise<void> {
    const broker = this.broker
    this.broker = undefined
    this.connecting = undefined
    this.status = 'off'
    this.error = null
    return broker?.close() ?? Promise.resolve()
  }

  close(): Promise<void> {
    this.closed = true
    return this.disconnect()
  }

  private connectOnce(): Promise<void> {
    const { url, auth, caFile } = this.stored()
    if (!url || this.closed) return Promise.resolve()
    if (this.broker && this.status !== 'failed') return this.connecting ?? Promise.resolve()
    let secret: string | undefined
    let servers: { urls: string; user?: string; pass?: string; token?: string }
    try {
      secret = this.secret()
      servers = serversOf(
        this.deps.secrets.openUrl({ shown: url, sealed: this.sealedUrl() }, BROKER_URL.what, RETYPE),
      )
    } catch (error) {
      this.failed(error)
      return Promise.reject(error)
    }
    const broker = new NatsBroker({
      servers: servers.urls,
      // Credentials in the URL, as `nats` and the other clients take them, unless the auth says otherwise.
      ...(servers.token && { token: servers.token }),
      ...(servers.user && { user: servers.user, pass: servers.pass }),
      ...(auth.kind === 'token' && secret && { token: secret }),
      ...(auth.kind === 'user' && { user: auth.user, ...(secret && { pass: secret }) }),
      ...(auth.kind === 'nkey' && secret && { nkeySeed: secret }),
      ...(auth.kind === 'creds' && { credsFile: auth.file }),
      ...(caFile && { caFile }),
      onStatus: (status, error) => {
        if (this.broker !== broker) return
        this.status = status
        this.error = error ?? null
        this.deps.onStatus()
      },
      onAnnouncement: (announcement) => this.deps.onAnnouncement(announcement),
      onDiscover: () => {
        if (this.broker === broker) this.deps.onDiscover()
      },
      log: (message) => this.deps.errors.record(BROKER_LOG, message),
    })
    this.broker = broker
    this.status = 'connecting'
    const connecting = broker.connect().then(
      () => {
        if (this.broker !== broker) return
        this.status = 'connected'
        this.error = null
        this.deps.onStatus()
      },
      (error: unknown) => {
        if (this.broker !== broker) return
        this.failed(error)
        throw error
      },
    )
    this.connecting = connecting
    return connecting
  }

  private failed(error: unknown): void {
    this.status = 'failed'
    this.error = errorMessage(error)
    this.broker = undefined
    this.deps.onStatus()
  }

  private stored(): StoredBroker {
    const text = this.deps.settings.getRaw(BROKER_KEY)
    try {
      const stored = text === undefined ? undefined : (JSON.parse(text) as StoredBroker)
      if (stored && typeof stored === 'object' && stored.auth && typeof stored.auth.kind === 'string') {
        return {
          url: stored.url ?? null,
          auth: stored.auth,
          caFile: stored.caFile ?? null,
          // Saved before the wait was a setting: the default.
          discoverWaitMs: stored.discoverWaitMs ?? DEFAULT_DISCOVER_WAIT_MS,
        }
      }
    } catch {
      // A corrupt setting is no broker.
    }
    return { url: null, auth: { kind: 'none' }, caFile: null, discoverWaitMs: DEFAULT_DISCOVER_WAIT_MS }
  }

  /** The URL as typed, sealed, when it carries credentials. */
  private sealedUrl(): Buffer | undefined {
    const text = this.deps.settings.getRaw(BROKER_URL_KEY)
    const base64 = text === undefined ? null : (JSON.parse(text) as string | null)
    return base64 === null ? undefined : Buffer.from(base64, 'base64')
  }

  /** The broker's secret, opened; a seal that no longer opens fails the connect, saying so. */
  private secret(): string | undefined {
    const text = this.deps.settings.getRaw(BROKER_SECRET_KEY)
    if (text === undefined) return undefined
    return this.deps.secrets.open(
      Buffer.from(JSON.parse(text) as string, 'base64'),
      "the broker's secret",
      RETYPE,
    )
  }
}

/**
 * The broker's URLs without their userinfo — the NATS client ignores it — and the credentials it
 * held: `user:password@` or `token@`, the first server's that has any (a cluster shares them).
 */
function serversOf(urls: string): { urls: string; user?: string; pass?: string; token?: string } {
  let credentials: { user?: string; pass?: string; token?: string } = {}
  const bare = urls.split(',').map((url) => {
    const match = /^(\s*[a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@(.*)$/is.exec(url)
    if (!match) return url
    const [, start = '', userinfo = '', rest = ''] = match
    if (!credentials.user && !credentials.token) {
      const colon = userinfo.indexOf(':')
      credentials =
        colon < 0
          ? { token: decodeURIComponent(userinfo) }
          : {
              user: decodeURIComponent(userinfo.slice(0, colon)),
              pass: decodeURIComponent(userinfo.slice(colon + 1)),
            }
    }
    return start + rest
  })
  return { urls: bare.join(','), ...credentials }
}

/**
 * Says so when a server of the broker is not on this machine and Atelier signs in to it with
 * nothing (no auth, no user in its URL): a broker that lets anyone in lets anyone read every call
 * and its answer, answer in a service's place, and announce services. Null otherwise.
 */
function openToAnyone({ url, auth }: StoredBroker): string | null {
  if (!url || auth.kind !== 'none') return null
  const open = url
    .split(',')
    .map((server) => server.trim())
    .filter((server) => server && !signsInOrStaysHere(server))
  if (open.length === 0) return null
  const which =
    open.length === 1 ? `The broker ${open[0]} is` : `The broker servers ${open.join(' and ')} are`
  return (
    `${which} not on this machine and Atelier signs in with no credentials: anyone who reaches it ` +
    "can read every call and its answer, answer in a service's place and announce services. Give it " +
    'credentials and per-service permissions, or run it on this machine.'
  )
}

/** Whether a server's URL carries a user, or names this machine (`localhost`, 127.0.0.0/8, `::1`). */
function signsInOrStaysHere(server: string): boolean {
  let parsed: URL
  try {
    // The client takes `host:port` alone as a nats:// URL, and so does this check.
    parsed = new URL(server.includes('://') ? server : `nats://${server}`)
  } catch {
    return false
  }
  const host = parsed.hostname.toLowerCase()
  return (
    parsed.username !== '' ||
    host === 'localhost' ||
    host === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  )
}
