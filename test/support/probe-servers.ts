/**
 * The elicitation probe server (test/fixtures/elicitation-mcp-server.ts) for a test file's tests:
 * each started one closed after its test, and data folders that have it added as `probe`.
 */
import { afterEach, expect } from 'vitest'
import { type Atelier, createAtelier } from '../../src-main/app/create-atelier'
import { type ElicitationServer, startElicitationServer } from '../fixtures/elicitation-mcp-server'
import { useTempDirs } from './temp-dir'

/** Adds the server to an Atelier as `probe`, as the settings do. */
async function add(atelier: Atelier, server: ElicitationServer): Promise<void> {
  const added = await atelier.dispatch('mcp.add', {
    name: 'probe',
    transport: 'http',
    url: server.url,
    headers: {},
  })
  expect(added.ok).toBe(true)
}

export function useProbeServers() {
  const tempDir = useTempDirs()
  const started: ElicitationServer[] = []
  afterEach(async () => {
    for (const server of started.splice(0)) await server.close()
  })
  return {
    async start(): Promise<ElicitationServer> {
      const server = await startElicitationServer()
      started.push(server)
      return server
    },
    add,
    /** A data folder with the server added, as `atelier mcp add` or the settings would leave it. */
    async dataDirWith(server: ElicitationServer): Promise<string> {
      const dataDir = tempDir()
      const app = createAtelier({ dataDir })
      await add(app, server)
      await app.close()
      return dataDir
    },
  }
}
