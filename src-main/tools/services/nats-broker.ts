/**
 * One connection to the person's NATS broker: the tool services' calls go through it, and the
 * services' announcements come in on it. The connection is kept forever (reconnects with backoff
 * and jitter); a first connect to a broker that is down fails at once, so the turn goes on without
 * those tools. Calls on one shared response subject share one subscription that hands each
 * response to its call by the `id` header; a service in `reply-to: inbox` mode answers each call
 * on an inbox of its own instead, which only that call listens to. Anything that is not a response
 * to a call in flight is ignored and logged.
 */
import { readFileSync } from 'node:fs'
import {
  connect,
  createInbox,
  credsAuthenticator,
  headers,
  type Msg,
  type NatsConnection,
  type NodeConnectionOptions,
  nkeyAuthenticator,
  type Subscription,
} from '@nats-io/transport-node'
import { AtelierError, errorMessage } from '../../../src-shared/errors'
import {
  ANNOUNCE_SUBJECT,
  cancelSubject,
  DISCOVER_SUBJECT,
  type NatsServiceDescriptor,
  readServiceResponse,
  type ServiceAnnouncement,
} from '../../../src-shared/tool-services'
import { ToolError } from '../errors'
import { readAnnouncement } from './descriptors'
import { describe, PendingServiceCall } from './pending-call'
import type { ServiceCall, ServiceTransport } from './transport'

export type BrokerStatus = 'connecting' | 'connected' | 'reconnecting' | 'failed'

export interface NatsBrokerOptions {
  /** One URL, or several separated by commas (`nats://a:4222,nats://b:4222`). */
  servers: string
  token?: string
  user?: string
  pass?: string
  nkeySeed?: string
  credsFile?: string
  /** A private CA for a TLS broker. */
  caFile?: string
  onStatus?(status: BrokerStatus, error?: string): void
  /** An announcement that fits the closed schema; any other is logged and dropped here. */
  onAnnouncement?(announcement: ServiceAnnouncement): void
  /** The discover went out: live services answer it with their announcements. */
  onDiscover?(): void
  log?(message: string): void
}

/** Reconnect backoff: the first retry waits 250–500 ms, each further one twice as long, up to 15–30 s. */
const RECONNECT_BASE_MS = 500
const RECONNECT_MAX_MS = 30_000
/** A broker that vanished without closing the socket is noticed after about two pings. */
const PING_INTERVAL_MS = 15_000
/** The longest a first connect (TCP, TLS, INFO/CONNECT) may take. */
const HANDSHAKE_TIMEOUT_MS = 10_000
/** How much of an ignored message goes into the log. */
const LOGGED_CHARS = 200

/**
 * A subject responses come back on, and the calls waiting there by id: a service's shared response
 * subject (every call to it, one subscription for good), or one call's own inbox (gone with it).
 */
interface ResponseQueue {
  subscription: Subscription
  pending: Map<string, PendingServiceCall>
  /** The subject to give as the request's reply subject: set for an inbox only. */
  inbox?: string
}

export class NatsBroker {
  private connection: NatsConnection | undefined
  private connecting: Promise<void> | undefined
  private current: BrokerStatus | 'off' = 'off'
  /** Bumped by close(), so a connect still under way knows it was closed meanwhile. */
  private generation = 0
  private readonly queues = new Map<string, ResponseQueue>()
  /** Dial attempts since the connection was lost, and the delay each attempt got (jitter drawn once). */
  private attempts = 0
  private readonly delays = new Map<number, number>()

  constructor(private readonly options: NatsBrokerOptions) {}

  /** `off` before connect() and after close(). */
  get status(): BrokerStatus | 'off' {
    return this.current
  }

