/**
 * Tool services as the app sees them: the ones the person configured (stored) and the ones live
 * services announce on the broker, their tools in the registry (source `service`), the broker
 * connection and its secret. Like MCP servers, nothing connects or starts until a turn, the
 * inspector or the settings panel needs it.
 */
import { randomUUID } from 'node:crypto'
import { Value } from '@sinclair/typebox/value'
import { AtelierError } from '../../../src-shared/errors'
import type { McpServerStatus } from '../../../src-shared/mcp'
import {
  type BrokerInfo,
  type BrokerInput,
  isStdioService,
  NatsServiceDescriptor,
  type ServiceAnnouncement,
  type ServiceDescriptor,
  ToolDescriptor,
  type ToolServiceInfo,
} from '../../../src-shared/tool-services'
import type { AtelierEvents } from '../../core/events'
import type { LocalSecretStore } from '../../core/local-secret-store'
import type { AppSettingsRepository } from '../../db/app-settings-repository'
import type { ToolServicesRepository } from '../../db/tool-services-repository'
import type { ToolRegistry } from '../registry'
import { clampIntegerSetting, integerParameter, TIMEOUT_SECONDS } from '../settings-policy'
import type { ToolSettingsService } from '../tool-settings-service'
import type { RegisteredTool } from '../types'
import { argumentsSchema, readDescriptors, toolConfig } from './descriptors'
import { NatsBroker } from './nats-broker'
import { StdioService } from './stdio-service'
import type { ServiceTransport } from './transport'

const BROKER_KEY = 'toolServices.broker'
const BROKER_SECRET_KEY = 'toolServices.brokerSecret'
/** Where what the broker connection ignored is kept, beside each service's own failures. */
const BROKER_LOG = 'broker'
/** How many failures each service keeps for the panel. */
const KEPT_ERRORS = 10
/** A broker that could not be reached is tried again by the panel no sooner than this. */
const RETRY_AFTER_MS = 5000
/** The longest a turn waits for the broker to connect before it goes on without its tools. */
const PREPARE_WAIT_MS = 3000
/** How long live services get to answer a discover, when a caller waits for them. */
const ANNOUNCE_WAIT_MS = 1000

/** The longest silence between two responses of a call, in seconds. */
export const INACTIVITY_SECONDS = { min: 1, max: 600, fallback: 20 }

interface StoredBroker {
  url: string | null
  auth: BrokerInfo['auth']
  caFile: string | null
}

interface Announced {
  announcement: ServiceAnnouncement
  expiresAt: number
  timer: NodeJS.Timeout
}

export interface ToolServiceDeps {
  repository: ToolServicesRepository
  settings: AppSettingsRepository
  secrets: LocalSecretStore
  registry: ToolRegistry
  /** Announced services' tools are switched through the tool settings. */
  toolSettings: ToolSettingsService
  user: string
  events: AtelierEvents
  /** Where a stdio service's relative `cwd` starts. */
  baseDir: string
  now?: () => number
}

export class ToolServiceService {
  private broker: NatsBroker | undefined
  private brokerStatus: BrokerInfo['status'] = 'off'
  private brokerError: string | null = null
  private readonly stdio = new Map<string, StdioService>()
  private readonly announced = new Map<string, Announced>()
  private readonly registered = new Map<string, { key: string; unregister: () => void }>()
  private readonly errors = new Map<string, string[]>()
  private readonly now: () => number
  private closed = false

  constructor(private readonly deps: ToolServiceDeps) {
    this.now = deps.now ?? Date.now
  }

  /** Every service, configured and announced; asking connects the broker when one is set. */
  list(): ToolServiceInfo[] {
    if (this.brokerStatus !== 'failed' || this.now() - this.lastAttempt > RETRY_AFTER_MS) {
      void this.connectBroker().catch(() => {})
    }
    return this.snapshot()
  }

