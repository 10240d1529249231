/**
 * Tool services (seed 002): tools served by another process, over a NATS broker or a local stdio
 * pipe. Two tiers, as the seed: a service descriptor (where requests go, which config it takes) and
 * tool descriptors (what the model sees, and the config values for the service). The wire envelope
 * is here too, so Atelier and the service SDK speak it from one definition.
 */
import { type Static, Type } from '@sinclair/typebox'

export const ConfigParam = Type.Object({
  name: Type.String({ minLength: 1 }),
  required: Type.Optional(Type.Boolean()),
})

/**
 * Where a NATS service sends its responses: `response-queue`, the seed's shared subject (the
 * default), or `inbox`, the reply subject each request carries (`_INBOX.…`, one per call), so a
 * client subscribed to the response queue hears none of the answers.
 */
export const ReplyTo = Type.Union([Type.Literal('response-queue'), Type.Literal('inbox')])
export type ReplyTo = Static<typeof ReplyTo>

/**
 * A service over NATS: the queues are subjects. Closed (any other key is refused): it is also what
 * a service announces over the network, where a key Atelier does not know must not slip through.
 */
export const NatsServiceDescriptor = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
    // Subjects, not patterns: a wildcard or a space would break the subscription and the cancel subject.
    'request-queue': Type.String({ minLength: 1, maxLength: 500, pattern: '^[^\\s*>]+$' }),
    'response-queue': Type.String({ minLength: 1, maxLength: 500, pattern: '^[^\\s*>]+$' }),
    'reply-to': Type.Optional(ReplyTo),
    'config-params': Type.Optional(Type.Array(ConfigParam)),
  },
  { additionalProperties: false },
)
export type NatsServiceDescriptor = Static<typeof NatsServiceDescriptor>

/**
 * A service Atelier starts itself and speaks to over its stdin and stdout (no broker needed). Only
 * the person adds one (`services.add`, `atelier services add`); nothing from the broker ever is.
 */
export const StdioServiceDescriptor = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
    command: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    cwd: Type.Optional(Type.String({ minLength: 1 })),
    env: Type.Optional(Type.Record(Type.String(), Type.String())),
    'config-params': Type.Optional(Type.Array(ConfigParam)),
    /**
     * The service runs in the sandbox: it writes only its working folder and a private temp folder,
     * reads no secrets, and reaches the network only if the sandbox settings allow it. Off unless set.
     */
    sandboxed: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type StdioServiceDescriptor = Static<typeof StdioServiceDescriptor>

export const ServiceDescriptor = Type.Union([NatsServiceDescriptor, StdioServiceDescriptor])
export type ServiceDescriptor = Static<typeof ServiceDescriptor>

export const ToolArgument = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
  type: Type.String({ minLength: 1 }),
  description: Type.String(),
  /** `false`: the model may leave it out (under a strict wire format, send it as null). Required otherwise. */
  required: Type.Optional(Type.Boolean()),
  /**
   * For an `object` or `array` argument: the JSON Schema of its value (properties, items…), shown
   * to the model and checked before anything is sent. Without it, any object or array goes.
   */
  schema: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
})
export type ToolArgument = Static<typeof ToolArgument>

/** A tool of a service; any other key is a config value for the service. */
export const ToolDescriptor = Type.Object(
  {
    type: Type.Literal('tool-service'),
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    description: Type.String({ minLength: 1 }),
    service: Type.String({ minLength: 1 }),
    arguments: Type.Optional(Type.Array(ToolArgument)),
  },
  { additionalProperties: true },
)
export type ToolDescriptor = Static<typeof ToolDescriptor>

/** The keys of a tool descriptor that are not config values. */
export const TOOL_DESCRIPTOR_KEYS = ['type', 'name', 'description', 'service', 'arguments'] as const

/**
 * Whether a service the person configured runs as a local command. Announced services are never
 * asked: they are NATS services by where they came from, whatever they hold.
 */
export function isStdioService(service: ServiceDescriptor): service is StdioServiceDescriptor {
  return 'command' in service
}

// ── The wire: what goes to a service and comes back (NATS message bodies, stdio lines) ──

/** A request's body; `config` and `arguments` are JSON text, as the seed has them. */
export interface ServiceRequest {
  user: string
  config: string
  arguments: string
}

/** One response; a call streams one or more, the last with `end_of_stream: true`. */
export interface ServiceResponse {
  error: { type: string; message: string } | null
  response: string
  end_of_stream: boolean
}

