/**
 * What the app does with tool services (Settings → Tool services, `atelier services`, a turn's
 * preparation), carried out by the parts that each hold one piece — the broker connection, the
 * announcements, the stdio processes, the registry sync — and announced as `services.changed`.
 * Listing connects nothing: the broker connects when a turn, the inspector or the person asks.
 */

import { AtelierError } from '../../../src-shared/errors'
import {
  type BrokerInfo,
  type BrokerInput,
  isStdioService,
  type ServiceDescriptor,
  type ServiceDiscovery,
  type ToolDescriptor,
  type ToolServiceInfo,
} from '../../../src-shared/tool-services'
import type { AtelierEvents } from '../../core/events'
import type { SealedSecrets } from '../../core/sealed-secrets'
import type { AppSettingsRepository } from '../../db/app-settings-repository'
import type { ToolServicesRepository } from '../../db/tool-services-repository'
import type { ToolRegistry } from '../registry'
import type { ConfineServer } from '../sandbox/command-sandbox'
import type { ToolSettingsService } from '../tool-settings-service'
import { BrokerConnection } from './broker-connection'
import { readDescriptors, toolConfig } from './descriptors'
import { DiscoverRound } from './discover-round'
import { type KeptAnnouncement, ServiceAnnouncements } from './service-announcements'
import { ServiceErrorLog } from './service-error-log'
import { ServiceToolSync } from './service-tool-sync'
import { changesSince } from './service-versions'
import { StdioPool } from './stdio-pool'

/** The longest a turn, or the person opening the panel, waits for the broker to connect. */
const CONNECT_WAIT_MS = 3000
/** How long live services get to answer a discover, when a caller waits for them. */
const ANNOUNCE_WAIT_MS = 1000

/** An enabled service a turn cannot reach, and why: the turn goes on without its tools. */
export interface UnreachableService {
  id: string
  error: string
}

/** What a turn's preparation found: the services it goes without, and the discover round it waited for. */
export interface PreparedServices {
  unreachable: UnreachableService[]
  /** Set when the broker's discover round was under way: how long the turn waited, who answered. */
  discovery?: ServiceDiscovery
}

export interface ToolServiceDeps {
  repository: ToolServicesRepository
  settings: AppSettingsRepository
  secrets: SealedSecrets
  registry: ToolRegistry
  /** Announced services' tools are switched through the tool settings. */
  toolSettings: ToolSettingsService
  user: string
  events: AtelierEvents
  /** Where a stdio service's relative `cwd` starts. */
  baseDir: string
  /** Confines the stdio services set to run in the sandbox. */
  confine?: ConfineServer
  now?: () => number
}

export class ToolServiceService {
  private readonly errors: ServiceErrorLog
  private readonly broker: BrokerConnection
  private readonly announcements: ServiceAnnouncements
  private readonly stdio: StdioPool
  private readonly tools: ServiceToolSync
  private readonly round = new DiscoverRound()
  private readonly now: () => number
  private closed = false

  constructor(private readonly deps: ToolServiceDeps) {
    this.now = deps.now ?? Date.now
    this.errors = new ServiceErrorLog(deps.repository, this.now, () => this.changed())
    this.announcements = new ServiceAnnouncements({
      now: this.now,
      onUpdate: (changed) => {
        this.sync()
        if (changed) this.changed()
      },
    })
    this.broker = new BrokerConnection({
      settings: deps.settings,
      secrets: deps.secrets,
      errors: this.errors,
      now: this.now,
      onStatus: () => {
        this.sync()
        this.changed()
      },
      onAnnouncement: (announcement) => {
        this.announcements.receive(announcement)
        this.round.answer(announcement.service.id)
      },
      onDiscover: () => this.round.started(),
    })
    this.stdio = new StdioPool({
      baseDir: deps.baseDir,
      log: (id, message) => this.errors.record(id, message),
      ...(deps.confine && { confine: deps.confine }),
    })
    this.tools = new ServiceToolSync({
      registry: deps.registry,
      repository: deps.repository,
      stdio: this.stdio,
      natsTransport: (service) => this.broker.transportFor(service),
      errors: this.errors,
      onStdioCall: () => this.changed(),
    })
  }

