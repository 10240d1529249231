import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Atelier } from '../../../src-main/app/create-atelier'
import type { MethodName } from '../../../src-shared/contract'
import type { BrokerInfo } from '../../../src-shared/tool-services'
import {
  descendantProcesses,
  ROOT,
  toolSource,
  useCustomToolApps,
  writeFile,
} from '../../support/custom-tools'
import { EVERYTHING_SERVER } from '../../support/mcp-servers'
import { type NatsServer, useNatsServers } from '../../support/nats-server'

const FAKE_STDIO_SERVICE = join(ROOT, 'test', 'fixtures', 'services', 'fake-stdio-service.ts')

/** Long enough for anything a call set off in the background (a connect, a spawn) to show. */
const SETTLE_MS = 500

/** The broker's client connections, as the nats-server's own monitoring endpoint counts them. */
async function brokerConnections(nats: NatsServer): Promise<number> {
  const response = await fetch(`${nats.monitoring}/connz`)
  return ((await response.json()) as { num_connections: number }).num_connections
}

/** This test process's living descendants (the broker among them), by command line. */
const processes = () => descendantProcesses(() => true).sort()

async function call(atelier: Atelier, method: MethodName, request: unknown = {}): Promise<unknown> {
  const result = await atelier.dispatch(method, request)
  if (!result.ok) throw new Error(`${method}: ${result.error.message}`)
  return result.value
}

/**
 * A `list`/`get` of the contract starts, connects and spawns nothing; the verbs a person's action
 * calls (`services.connect`, `customTools.load`, `mcp.resources`) do. A real app with everything
 * that could be started configured: a broker (a real nats-server) with a NATS and a stdio tool
 * service, the person's own and a trusted project's custom tool folders, an approved MCP stdio server.
 */
describe('queries are queries', { timeout: 60_000 }, () => {
  const natsServers = useNatsServers()
  const freshApp = useCustomToolApps()

  it('services.list, tools.list, customTools.list and mcp.list start no process and open no broker connection; the explicit verbs do', async () => {
    const nats = await natsServers(['-m', '-1'])
    const { atelier, userTools, project } = freshApp()
    writeFile(join(userTools, 'mine.ts'), toolSource('my_tool'))
    writeFile(join(project, '.atelier', 'tools', 'theirs.ts'), toolSource('project_tool'))
    atelier.customTools.trust(project)
    await atelier.services.setBroker({ url: nats.url, auth: { kind: 'none' } })
    atelier.services.add([
      { id: 'jokes', 'request-queue': 'jokes.request', 'response-queue': 'jokes.response' },
      { type: 'tool-service', name: 'tell-joke', description: 'Tells a joke', service: 'jokes' },
      { id: 'echo', command: [process.execPath, '--import', 'tsx', FAKE_STDIO_SERVICE] },
      { type: 'tool-service', name: 'echo', description: 'Echoes', service: 'echo' },
    ])
    atelier.mcp.add(
      {
        name: 'everything',
        transport: 'stdio',
        command: process.execPath,
        args: [EVERYTHING_SERVER, 'stdio'],
      },
      { approve: true },
    )
    const before = processes()
    expect(await brokerConnections(nats)).toBe(0)

    const services = (await call(atelier, 'services.list')) as { id: string }[]
    expect(services.map((service) => service.id)).toEqual(['jokes', 'echo'])
    const { tools } = (await call(atelier, 'tools.list')) as { tools: { name: string }[] }
    expect(tools.map((tool) => tool.name)).not.toContain('my_tool')
    await call(atelier, 'customTools.list')
    await call(atelier, 'customTools.list', { folder: project })
    await call(atelier, 'mcp.list')
    await call(atelier, 'services.broker')
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))

    expect(processes()).toEqual(before)
    expect(await brokerConnections(nats)).toBe(0)

    // What a person's action calls does start and connect — so the counts above could have moved.
    expect(((await call(atelier, 'services.connect')) as BrokerInfo).status).toBe('connected')
    expect(await brokerConnections(nats)).toBe(1)
    await call(atelier, 'customTools.load', { folder: project })
    const hosts = processes().filter((args) => !before.includes(args))
    expect(hosts).toHaveLength(2)
    await call(atelier, 'mcp.resources')
    expect(processes().filter((args) => args.includes(EVERYTHING_SERVER))).toHaveLength(1)
  })
})
