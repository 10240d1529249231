/**
 * Keeps the registry holding exactly the tool-service tools that can be called now: the configured
 * tools of enabled services (a broker's only while it is connected) and, while connected, those of
 * announced services the person enabled, as long as they announce the very version enabled — each
 * a registry entry whose runner sends the call to its service.
 */
import { randomUUID } from 'node:crypto'
import { errorMessage } from '../../../src-shared/errors'
import {
  isStdioService,
  type NatsServiceDescriptor,
  type StdioServiceDescriptor,
  type ToolDescriptor,
} from '../../../src-shared/tool-services'
import type { ToolServicesRepository } from '../../db/tool-services-repository'
import type { ToolRegistry } from '../registry'
import { clampIntegerSetting, integerParameter, TIMEOUT_SECONDS } from '../settings-policy'
import type { RegisteredTool } from '../types'
import { argumentsSchema, toolConfig } from './descriptors'
import type { KeptAnnouncement } from './service-announcements'
import type { ServiceErrorLog } from './service-error-log'
import type { StdioPool } from './stdio-pool'
import type { ServiceTransport } from './transport'

/** The longest silence between two responses of a call, in seconds. */
export const INACTIVITY_SECONDS = { min: 1, max: 600, fallback: 20 }

export interface ServiceToolSyncDeps {
  registry: ToolRegistry
  repository: ToolServicesRepository
  stdio: StdioPool
  /** The way to a NATS service; refused while the broker is not connected. */
  natsTransport(service: NatsServiceDescriptor): ServiceTransport
  errors: ServiceErrorLog
  /** A stdio service's process may have started or ended with a call: the panel follows. */
  onStdioCall(): void
}

/** What the broker side offers now: whether it is connected, and what it announced. */
export interface LiveServices {
  connected: boolean
  announced: readonly KeptAnnouncement[]
}

/**
 * A tool to register, with its service and the way to it. Only a service the person configured
 * can be stdio: an announced one came over the broker, and goes back over it whatever it holds.
 */
type Wanted = { tool: ToolDescriptor } & (
  | { transport: 'nats'; service: NatsServiceDescriptor; announced: boolean }
  | { transport: 'stdio'; service: StdioServiceDescriptor; announced: false }
)

export class ServiceToolSync {
  /** The tools this put in the registry, by name, with what they were made from. */
  private readonly registered = new Map<string, { key: string; unregister: () => void }>()

  constructor(private readonly deps: ServiceToolSyncDeps) {}

  /** Whether the registry's tool of that name is one of ours. */
  has(name: string): boolean {
    return this.registered.has(name)
  }

  /** Makes the registry hold exactly the tools that can be called now. */
  sync({ connected, announced }: LiveServices): void {
    const wanted = new Map<string, Wanted>()
    const stored = this.deps.repository.services()
    const services = new Map(stored.map(({ descriptor }) => [descriptor.id, descriptor]))
    for (const tool of this.deps.repository.tools()) {
      const service = services.get(tool.service)
      const entry = stored.find(({ descriptor }) => descriptor.id === tool.service)
      if (!service || !entry?.enabled) continue
      if (isStdioService(service))
        wanted.set(tool.name, { tool, service, transport: 'stdio', announced: false })
      else if (connected) wanted.set(tool.name, { tool, service, transport: 'nats', announced: false })
    }
    if (connected) {
      const enabled = this.deps.repository.enabledVersions()
      for (const { announcement, version } of announced) {
        if (services.has(announcement.service.id)) continue
        if (enabled.get(announcement.service.id)?.version !== version.version) continue
        for (const tool of announcement.tools) {
          if (!wanted.has(tool.name))
            wanted.set(tool.name, { tool, service: announcement.service, transport: 'nats', announced: true })
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
      if (!this.registered.has(name)) this.register(name, want)
    }
  }

  private register(name: string, want: Wanted): void {
    let config: Record<string, unknown>
    try {
      config = toolConfig(want.tool, want.service)
    } catch (error) {
      this.deps.errors.record(want.service.id, errorMessage(error))
      return
    }
    if (this.deps.registry.get(name)) {
      this.deps.errors.record(
        want.service.id,
        `The tool "${name}" clashes with a tool of that name already offered.`,
      )
      return
    }
    const tool = this.registeredTool(want, config)
    const unregister = this.deps.registry.register(tool, { kind: 'service', service: want.service.id })
    this.registered.set(name, { key: JSON.stringify(want), unregister })
  }

  private registeredTool(want: Wanted, config: Record<string, unknown>): RegisteredTool {
    const { tool, service, announced } = want
    const configText = JSON.stringify(config)
    return {
      definition: { name: tool.name, description: tool.description, parameters: argumentsSchema(tool) },
      settings: {
        title: tool.name,
        description: `${tool.description} (tool service ${service.id}${announced ? ', announced on the broker' : ''})`,
        category: 'system',
        // An announced tool comes on only with its service's enabling, which switches it on here.
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
          const serviceCall = {
            id: randomUUID(),
            request: { user: call.user, config: configText, arguments: JSON.stringify(call.args) },
            signal: host.signal,
            inactivityMs: inactivitySeconds * 1000,
            onPartial: (text: string) => host.onUpdate({ kind: 'output', stream: 'stdout', text }),
          }
          if (want.transport !== 'stdio') return this.deps.natsTransport(want.service).call(serviceCall)
          const stdio = this.deps.stdio.transportFor(want.service)
          const pid = stdio.pid
          const answer = stdio.call(serviceCall)
          // The panel follows a process that started, or ended, with the call; a call to the process
          // already running changes nothing it shows (and listing the services is a database read).
          void answer.finally(() => stdio.pid !== pid && this.deps.onStdioCall()).catch(() => {})
          return answer
        },
      },
    }
  }
}