  private snapshot(): ToolServiceInfo[] {
    const tools = this.deps.repository.tools()
    const configured = this.deps.repository.services().map(({ descriptor, enabled }) =>
      this.info(
        descriptor,
        'configured',
        enabled,
        tools.filter((tool) => tool.service === descriptor.id),
      ),
    )
    const announced = [...this.announced.values()]
      .filter(({ announcement }) => !configured.some((info) => info.id === announcement.service.id))
      .map(({ announcement, expiresAt }) => ({
        ...this.info(announcement.service, 'announced', true, announcement.tools),
        expiresAt,
      }))
    return [...configured, ...announced]
  }

  /** Adds what a descriptor file holds: services, tools, or an array of both. Returns their ids. */
  add(json: unknown): { added: string[] } {
    const { services, tools } = readDescriptors(json)
    const known = new Map(
      this.deps.repository.services().map(({ descriptor }) => [descriptor.id, descriptor]),
    )
    for (const service of services) known.set(service.id, service)
    for (const tool of tools) {
      toolConfig(tool, known.get(tool.service))
      const owner = this.deps.registry.get(tool.name)
      if (owner && !(owner.source.kind === 'service' && this.registered.has(tool.name))) {
        throw new AtelierError('invalid_descriptor', `A tool named "${tool.name}" exists already.`, {
          name: tool.name,
        })
      }
    }
    this.deps.repository.save(services, tools, this.now())
    // A stdio service edited runs its new command from the next call on.
    for (const service of services) {
      const running = this.stdio.get(service.id)
      if (running && JSON.stringify(running.descriptor) !== JSON.stringify(service))
        void this.stopStdio(service.id)
    }
    this.sync()
    this.changed()
    return { added: [...services.map((service) => service.id), ...tools.map((tool) => tool.name)] }
  }

  /** Removes a configured service (its tools with it) or one tool; a stdio service's process tree ends. */
  async remove(id: string): Promise<{ id: string }> {
    if (!this.deps.repository.remove(id)) {
      throw new AtelierError('not_found', `No tool service or service tool "${id}".`, { id })
    }
    await this.stopStdio(id)
    this.sync()
    this.changed()
    return { id }
  }

  /**
   * Turns a configured service on or off; for an announced one, turns its tools on or off (they
   * come from the network, so they start off).
   */
  async setEnabled(id: string, enabled: boolean): Promise<ToolServiceInfo> {
    const announced = this.announced.get(id)
    if (announced && !this.deps.repository.services().some(({ descriptor }) => descriptor.id === id)) {
      this.sync()
      for (const tool of announced.announcement.tools) {
        if (this.registered.has(tool.name))
          this.deps.toolSettings.update(this.deps.user, tool.name, { enabled })
      }
      this.changed()
      return this.snapshot().find((info) => info.id === id) as ToolServiceInfo
    }
    if (!this.deps.repository.setEnabled(id, enabled, this.now())) {
      throw new AtelierError('not_found', `No tool service "${id}".`, { id })
    }
    if (!enabled) await this.stopStdio(id)
    this.sync()
    this.changed()
    return this.snapshot().find((info) => info.id === id) as ToolServiceInfo
  }

  brokerInfo(): BrokerInfo {
    const stored = this.storedBroker()
    return {
      ...stored,
      hasSecret: this.deps.settings.getRaw(BROKER_SECRET_KEY) !== undefined,
      status: stored.url ? this.brokerStatus : 'off',
      error: this.brokerError,
      errors: this.errors.get(BROKER_LOG) ?? [],
    }
  }

  async setBroker(input: BrokerInput): Promise<BrokerInfo> {
    const now = this.now()
    this.deps.settings.set(
      BROKER_KEY,
      { url: input.url, auth: input.auth, caFile: input.caFile ?? null },
      now,
    )
    if (input.secret !== undefined) {
      this.deps.settings.set(BROKER_SECRET_KEY, this.deps.secrets.seal(input.secret).toString('base64'), now)
    }
    await this.disconnectBroker()
    this.changed()
    return this.brokerInfo()
  }

