/**
 * A chat in Chromium whose chat has the elicitation probe server (test/fixtures/elicitation-mcp-server.ts)
 * added as `probe`, in full auto, the fake provider scripted with what the test gives; each server
 * started is closed after its test.
 */
import { afterEach, expect } from 'vitest'
import { type ElicitationServer, startElicitationServer } from '../fixtures/elicitation-mcp-server'
import type { ScriptedResponse } from '../support/fake-provider'
import { useChatApp } from './support'

export function useProbeChat() {
  const { open } = useChatApp()
  const servers: ElicitationServer[] = []
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close()
  })
  return async (colorScheme: 'light' | 'dark', ...script: ScriptedResponse[]) => {
    const server = await startElicitationServer()
    servers.push(server)
    const opened = await open({ approvalMode: 'full-auto', colorScheme })
    const added = await opened.app.atelier.dispatch('mcp.add', {
      name: 'probe',
      transport: 'http',
      url: server.url,
      headers: {},
    })
    expect(added.ok).toBe(true)
    opened.fake.enqueue(...script)
    return { ...opened, server }
  }
}