/** Over stdio, each line carries its id in the body (NATS puts it in the `id` header). */
export type StdioRequestLine = ServiceRequest & { id: string }
export type StdioResponseLine = ServiceResponse & { id: string }
export interface StdioCancelLine {
  id: string
  cancel: true
}

/** Where a service says it is alive, with its tools, and where Atelier asks every service to say so. */
export const ANNOUNCE_SUBJECT = 'tool-services.announce'
export const DISCOVER_SUBJECT = 'tool-services.discover'
/** The queue group services join by default, so N instances share the requests. */
export const DEFAULT_QUEUE_GROUP = 'tool-service'

/**
 * What a service publishes on ANNOUNCE_SUBJECT: a NATS service descriptor and its tools, nothing
 * else (closed, as the service descriptor is), kept `ttlSeconds` unless renewed.
 */
export const ServiceAnnouncement = Type.Object(
  {
    service: NatsServiceDescriptor,
    tools: Type.Array(ToolDescriptor),
    ttlSeconds: Type.Number({ exclusiveMinimum: 0 }),
  },
  { additionalProperties: false },
)
export type ServiceAnnouncement = Static<typeof ServiceAnnouncement>

/** The subject a cancel for a call on `requestQueue` goes to. */
export function cancelSubject(requestQueue: string): string {
  return `${requestQueue}.cancel`
}

/** A message on a response subject, read: a response, or what makes it unusable. */
export type ReadResponse = { response: ServiceResponse } | { problem: string }

/**
 * A response as received, read as the seed has it: `error` absent or null is no error, and a
 * `response` that is not a string is taken as JSON-encoded (`json.dumps`), as the seed's client
 * does. Anything else — not JSON, not an object, no `end_of_stream` boolean, an `error` without a
 * `type` and `message` — is unusable, and says why.
 */
export function readServiceResponse(text: string): ReadResponse {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { problem: 'it is not JSON' }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problem: 'it is not a JSON object' }
  }
  const { error, response, end_of_stream } = value as Record<string, unknown>
  if (typeof end_of_stream !== 'boolean') return { problem: '"end_of_stream" is not true or false' }
  // Absent or null is the seed's default, the empty string (an error response often leaves it so).
  const observation =
    response === undefined || response === null
      ? ''
      : typeof response === 'string'
        ? response
        : JSON.stringify(response)
  if (error === undefined || error === null) {
    return { response: { error: null, response: observation, end_of_stream } }
  }
  const { type, message } = (typeof error === 'object' ? error : {}) as Record<string, unknown>
  if (typeof type !== 'string' || typeof message !== 'string') {
    return { problem: '"error" is neither null nor {"type", "message"} strings' }
  }
  return { response: { error: { type, message }, response: observation, end_of_stream } }
}

/** A response as received, or undefined when it is unusable (see readServiceResponse). */
export function parseServiceResponse(text: string): ServiceResponse | undefined {
  const read = readServiceResponse(text)
  return 'response' in read ? read.response : undefined
}

/** The error type a service gives for a failure the model cannot fix: it ends the turn (FatalToolError). */
export const FATAL_ERROR_TYPE = 'fatal'

// ── What the settings panel and the CLI see ──

export const ServiceTransportKind = Type.Union([Type.Literal('nats'), Type.Literal('stdio')])

/** One difference between the version of an announced service the person enabled and the one announced now. */
export const DescriptorChange = Type.Object({
  /**
   * What differs: a field of the service (`request-queue`), a tool (`tools.NAME`: added or gone) or
   * a field of a tool (`tools.NAME.description`).
   */
  field: Type.String(),
  /** As enabled; absent when it is new. */
  before: Type.Optional(Type.Unknown()),
  /** As announced now; absent when it is gone. */
  after: Type.Optional(Type.Unknown()),
})
export type DescriptorChange = Static<typeof DescriptorChange>

