/**
 * Serving a tool service over NATS, in the wire protocol of src-shared/tool-services.ts: requests on
 * `requestQueue` in a queue group (N instances share them), responses with the `id` header echoed
 * on the request's own reply subject when it has one (a caller of a `reply-to: inbox` service gives
 * one per call) and on `responseQueue` when not, cancels on `<requestQueue>.cancel` (heard by every
 * instance), and — when
 * `announce` is given — the service's descriptors on `tool-services.announce` at start, every
 * ttl/2, after each reconnect, and whenever anyone asks on `tool-services.discover`.
 */
import {
  type Authenticator,
  connect,
  headers,
  type Msg,
  type NatsConnection,
  type NodeConnectionOptions,
  type Subscription,
} from '@nats-io/transport-node'
import { Value } from '@sinclair/typebox/value'
import {
  ANNOUNCE_SUBJECT,
  cancelSubject,
  DEFAULT_QUEUE_GROUP,
  DISCOVER_SUBJECT,
  NatsServiceDescriptor,
  type ServiceAnnouncement,
  type ServiceResponse,
  ToolDescriptor,
} from '../src-shared/tool-services'
import { CallTable, type InvokeFunction, type Log, stderrLog } from './calls'
import { parseRequestText, sanitizeHeaderValue } from './envelope'

export interface AnnounceOptions {
  /** This service's descriptor; its queues must be the ones served. */
  service: NatsServiceDescriptor
  /** The tools it offers (each naming `service.id`). */
  tools: ToolDescriptor[]
  /** How long Atelier keeps the tools without a renewal; the service renews every ttl/2. */
  ttlSeconds: number
}

export interface ServeNatsOptions {
  /** The broker, e.g. `nats://127.0.0.1:4222` (several for a cluster). */
  servers: string | string[]
  /** The subject requests arrive on (the descriptor's `request-queue`). */
  requestQueue: string
  /** The subject responses go to (the descriptor's `response-queue`). */
  responseQueue: string
  /** Instances in one queue group share the requests. Default `tool-service`. */
  queueGroup?: string
  /** Auth and TLS, passed to the client as they are. */
  token?: string
  user?: string
  pass?: string
  /** E.g. `nkeyAuthenticator(seed)` or `credsAuthenticator(bytes)` from `@nats-io/transport-node`. */
  authenticator?: Authenticator | Authenticator[]
  /** E.g. `{ caFile }` for a private CA, `{ certFile, keyFile }` for mutual TLS. */
  tls?: NodeConnectionOptions['tls']
  /** The connection's name on the server's monitoring pages. */
  name?: string
  /**
   * Any other client option (e.g. `waitOnFirstConnect: true` to wait for a broker that is not up
   * yet). The SDK's default `maxReconnectAttempts: -1` (reconnect forever) applies unless set here;
   * `servers` and the auth options above win over this.
   */
  connectionOptions?: NodeConnectionOptions
  /** Announce the service and its tools, so Atelier finds them with no configuration. */
  announce?: AnnounceOptions
  /** Where the SDK's messages go. Default: stderr. */
  log?: Log
}

export interface NatsServiceHandle {
  /** The client connection (for its status, or to publish something else). */
  connection: NatsConnection
  /** Publishes the announcement now (a no-op without `announce`). */
  announce(): void
  /**
   * Stops taking requests, lets calls in flight finish for up to `graceMs` (default 5000), answers
   * the rest with an `unavailable` error, then drains and closes the connection. Idempotent.
   */
  close(options?: { graceMs?: number }): Promise<void>
}

function checkAnnouncement(options: ServeNatsOptions, announce: AnnounceOptions): void {
  const { service, tools, ttlSeconds } = announce
  const serviceError = Value.Errors(NatsServiceDescriptor, service).First()
  if (serviceError) {
    throw new Error(
      `announce.service is not a NATS service descriptor: ${serviceError.path || '/'} ${serviceError.message}`,
    )
  }
  if (
    service['request-queue'] !== options.requestQueue ||
    service['response-queue'] !== options.responseQueue
  ) {
    throw new Error(
      `announce.service ${service.id} names request-queue ${service['request-queue']} and response-queue ` +
        `${service['response-queue']}, but the service serves ${options.requestQueue} and ${options.responseQueue}`,
    )
  }
  for (const [index, tool] of tools.entries()) {
    const toolError = Value.Errors(ToolDescriptor, tool).First()
    if (toolError) {
      throw new Error(
        `announce.tools[${index}] is not a tool descriptor: ${toolError.path || '/'} ${toolError.message}`,
      )
    }
    if (tool.service !== service.id) {
      throw new Error(
        `announce.tools[${index}] (${tool.name}) names service ${tool.service}, not ${service.id}`,
      )
    }
  }
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) {
    throw new Error(`announce.ttlSeconds must be a positive number, not ${ttlSeconds}`)
  }
}

/** A message callback that can neither throw nor reject out into the client. */
function guarded(
  log: Log,
  what: string,
  handler: (msg: Msg) => void,
): (error: Error | null, msg: Msg) => void {
  return (error, msg) => {
    if (error) {
      log(`${what}: ${error.message}`)
      return
    }
    try {
      handler(msg)
    } catch (thrown) {
      log(`${what} failed: ${String(thrown)}`)
    }
  }
}

