import { describe, expect, it } from 'vitest'
import { type AtelierTransport, buildAtelierApi } from '../../src-shared/api'
import { eventNames, methodNames } from '../../src-shared/contract'

function recordingTransport() {
  const calls: { method: string; request: unknown }[] = []
  const listeners = new Map<string, Set<(payload: unknown) => void>>()
  const transport: AtelierTransport = {
    invoke: async (method, request) => {
      calls.push({ method, request })
      return `result of ${method}`
    },
    subscribe: (event, listener) => {
      const set = listeners.get(event) ?? new Set()
      listeners.set(event, set)
      set.add(listener)
      return () => set.delete(listener)
    },
  }
  const emit = (event: string, payload: unknown) => {
    for (const listener of listeners.get(event) ?? []) listener(payload)
  }
  return { transport, calls, emit }
}

describe('buildAtelierApi', () => {
  it('exposes one named function per contract method and one onX per event, and nothing else', () => {
    const api = buildAtelierApi(recordingTransport().transport) as unknown as Record<
      string,
      Record<string, unknown>
    >
    const exposed = Object.entries(api).flatMap(([namespace, members]) =>
      Object.keys(members).map((member) => `${namespace}.${member}`),
    )
    const expected = [
      ...methodNames,
      ...eventNames.map((event) => {
        const [namespace, name] = event.split('.') as [string, string]
        return `${namespace}.on${name[0]?.toUpperCase()}${name.slice(1)}`
      }),
    ]
    expect(exposed.sort()).toEqual(expected.sort())
    for (const members of Object.values(api)) {
      for (const member of Object.values(members)) expect(typeof member).toBe('function')
    }
  })

  it('sends the contract method name and the request through the transport', async () => {
    const { transport, calls } = recordingTransport()
    const api = buildAtelierApi(transport)
    await expect(api.chats.rename({ id: 'a', title: 'b' })).resolves.toBe('result of chats.rename')
    await api.chats.list()
    expect(calls).toEqual([
      { method: 'chats.rename', request: { id: 'a', title: 'b' } },
      { method: 'chats.list', request: {} },
    ])
  })

  it('delivers events until the subscription is undone', () => {
    const { transport, emit } = recordingTransport()
    const api = buildAtelierApi(transport)
    const seen: unknown[] = []
    const unsubscribe = api.chats.onChanged((payload) => seen.push(payload))
    emit('chats.changed', { chats: [] })
    unsubscribe()
    emit('chats.changed', { chats: ['late'] })
    expect(seen).toEqual([{ chats: [] }])
  })
})
