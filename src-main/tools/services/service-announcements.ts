/**
 * The services live on the broker, as they announced themselves: each kept until its ttl lapses
 * without a renewal. An announcement comes from the network, so one that does not fit is refused
 * and logged, never trusted.
 */
import { Value } from '@sinclair/typebox/value'
import {
  NatsServiceDescriptor,
  type ServiceAnnouncement,
  ToolDescriptor,
} from '../../../src-shared/tool-services'

/** The longest an announcement is kept without a renewal, whatever ttl it asks for. */
const MAX_TTL_SECONDS = 24 * 3600

/** An announcement kept, and when it lapses (epoch ms). */
export interface KeptAnnouncement {
  announcement: ServiceAnnouncement
  expiresAt: number
}

export interface ServiceAnnouncementsDeps {
  now: () => number
  /** An announcement came or lapsed; `changed`: what the services offer moved (not a mere renewal). */
  onUpdate(changed: boolean): void
  /** An announcement was refused, and why. */
  log(message: string): void
}

export class ServiceAnnouncements {
  private readonly kept = new Map<string, KeptAnnouncement & { timer: NodeJS.Timeout }>()

  constructor(private readonly deps: ServiceAnnouncementsDeps) {}

  /** A live service said it is there: its tools stay until its ttl lapses without a renewal. */
  receive(announcement: ServiceAnnouncement): void {
    const problem = announcementProblem(announcement)
    if (problem) {
      this.deps.log(`An announcement was ignored: ${problem}`)
      return
    }
    const id = announcement.service.id
    const ttlMs = Math.min(Math.max(announcement.ttlSeconds, 1), MAX_TTL_SECONDS) * 1000
    const previous = this.kept.get(id)
    if (previous) clearTimeout(previous.timer)
    const timer = setTimeout(() => {
      this.kept.delete(id)
      this.deps.onUpdate(true)
    }, ttlMs)
    timer.unref()
    this.kept.set(id, { announcement, expiresAt: this.deps.now() + ttlMs, timer })
    this.deps.onUpdate(JSON.stringify(previous?.announcement) !== JSON.stringify(announcement))
  }

  get(id: string): KeptAnnouncement | undefined {
    return this.kept.get(id)
  }

  /** Every announcement kept, in the order they first came. */
  list(): KeptAnnouncement[] {
    return [...this.kept.values()]
  }

  /** Forgets them all (the broker connection ended: what it announced is no longer known). */
  clear(): void {
    for (const { timer } of this.kept.values()) clearTimeout(timer)
    this.kept.clear()
  }
}

/** What makes an announcement unusable, or undefined: it comes from the network, so nothing is assumed. */
function announcementProblem({ service, tools, ttlSeconds }: ServiceAnnouncement): string | undefined {
  if (!Value.Check(NatsServiceDescriptor, service)) return 'its service is not a NATS service descriptor'
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) return 'its ttlSeconds is not a positive number'
  const bad = tools.find((tool) => !Value.Check(ToolDescriptor, tool) || tool.service !== service.id)
  return bad ? `a tool of ${service.id} is not a tool descriptor of that service` : undefined
}