  /** Connects; rejects with a readable error when the broker cannot be reached the first time. */
  connect(): Promise<void> {
    if (this.connection) return Promise.resolve()
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined
    })
    return this.connecting
  }

  private async open(): Promise<void> {
    const generation = this.generation
    this.setStatus('connecting')
    let connection: NatsConnection
    try {
      connection = await connect(this.connectionOptions())
    } catch (error) {
      const message = `Could not connect to the NATS broker at ${this.options.servers}: ${describe(error)}`
      if (generation === this.generation) this.setStatus('failed', message)
      throw new AtelierError('not_connected', message)
    }
    if (generation !== this.generation) {
      await connection.close().catch(() => {})
      throw new AtelierError(
        'not_connected',
        `The connection to the NATS broker at ${this.options.servers} was closed while it connected.`,
      )
    }
    this.connection = connection
    this.watch(connection)
    connection.subscribe(ANNOUNCE_SUBJECT, {
      callback: (error, message) => {
        if (error) this.log(`The subscription to ${ANNOUNCE_SUBJECT} failed: ${describe(error)}`)
        else this.announcement(message.string())
      },
    })
    this.setStatus('connected')
    this.discover(connection)
  }

  /** Closes the connection; calls in flight fail, saying so. */
  async close(): Promise<void> {
    this.generation++
    const connection = this.connection
    this.connection = undefined
    this.failAll('closed')
    this.current = 'off'
    await connection?.close().catch(() => {})
  }

  /** How a service on this broker is called; every transport shares the connection. */
  transportFor(descriptor: NatsServiceDescriptor): ServiceTransport {
    return { call: (call) => this.call(descriptor, call) }
  }

  private call(descriptor: NatsServiceDescriptor, call: ServiceCall): Promise<string> {
    const connection = this.connection
    if (!connection || this.current !== 'connected') {
      const state = {
        off: 'no connection is open',
        connecting: 'it is still connecting',
        connected: 'no connection is open',
        reconnecting: 'the connection was lost; it is reconnecting',
        failed: 'the connection failed',
      }[this.current]
      return Promise.reject(
        new ToolError(
          'execution_failed',
          `The service ${descriptor.id} cannot be reached: Atelier is not connected to the broker (${state}).`,
        ),
      )
    }
    const requestQueue = descriptor['request-queue']
    const inbox = descriptor['reply-to'] === 'inbox'
    let queue: ResponseQueue
    try {
      queue = inbox ? this.inbox(connection) : this.responseQueue(connection, descriptor['response-queue'])
    } catch (error) {
      const subject = inbox ? 'an inbox' : descriptor['response-queue']
      return Promise.reject(
        new ToolError(
          'execution_failed',
          `Could not listen on ${subject} for the service ${descriptor.id}: ${describe(error)}`,
        ),
      )
    }
    if (queue.pending.has(call.id)) {
      return Promise.reject(
        new ToolError('execution_failed', `A call with the id ${call.id} is already in flight.`),
      )
    }
    const pending = new PendingServiceCall(descriptor.id, call, {
      cancel: () => {
        try {
          connection.publish(cancelSubject(requestQueue), JSON.stringify({ id: call.id }))
        } catch (error) {
          this.log(
            `Could not send the cancel for ${call.id} to ${cancelSubject(requestQueue)}: ${describe(error)}`,
          )
        }
      },
      done: (settled) => {
        if (queue.pending.get(call.id) === settled) queue.pending.delete(call.id)
        this.release(queue)
      },
      log: (message) => this.log(message),
    })
    if (pending.settled) return pending.result
    queue.pending.set(call.id, pending)
    try {
      const header = headers()
      header.set('id', call.id)
      connection.publish(requestQueue, JSON.stringify(call.request), {
        headers: header,
        ...(queue.inbox && { reply: queue.inbox }),
      })
    } catch (error) {
      pending.fail(
        new ToolError(
          'execution_failed',
          `Could not send the request to the service ${descriptor.id} on ${requestQueue}: ${describe(error)}`,
        ),
      )
    }
    return pending.result
  }

  /** The one subscription to a shared response subject, made on its first call. */
  private responseQueue(connection: NatsConnection, subject: string): ResponseQueue {
    const existing = this.queues.get(subject)
    if (existing) return existing
    const pending = new Map<string, PendingServiceCall>()
    const subscription = connection.subscribe(subject, {
      callback: (error, message) => this.deliver(subject, pending, error, message),
    })
    const queue = { subscription, pending }
    this.queues.set(subject, queue)
    return queue
  }

  /**
   * A new inbox for one call: a random subject that only this call listens to, ended with it. Kept
   * among the queues meanwhile, so a lost connection fails its call like any other.
   */
  private inbox(connection: NatsConnection): ResponseQueue {
    const subject = createInbox()
    const pending = new Map<string, PendingServiceCall>()
    const subscription = connection.subscribe(subject, {
      callback: (error, message) => this.deliver(subject, pending, error, message),
    })
    const queue = { subscription, pending, inbox: subject }
    this.queues.set(subject, queue)
    return queue
  }

  /** A call is settled: its inbox goes with it (a shared subject stays for the next calls). */
  private release(queue: ResponseQueue): void {
    if (!queue.inbox) return
    this.queues.delete(queue.inbox)
    try {
      queue.subscription.unsubscribe()
    } catch (error) {
      this.log(`Could not stop listening on ${queue.inbox}: ${describe(error)}`)
    }
  }

  /** Hands a message on `subject` to the call its `id` header names, or logs why it was ignored. */
  private deliver(
    subject: string,
    pending: Map<string, PendingServiceCall>,
    error: Error | null,
    message: Msg,
  ): void {
    if (error) {
      this.log(`The subscription to ${subject} failed: ${describe(error)}`)
      return
    }
    const id = message.headers?.get('id')
    if (!id) {
      this.log(`Ignored a message on ${subject} without an id header: ${excerpt(message.string())}`)
      return
    }
    const call = pending.get(id)
    if (!call) {
      this.log(
        `Ignored a message on ${subject} for no call in flight (id ${id}): ${excerpt(message.string())}`,
      )
      return
    }
    const text = message.string()
    const read = readServiceResponse(text)
    if ('problem' in read) {
      this.log(
        `A message on ${subject} for ${id} is not a service response (${read.problem}): ${excerpt(text)}`,
      )
      call.unusable(read.problem)
      return
    }
    call.receive(read.response)
  }

  private announcement(text: string): void {
    let announcement: ServiceAnnouncement
    try {
      announcement = readAnnouncement(JSON.parse(text))
    } catch (error) {
      const why = error instanceof SyntaxError ? 'it is not JSON.' : errorMessage(error)
      this.log(`Ignored an announcement: ${why} ${excerpt(text)}`)
      return
    }
    try {
      this.options.onAnnouncement?.(announcement)
    } catch (error) {
      this.log(`An announcement could not be handled: ${describe(error)}`)
    }
  }

  /** Asks every live service to announce itself now. */
  private discover(connection: NatsConnection): void {
    try {
      connection.publish(DISCOVER_SUBJECT)
    } catch (error) {
      this.log(`Could not send the discover request: ${describe(error)}`)
      return
    }
    try {
      this.options.onDiscover?.()
    } catch (error) {
      this.log(`A discover could not be handled: ${describe(error)}`)
    }
  }

  /** Follows the connection: lost (calls in flight fail), back (discover again), closed for good. */
  private watch(connection: NatsConnection): void {
    void (async () => {
      for await (const status of connection.status()) {
        if (this.connection !== connection) return
        switch (status.type) {
          case 'disconnect':
            this.setStatus('reconnecting')
            this.failAll('lost')
            break
          case 'reconnecting':
            this.attempts++
            break
          case 'reconnect':
            this.attempts = 0
            this.delays.clear()
            this.setStatus('connected')
            this.discover(connection)
            break
          case 'error':
            this.log(`The broker reported an error: ${describe(status.error)}`)
            break
          case 'slowConsumer':
            this.log(`Atelier reads ${status.sub.getSubject()} too slowly; messages may be dropped.`)
            break
        }
      }
    })().catch((error: unknown) => this.log(`Stopped following the broker connection: ${describe(error)}`))
    void connection.closed().then((error) => {
      if (this.connection !== connection) return
      // Closed without close(): the client gave up (an authorization refused twice, say).
      this.connection = undefined
      this.failAll('lost')
      this.setStatus('failed', error ? describe(error) : 'the connection was closed')
    })
  }

  /**
   * Fails every call in flight. The subscriptions are forgotten when the connection is gone for
   * good (closed); a lost one keeps them, as they outlive the reconnect.
   */
  private failAll(why: 'lost' | 'closed'): void {
    const queues = [...this.queues.values()]
    if (!this.connection) this.queues.clear()
    for (const queue of queues) {
      for (const call of [...queue.pending.values()]) {
        call.fail(
          new ToolError(
            'execution_failed',
            why === 'lost'
              ? `The broker connection was lost during the call to the service ${call.serviceId}; it may or may not have done the work.`
              : `The broker connection was closed during the call to the service ${call.serviceId}.`,
          ),
        )
      }
    }
  }

  private connectionOptions(): NodeConnectionOptions {
    const { servers, token, user, pass, nkeySeed, credsFile, caFile } = this.options
    const authenticators = [
      ...(nkeySeed ? [nkeyAuthenticator(new TextEncoder().encode(nkeySeed.trim()))] : []),
      ...(credsFile ? [credsAuthenticator(readFileSync(credsFile))] : []),
    ]
    return {
      servers: servers
        .split(',')
        .map((server) => server.trim())
        .filter(Boolean),
      name: 'Atelier',
      ...(token && { token }),
      ...(user && { user, ...(pass !== undefined && { pass }) }),
      ...(authenticators.length > 0 && { authenticator: authenticators }),
      ...(caFile && { tls: { caFile } }),
      maxReconnectAttempts: -1,
      // Without waiting on the first connect, a broker that is down fails it at once.
      waitOnFirstConnect: false,
      reconnectDelayHandler: () => this.reconnectDelay(),
      pingInterval: PING_INTERVAL_MS,
      timeout: HANDSHAKE_TIMEOUT_MS,
    }
  }

  /**
   * Exponential backoff with jitter: attempt n waits between half and all of base·2ⁿ⁻¹ (capped).
   * The client asks more than once per attempt, so each attempt's draw is kept.
   */
  private reconnectDelay(): number {
    const attempt = Math.max(1, this.attempts)
    let delay = this.delays.get(attempt)
    if (delay === undefined) {
      const ceiling = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** Math.min(attempt - 1, 16))
      delay = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2)
      this.delays.set(attempt, delay)
    }
    return delay
  }

  private setStatus(status: BrokerStatus, error?: string): void {
    this.current = status
    try {
      this.options.onStatus?.(status, error)
    } catch (failure) {
      this.log(`A broker status could not be handled: ${describe(failure)}`)
    }
  }

  private log(message: string): void {
    try {
      this.options.log?.(message)
    } catch {
      // A logger that throws must not break the connection.
    }
  }
}

function excerpt(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ')
  return oneLine.length > LOGGED_CHARS ? `${oneLine.slice(0, LOGGED_CHARS)}…` : oneLine
}