  /**
   * Connects the broker when one is set, brings every reachable tool into the registry, and says
   * which enabled services cannot be reached (the turn goes on without their tools).
   */
  async prepare(): Promise<McpServerStatus[]> {
    // A broker that drops packets holds a connect for seconds: the turn waits a little, not that long.
    let waited: NodeJS.Timeout | undefined
    await Promise.race([
      this.connectBroker().catch(() => {}),
      new Promise((done) => {
        waited = setTimeout(done, PREPARE_WAIT_MS)
      }),
    ])
    clearTimeout(waited)
    this.sync()
    const connected = this.brokerStatus === 'connected'
    return this.deps.repository
      .services()
      .filter(({ descriptor, enabled }) => enabled && !isStdioService(descriptor) && !connected)
      .map(({ descriptor }) => ({
        id: descriptor.id,
        name: descriptor.id,
        connected: false,
        tools: [],
        error: this.storedBroker().url
          ? `the broker ${this.storedBroker().url} is not reachable${this.brokerError ? ` (${this.brokerError})` : ''}`
          : 'no broker is set (atelier services broker URL, or Settings → Tool services)',
      }))
  }

  /**
   * For a command that lives a moment (the CLI): prepares, then gives live services a moment to
   * answer the discover sent at connect, so announced services are known.
   */
  async discover(): Promise<void> {
    await this.prepare()
    if (this.brokerStatus === 'connected') await new Promise((done) => setTimeout(done, ANNOUNCE_WAIT_MS))
  }

  /** What a stdio service wrote to stderr lately. */
  stderr(id: string): string {
    return this.stdio.get(id)?.stderr ?? ''
  }

  async close(): Promise<void> {
    this.closed = true
    for (const { timer } of this.announced.values()) clearTimeout(timer)
    await Promise.all([...this.stdio.keys()].map((id) => this.stopStdio(id)))
    await this.disconnectBroker()
  }

  /** Makes the registry hold exactly the tools that can be called now. */
  private sync(): void {
    // Closing runs on after the database has closed: nothing is read any more.
    if (this.closed) return
    const connected = this.brokerStatus === 'connected'
    const wanted = new Map<string, { tool: ToolDescriptor; service: ServiceDescriptor; announced: boolean }>()
    const stored = this.deps.repository.services()
    const services = new Map(stored.map(({ descriptor }) => [descriptor.id, descriptor]))
    for (const tool of this.deps.repository.tools()) {
      const service = services.get(tool.service)
      const entry = stored.find(({ descriptor }) => descriptor.id === tool.service)
      if (!service || !entry?.enabled || (!isStdioService(service) && !connected)) continue
      wanted.set(tool.name, { tool, service, announced: false })
    }
    if (connected) {
      for (const { announcement } of this.announced.values()) {
        if (services.has(announcement.service.id)) continue
        for (const tool of announcement.tools) {
          if (!wanted.has(tool.name))
            wanted.set(tool.name, { tool, service: announcement.service, announced: true })
        }
      }
    }
    for (const [name, { key, unregister }] of this.registered) {
      const want = wanted.get(name)
      if (!want || JSON.stringify(want) !== key) {
        unregister()
        this.registered.delete(name)
      }
    }
    for (const [name, want] of wanted) {
      if (this.registered.has(name)) continue
      let config: Record<string, unknown>
      try {
        config = toolConfig(want.tool, want.service)
      } catch (error) {
        this.recordError(want.service.id, error instanceof Error ? error.message : String(error))
        continue
      }
      if (this.deps.registry.get(name)) {
        this.recordError(
          want.service.id,
          `The tool "${name}" clashes with a tool of that name already offered.`,
        )
        continue
      }
      const tool = this.registeredTool(want.tool, want.service, config, want.announced)
      const unregister = this.deps.registry.register(tool, { kind: 'service', service: want.service.id })
      this.registered.set(name, { key: JSON.stringify(want), unregister })
    }
  }

