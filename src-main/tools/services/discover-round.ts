/**
 * The broker's discover round: from the discover Atelier sends at connect (and at each reconnect)
 * until the live services have answered it with their announcements. A turn that connects the
 * broker builds its tools only once the services it needs have answered, or the round's bound has
 * passed — without it, a one-shot run would build them before the first announcement arrives.
 */
import type { ServiceDiscovery } from '../../../src-shared/tool-services'

export class DiscoverRound {
  /** When the last discover went out (epoch ms); undefined before the first. */
  private sentAt: number | undefined
  /** The services that announced themselves since, in order. */
  private readonly answered: string[] = []
  private readonly waiters = new Set<() => void>()
  /** The round is timed by the real clock, whatever clock the records are stamped with. */
  private readonly now = Date.now

  /** A discover went out: a new round begins. */
  started(): void {
    this.sentAt = this.now()
    this.answered.length = 0
    this.wake()
  }

  /** A service announced itself. */
  answer(id: string): void {
    if (this.sentAt === undefined) return
    if (!this.answered.includes(id)) this.answered.push(id)
    this.wake()
  }

  /** No round is under way any more (the broker was changed or closed). */
  reset(): void {
    this.sentAt = undefined
    this.answered.length = 0
    this.wake()
  }

  /**
   * Waits until `done()` holds or `boundMs` have passed since the discover went out, whichever is
   * first. Undefined when no round is under way: none was sent, or its bound passed before this.
   */
  async until(done: () => boolean, boundMs: number): Promise<ServiceDiscovery | undefined> {
    const { sentAt } = this
    if (sentAt === undefined) return undefined
    const start = this.now()
    const deadline = sentAt + boundMs
    if (start >= deadline) return undefined
    while (!done() && this.now() < deadline && this.sentAt === sentAt) {
      await new Promise<void>((woken) => {
        const wake = () => {
          clearTimeout(timer)
          this.waiters.delete(wake)
          woken()
        }
        const timer = setTimeout(wake, deadline - this.now())
        this.waiters.add(wake)
      })
    }
    return { waitedMs: this.now() - start, services: [...this.answered] }
  }

  private wake(): void {
    for (const wake of [...this.waiters]) wake()
  }
}