  /**
   * Every service, configured and announced, as far as they are known now: connects nothing. An
   * announced service is on while it announces the version the person enabled; announcing another
   * makes it off, with what changed.
   */
  list(): ToolServiceInfo[] {
    const tools = this.deps.repository.tools()
    const configured = this.deps.repository.services().map(({ descriptor, enabled }) =>
      this.info(
        descriptor,
        'configured',
        enabled,
        tools.filter((tool) => tool.service === descriptor.id),
      ),
    )
    const enabledVersions = this.deps.repository.enabledVersions()
    const announced = this.announcements
      .list()
      .filter(({ announcement }) => !configured.some((info) => info.id === announcement.service.id))
      .map(({ announcement, version, expiresAt }) => {
        const enabled = enabledVersions.get(announcement.service.id)
        const current = enabled?.version === version.version
        return {
          ...this.info(announcement.service, 'announced', current, announcement.tools),
          version: version.version,
          ...(enabled && !current && { changes: changesSince(enabled, version) }),
          expiresAt,
        }
      })
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
      if (owner && !(owner.source.kind === 'service' && this.tools.has(tool.name))) {
        throw new AtelierError('invalid_descriptor', `A tool named "${tool.name}" exists already.`, {
          name: tool.name,
        })
      }
    }
    this.deps.repository.save(services, tools, this.now())
    this.stdio.restartChanged(services)
    this.sync()
    this.changed()
    return { added: [...services.map((service) => service.id), ...tools.map((tool) => tool.name)] }
  }

  /** Removes a configured service (its tools with it) or one tool; a stdio service's process tree ends. */
  async remove(id: string): Promise<{ id: string }> {
    if (!this.deps.repository.remove(id)) {
      throw new AtelierError('not_found', `No tool service or service tool "${id}".`, { id })
    }
    await this.stdio.stop(id)
    this.sync()
    this.changed()
    return { id }
  }

  /**
   * Turns a service on or off. An announced one comes from the network, so it starts off, and
   * turning it on enables the version it announces now — `version`, when given, is the one the
   * person was shown, and a service that announced something else since is refused
   * (`service_changed`) — and its tools with it.
   */
  async setEnabled(id: string, enabled: boolean, version?: string): Promise<ToolServiceInfo> {
    const announced = this.announcements.get(id)
    if (announced && !this.deps.repository.services().some(({ descriptor }) => descriptor.id === id)) {
      this.setAnnouncedEnabled(announced, enabled, version)
    } else {
      if (!this.deps.repository.setEnabled(id, enabled, this.now())) {
        throw new AtelierError('not_found', `No tool service "${id}".`, { id })
      }
      if (!enabled) await this.stdio.stop(id)
      this.sync()
    }
    this.changed()
    return this.list().find((info) => info.id === id) as ToolServiceInfo
  }

  brokerInfo(): BrokerInfo {
    return this.broker.info()
  }

  /** Saves the broker; the connection to the one before ends, and what it announced is forgotten. */
  async setBroker(input: BrokerInput): Promise<BrokerInfo> {
    this.broker.save(input)
    const closed = this.broker.disconnect()
    this.announcements.clear()
    this.round.reset()
    this.sync()
    await closed
    this.changed()
    return this.brokerInfo()
  }

  /**
   * Connects the broker when one is set and not yet connected (the person opened the panel or saved
   * the broker), waiting a few seconds at most; live services answer the discover sent at connect
   * and arrive as `services.changed`. Answers how the broker stands then.
   */
  async connect(): Promise<BrokerInfo> {
    await this.broker.connect(CONNECT_WAIT_MS)
    return this.brokerInfo()
  }

  /**
   * For a turn: connects the broker when one is set, waits while the discover round is under way
   * for the enabled announced services to answer (up to the broker's `discoverWaitMs`), brings
   * every reachable tool into the registry, and says which enabled services cannot be reached (the
   * turn goes on without their tools).
   */
  async prepare(): Promise<PreparedServices> {
    await this.broker.connect(CONNECT_WAIT_MS)
    if (this.broker.connected) {
      const discovery = await this.round.until(
        () => this.awaitedServices().length === 0,
        this.broker.info().discoverWaitMs,
      )
      this.sync()
      return { unreachable: [], ...(discovery && { discovery }) }
    }
    this.sync()
    const unreachable = this.deps.repository
      .services()
      .filter(({ descriptor, enabled }) => enabled && !isStdioService(descriptor))
      .map(({ descriptor }) => ({ id: descriptor.id, error: this.broker.whyUnreachable() }))
    return { unreachable }
  }

  /**
   * For a command that lives a moment (the CLI): prepares, then gives live services a moment to
   * answer the discover sent at connect, so announced services are known.
   */
  async discover(): Promise<void> {
    await this.prepare()
    if (this.broker.connected) await new Promise((done) => setTimeout(done, ANNOUNCE_WAIT_MS))
  }

  /** What a stdio service wrote to stderr lately. */
  stderr(id: string): string {
    return this.stdio.stderr(id)
  }

  async close(): Promise<void> {
    this.closed = true
    this.announcements.clear()
    this.round.reset()
    await this.stdio.close()
    await this.broker.close()
  }

  private setAnnouncedEnabled(
    { announcement, version }: KeptAnnouncement,
    enabled: boolean,
    shown: string | undefined,
  ): void {
    const id = announcement.service.id
    if (!enabled) {
      this.deps.repository.disableVersion(id)
      this.sync()
      return
    }
    if (shown !== undefined && shown !== version.version) {
      throw new AtelierError(
        'service_changed',
        `The service "${id}" announced something else since it was shown: look at it again before turning it on.`,
        { id },
      )
    }
    this.deps.repository.enableVersion(id, version, this.now())
    this.sync()
    for (const tool of announcement.tools) {
      if (this.tools.has(tool.name))
        this.deps.toolSettings.update(this.deps.user, tool.name, { enabled: true })
    }
  }

  /** The announced services the person enabled that have not announced themselves (yet). */
  private awaitedServices(): string[] {
    const configured = new Set(this.deps.repository.services().map(({ descriptor }) => descriptor.id))
    return [...this.deps.repository.enabledVersions().keys()].filter(
      (id) => !configured.has(id) && !this.announcements.get(id),
    )
  }

  /** Makes the registry hold exactly the tools that can be called now. */
  private sync(): void {
    // Closing runs on after the database has closed: nothing is read any more.
    if (this.closed) return
    this.tools.sync({ connected: this.broker.connected, announced: this.announcements.list() })
  }

  private info(
    descriptor: ServiceDescriptor,
    origin: ToolServiceInfo['origin'],
    enabled: boolean,
    tools: ToolDescriptor[],
  ): ToolServiceInfo {
    // Only what the person configured can run as a command; an announced service is NATS by origin.
    const stdio = origin === 'configured' && isStdioService(descriptor)
    return {
      id: descriptor.id,
      transport: stdio ? 'stdio' : 'nats',
      descriptor,
      origin,
      enabled,
      tools,
      enabledTools: enabled
        ? tools.map(({ name }) => name).filter((name) => this.offers(descriptor.id, name))
        : [],
      ...(stdio && { running: this.stdio.running(descriptor.id) }),
      errors: this.errors.of(descriptor.id),
    }
  }

  /** Whether the registry holds the tool, for this service, switched on. */
  private offers(service: string, name: string): boolean {
    const entry = this.deps.registry.get(name)
    if (entry?.source.kind !== 'service' || entry.source.service !== service) return false
    return this.deps.toolSettings.resolve(this.deps.user, entry).settings.enabled
  }

  private changed(): void {
    if (this.closed) return
    this.deps.events.emit('services.changed', { services: this.list(), broker: this.brokerInfo() })
  }
}