  private registeredTool(
    tool: ToolDescriptor,
    service: ServiceDescriptor,
    config: Record<string, unknown>,
    announced: boolean,
  ): RegisteredTool {
    const configText = JSON.stringify(config)
    return {
      definition: { name: tool.name, description: tool.description, parameters: argumentsSchema(tool) },
      settings: {
        title: tool.name,
        description: `${tool.description} (tool service ${service.id}${announced ? ', announced on the broker' : ''})`,
        category: 'system',
        // What comes from the network is off until the person turns it on once.
        enabledByDefault: !announced,
        canDisable: true,
        defaultParameters: {
          timeoutSeconds: TIMEOUT_SECONDS.fallback,
          inactivitySeconds: INACTIVITY_SECONDS.fallback,
        },
        parameterDescriptors: [
          integerParameter(
            'timeoutSeconds',
            'Timeout',
            'The longest a call may take in all.',
            TIMEOUT_SECONDS,
            'seconds',
          ),
          integerParameter(
            'inactivitySeconds',
            'Silence allowed',
            'The longest wait for the next response of a streaming call.',
            INACTIVITY_SECONDS,
            'seconds',
          ),
        ],
      },
      kind: 'other',
      runner: {
        run: (call, host) => {
          const inactivitySeconds = clampIntegerSetting(
            call.settings.parameters.inactivitySeconds,
            INACTIVITY_SECONDS,
          )
          const answer = this.transport(service).call({
            id: randomUUID(),
            request: { user: call.user, config: configText, arguments: JSON.stringify(call.args) },
            signal: host.signal,
            inactivityMs: inactivitySeconds * 1000,
            onPartial: (text) => host.onUpdate({ kind: 'output', stream: 'stdout', text }),
          })
          // A stdio service's process may have started, or ended, with the call: the panel follows.
          if (isStdioService(service)) {
            this.changed()
            void answer.finally(() => this.changed()).catch(() => {})
          }
          return answer
        },
      },
    }
  }

  private transport(service: ServiceDescriptor): ServiceTransport {
    if (isStdioService(service)) {
      let running = this.stdio.get(service.id)
      if (!running) {
        running = new StdioService(service, {
          baseDir: this.deps.baseDir,
          log: (message: string) => this.recordError(service.id, message),
        })
        this.stdio.set(service.id, running)
      }
      return running
    }
    if (!this.broker) throw new AtelierError('not_connected', 'Not connected to the broker.')
    return this.broker.transportFor(service as NatsServiceDescriptor)
  }

  private connecting: Promise<void> | undefined
  private lastAttempt = 0

  /** Connects once a broker is set; a failed first connect is tried again at the next need. */
  private connectBroker(): Promise<void> {
    const { url, auth, caFile } = this.storedBroker()
    if (!url || this.closed) return Promise.resolve()
    if (this.broker && this.brokerStatus !== 'failed') return this.connecting ?? Promise.resolve()
    const secret = this.secret()
    const broker = new NatsBroker({
      servers: url,
      ...(auth.kind === 'token' && secret && { token: secret }),
      ...(auth.kind === 'user' && { user: auth.user, ...(secret && { pass: secret }) }),
      ...(auth.kind === 'nkey' && secret && { nkeySeed: secret }),
      ...(auth.kind === 'creds' && { credsFile: auth.file }),
      ...(caFile && { caFile }),
      onStatus: (status, error) => {
        if (this.broker !== broker) return
        this.brokerStatus = status
        this.brokerError = error ?? null
        this.sync()
        this.changed()
      },
      onAnnouncement: (announcement) => this.announce(announcement),
      log: (message) => this.recordError(BROKER_LOG, message),
    })
    this.broker = broker
    this.brokerStatus = 'connecting'
    this.lastAttempt = this.now()
    const connecting = broker.connect().then(
      () => {
        if (this.broker !== broker) return
        this.brokerStatus = 'connected'
        this.brokerError = null
        this.sync()
        this.changed()
      },
      (error: unknown) => {
        if (this.broker !== broker) return
        this.brokerStatus = 'failed'
        this.brokerError = error instanceof Error ? error.message : String(error)
        this.broker = undefined
        this.changed()
        throw error
      },
    )
    this.connecting = connecting
    return connecting
  }