export const ToolServiceInfo = Type.Object({
  id: Type.String(),
  transport: ServiceTransportKind,
  descriptor: ServiceDescriptor,
  /** `configured`: added by the person (stored); `announced`: a live service announced it. */
  origin: Type.Union([Type.Literal('configured'), Type.Literal('announced')]),
  /** An announced service is on only while it announces the very version the person enabled. */
  enabled: Type.Boolean(),
  /** An announced service's version: a hash of its descriptor and tools, what enabling it pins. */
  version: Type.Optional(Type.String()),
  /**
   * An announced service that now announces something other than the version the person enabled:
   * what differs. It is off until the person enables this version.
   */
  changes: Type.Optional(Type.Array(DescriptorChange)),
  tools: Type.Array(ToolDescriptor),
  /**
   * The tools of `tools` a turn offers now: the service on and reachable, and the tool's own switch
   * (Settings → Tools, `atelier settings set NAME enabled=…`) on.
   */
  enabledTools: Type.Array(Type.String()),
  /** An announced service's announcement lapses at this time (epoch ms) unless renewed. */
  expiresAt: Type.Optional(Type.Number()),
  /** A stdio service's process is running. */
  running: Type.Optional(Type.Boolean()),
  /** The latest failures (bad responses, a process that died), newest last. */
  errors: Type.Array(Type.String()),
})
export type ToolServiceInfo = Static<typeof ToolServiceInfo>

/** How long a turn waits, by default, for the services' answers to the discover sent at connect. */
export const DEFAULT_DISCOVER_WAIT_MS = 500
/** The longest that wait may be set to (it may be none at all). */
export const MAX_DISCOVER_WAIT_MS = 10_000
export const DiscoverWaitMs = Type.Integer({ minimum: 0, maximum: MAX_DISCOVER_WAIT_MS })

/**
 * A turn (or the inspector) that found the broker's discover round under way and waited for the
 * enabled announced services to answer before building its tools: how long, and which answered.
 */
export const ServiceDiscovery = Type.Object({
  waitedMs: Type.Number(),
  /** The services that announced themselves since the discover was sent, in the order they did. */
  services: Type.Array(Type.String()),
})
export type ServiceDiscovery = Static<typeof ServiceDiscovery>

export const BrokerAuth = Type.Union([
  Type.Object({ kind: Type.Literal('none') }),
  Type.Object({ kind: Type.Literal('token') }),
  Type.Object({ kind: Type.Literal('user'), user: Type.String({ minLength: 1 }) }),
  Type.Object({ kind: Type.Literal('nkey') }),
  Type.Object({ kind: Type.Literal('creds'), file: Type.String({ minLength: 1 }) }),
])
export type BrokerAuth = Static<typeof BrokerAuth>

/** The broker as the panel shows it; the secret (token, password, nkey seed) never crosses. */
export const BrokerInfo = Type.Object({
  /** Credentials in it (`nats://user:password@…`) read `MASKED_VALUE`: they are stored encrypted. */
  url: Type.Union([Type.String(), Type.Null()]),
  auth: BrokerAuth,
  /** A CA file for TLS with a private CA. */
  caFile: Type.Union([Type.String(), Type.Null()]),
  hasSecret: Type.Boolean(),
  status: Type.Union([
    Type.Literal('off'),
    Type.Literal('connecting'),
    Type.Literal('connected'),
    Type.Literal('reconnecting'),
    Type.Literal('failed'),
  ]),
  error: Type.Union([Type.String(), Type.Null()]),
  /** What came over the broker and was ignored (garbage on a response subject, a bad announcement), newest last. */
  errors: Type.Array(Type.String()),
  /**
   * Set when a broker server is not on this machine and Atelier signs in with no credentials:
   * anyone who reaches it can read the calls and answer or announce in a service's place.
   */
  warning: Type.Union([Type.String(), Type.Null()]),
  /**
   * After connecting, the longest a turn waits for the enabled announced services to answer the
   * discover before it builds its tools (it goes on as soon as they all have).
   */
  discoverWaitMs: DiscoverWaitMs,
})
export type BrokerInfo = Static<typeof BrokerInfo>

export const BrokerInput = Type.Object(
  {
    /** Credentials in it are stored encrypted; sent back as `MASKED_VALUE`, they keep the stored ones. */
    url: Type.Union([Type.String({ minLength: 1, maxLength: 2000 }), Type.Null()]),
    auth: BrokerAuth,
    caFile: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
    /** The token, password or nkey seed; absent keeps the stored one. */
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000 })),
    /** Absent keeps the stored one (DEFAULT_DISCOVER_WAIT_MS when none is). */
    discoverWaitMs: Type.Optional(DiscoverWaitMs),
  },
  { additionalProperties: false },
)
export type BrokerInput = Static<typeof BrokerInput>
