/**
 * The services live on the broker, as they announced themselves: each kept until its ttl lapses
 * without a renewal, with the version it is. What reaches here has been checked at the broker
 * (a closed NATS descriptor and tools of that service): anything else was refused and logged there.
 */
import type { ServiceAnnouncement } from '../../../src-shared/tool-services'
import type { ServiceVersion } from '../../db/tool-services-repository'
import { versionOf } from './service-versions'

/** The longest an announcement is kept without a renewal, whatever ttl it asks for. */
const MAX_TTL_SECONDS = 24 * 3600

/** An announcement kept, the version it is, and when it lapses (epoch ms). */
export interface KeptAnnouncement {
  announcement: ServiceAnnouncement
  version: ServiceVersion
  expiresAt: number
}

export interface ServiceAnnouncementsDeps {
  now: () => number
  /** An announcement came or lapsed; `changed`: what the services offer moved (not a mere renewal). */
  onUpdate(changed: boolean): void
}

export class ServiceAnnouncements {
  private readonly kept = new Map<string, KeptAnnouncement & { timer: NodeJS.Timeout }>()

  constructor(private readonly deps: ServiceAnnouncementsDeps) {}

  /** A live service said it is there: its tools stay until its ttl lapses without a renewal. */
  receive(announcement: ServiceAnnouncement): void {
    const id = announcement.service.id
    const ttlMs = Math.min(Math.max(announcement.ttlSeconds, 1), MAX_TTL_SECONDS) * 1000
    const previous = this.kept.get(id)
    if (previous) clearTimeout(previous.timer)
    const timer = setTimeout(() => {
      this.kept.delete(id)
      this.deps.onUpdate(true)
    }, ttlMs)
    timer.unref()
    const version = versionOf(announcement)
    this.kept.set(id, { announcement, version, expiresAt: this.deps.now() + ttlMs, timer })
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