  private async disconnectBroker(): Promise<void> {
    const broker = this.broker
    this.broker = undefined
    this.connecting = undefined
    this.brokerStatus = 'off'
    this.brokerError = null
    for (const { timer } of this.announced.values()) clearTimeout(timer)
    this.announced.clear()
    this.sync()
    await broker?.close()
  }

  /** A live service said it is there: its tools stay until its ttl lapses without a renewal. */
  private announce(announcement: ServiceAnnouncement): void {
    const problem = announcementProblem(announcement)
    if (problem) {
      this.recordError(BROKER_LOG, `An announcement was ignored: ${problem}`)
      return
    }
    const id = announcement.service.id
    const ttlMs = Math.min(Math.max(announcement.ttlSeconds, 1), 24 * 3600) * 1000
    const previous = this.announced.get(id)
    if (previous) clearTimeout(previous.timer)
    const timer = setTimeout(() => {
      this.announced.delete(id)
      this.sync()
      this.changed()
    }, ttlMs)
    timer.unref()
    this.announced.set(id, { announcement, expiresAt: this.now() + ttlMs, timer })
    const changed = JSON.stringify(previous?.announcement) !== JSON.stringify(announcement)
    this.sync()
    if (changed) this.changed()
  }

  private async stopStdio(id: string): Promise<void> {
    const running = this.stdio.get(id)
    this.stdio.delete(id)
    await running?.close()
  }

  private info(
    descriptor: ServiceDescriptor,
    origin: ToolServiceInfo['origin'],
    enabled: boolean,
    tools: ToolDescriptor[],
  ): ToolServiceInfo {
    return {
      id: descriptor.id,
      transport: isStdioService(descriptor) ? 'stdio' : 'nats',
      descriptor,
      origin,
      enabled,
      tools,
      ...(isStdioService(descriptor) && { running: this.stdio.get(descriptor.id)?.running ?? false }),
      errors: this.errors.get(descriptor.id) ?? [],
    }
  }

  private storedBroker(): StoredBroker {
    const text = this.deps.settings.getRaw(BROKER_KEY)
    try {
      const stored = text === undefined ? undefined : (JSON.parse(text) as StoredBroker)
      if (stored && typeof stored === 'object' && stored.auth && typeof stored.auth.kind === 'string') {
        return { url: stored.url ?? null, auth: stored.auth, caFile: stored.caFile ?? null }
      }
    } catch {
      // A corrupt setting is no broker.
    }
    return { url: null, auth: { kind: 'none' }, caFile: null }
  }

  private secret(): string | undefined {
    const text = this.deps.settings.getRaw(BROKER_SECRET_KEY)
    if (text === undefined) return undefined
    try {
      return this.deps.secrets.unseal(Buffer.from(JSON.parse(text) as string, 'base64'))
    } catch {
      return undefined
    }
  }

  private recordError(id: string, message: string): void {
    const kept = [...(this.errors.get(id) ?? []), `${new Date(this.now()).toISOString()} ${message}`]
    this.errors.set(id, kept.slice(-KEPT_ERRORS))
    this.changed()
  }

  private changed(): void {
    if (this.closed) return
    this.deps.events.emit('services.changed', { services: this.snapshot(), broker: this.brokerInfo() })
  }
}

/** What makes an announcement unusable, or undefined: it comes from the network, so nothing is assumed. */
function announcementProblem({ service, tools, ttlSeconds }: ServiceAnnouncement): string | undefined {
  if (!Value.Check(NatsServiceDescriptor, service)) return 'its service is not a NATS service descriptor'
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) return 'its ttlSeconds is not a positive number'
  const bad = tools.find((tool) => !Value.Check(ToolDescriptor, tool) || tool.service !== service.id)
  return bad ? `a tool of ${service.id} is not a tool descriptor of that service` : undefined
}