function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}

export async function serveNats(
  invoke: InvokeFunction,
  options: ServeNatsOptions,
): Promise<NatsServiceHandle> {
  const log = options.log ?? stderrLog
  const { requestQueue, responseQueue, announce } = options
  if (!requestQueue || !responseQueue) throw new Error('serveNats needs a requestQueue and a responseQueue')
  if (announce) checkAnnouncement(options, announce)

  const connection = await connect({
    name: `tool-service ${announce?.service.id ?? requestQueue}`,
    maxReconnectAttempts: -1,
    ...options.connectionOptions,
    ...defined({
      servers: options.servers,
      token: options.token,
      user: options.user,
      pass: options.pass,
      authenticator: options.authenticator,
      tls: options.tls,
      name: options.name,
    }),
  })
  const calls = new CallTable(invoke, log)

  /** Answers on `replyTo` (the request's inbox), or on the shared response subject when it has none. */
  const respond = (id: string, replyTo: string | undefined, response: ServiceResponse) => {
    const h = headers()
    h.set('id', sanitizeHeaderValue(id))
    connection.publish(replyTo || responseQueue, JSON.stringify(response), { headers: h })
  }

  const requests: Subscription = connection.subscribe(requestQueue, {
    queue: options.queueGroup ?? DEFAULT_QUEUE_GROUP,
    callback: guarded(log, `Request on ${requestQueue}`, (msg) => {
      const id = msg.headers?.get('id') ?? ''
      if (!id) {
        log(`Dropped a request on ${requestQueue} without an \`id\` header (it cannot be answered)`)
        return
      }
      calls.start(id, parseRequestText(msg.string()), (response) => respond(id, msg.reply, response))
    }),
  })

  // Not in the queue group: the instance running the call must hear its cancel, whichever it is.
  const cancels = connection.subscribe(cancelSubject(requestQueue), {
    callback: guarded(log, `Cancel on ${cancelSubject(requestQueue)}`, (msg) => {
      let id: unknown
      try {
        id = (JSON.parse(msg.string()) as { id?: unknown } | null)?.id
      } catch {
        // Not JSON: maybe the id came as a header.
      }
      if (typeof id !== 'string' || !id) id = msg.headers?.get('id')
      if (typeof id === 'string' && id) calls.cancel(id)
      else log(`Ignored a cancel without an id on ${cancelSubject(requestQueue)}`)
    }),
  })

  const publishAnnouncement = () => {
    if (!announce || connection.isClosed()) return
    const body: ServiceAnnouncement = {
      service: announce.service,
      tools: announce.tools,
      ttlSeconds: announce.ttlSeconds,
    }
    try {
      connection.publish(ANNOUNCE_SUBJECT, JSON.stringify(body))
    } catch (error) {
      log(`Could not announce: ${String(error)}`)
    }
  }

  let discover: Subscription | undefined
  let renew: NodeJS.Timeout | undefined
  if (announce) {
    discover = connection.subscribe(DISCOVER_SUBJECT, {
      callback: guarded(log, `Discover on ${DISCOVER_SUBJECT}`, publishAnnouncement),
    })
    renew = setInterval(publishAnnouncement, Math.max(50, (announce.ttlSeconds * 1000) / 2))
  }

  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === 'disconnect') log(`Disconnected from ${status.server}`)
      else if (status.type === 'reconnect') {
        log(`Reconnected to ${status.server}`)
        publishAnnouncement()
      } else if (status.type === 'error') log(`Connection error: ${String(status.error)}`)
    }
  })().catch(() => {})
  void connection.closed().then((error) => {
    if (error) log(`The connection closed: ${error.message}`)
  })

  // The subscriptions are registered at the server before anyone is told the service is there.
  await connection.flush()
  publishAnnouncement()

  let closing: Promise<void> | undefined
  return {
    connection,
    announce: publishAnnouncement,
    close: (closeOptions = {}) => {
      closing ??= (async () => {
        clearInterval(renew)
        const graceMs = closeOptions.graceMs ?? 5000
        // Each step is bounded: with the broker down, a drain would wait for a reconnect forever.
        const bounded = async (what: string, step: () => Promise<unknown>, ms: number) => {
          if (connection.isClosed()) return
          let timer: NodeJS.Timeout | undefined
          await Promise.race([
            Promise.resolve()
              .then(step)
              .catch((error: unknown) => log(`Could not drain ${what}: ${String(error)}`)),
            new Promise<void>((resolve) => {
              timer = setTimeout(() => {
                log(`Gave up draining ${what} after ${ms} ms`)
                resolve()
              }, ms)
            }),
          ])
          clearTimeout(timer)
        }
        // Requests already delivered to this client are still taken; then no more come.
        await bounded(
          'the request subscription',
          () => Promise.all([requests.drain(), discover?.drain()]),
          2000,
        )
        await calls.close(graceMs)
        await bounded('the cancel subscription', () => cancels.drain(), 1000)
        await bounded('the connection', () => connection.drain(), 2000)
        if (!connection.isClosed()) await connection.close().catch(() => {})
      })()
      return closing
    },
  }
}
