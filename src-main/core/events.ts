import type { Unsubscribe } from '../../src-shared/api'
import type { EventName, EventPayload } from '../../src-shared/contract'

export type AtelierEventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void

/** Main → renderer events; Electron main and the web host each forward them to their clients. */
export class AtelierEvents {
  private readonly listeners = new Set<AtelierEventListener>()

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners) listener(event, payload)
  }

  subscribe(listener: AtelierEventListener): Unsubscribe {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}
