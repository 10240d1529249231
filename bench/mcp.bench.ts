/**
 * MCP servers against the bare SDK client, both talking to the reference everything server over
 * stdio: a tool call through the executor (validation, settings, timeouts, result mapping) against
 * `client.callTool`, in turn round by round, and the warm projection a turn or the inspector makes (cached listing, wire
 * format) against one bare `tools/list`. Also how long turning a server off takes until its process
 * is gone, and the cold start the inspector pays so the next turn does not.
 */
import { execFileSync } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { LOCAL_USER } from '../src-main/app/create-atelier'
import { EVERYTHING_SERVER } from '../test/support/mcp-servers'
import { type Benchmark, measure, paired, sized, withBenchAtelier } from './measure'

const CALLS = sized(200, 5)
const LISTINGS = sized(20, 2)
const ROUNDS = 5
/** Far past the time a server takes to go: one still alive then was not stopped, and the bench throws. */
const GONE_BOUND_MS = 30_000
/** Names Atelier's server in the process list (Node's --title). */
const MARKER = `atelier-bench-mcp-${process.pid}`
const everything = {
  name: 'everything',
  transport: 'stdio' as const,
  command: process.execPath,
  args: [`--title=${MARKER}`, EVERYTHING_SERVER, 'stdio'],
}
const scope = { user: LOCAL_USER, workingDirectory: null, mode: 'chat' as const, restrict: false }

function pidOf(marker: string): number {
  const line = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .find((row) => row.includes(marker))
  return Number(line?.trim().split(/\s+/)[0])
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Once the process is gone; throws when it outlives GONE_BOUND_MS. */
async function gone(pid: number): Promise<void> {
  const deadline = performance.now() + GONE_BOUND_MS
  while (isAlive(pid)) {
    if (performance.now() > deadline) {
      throw new Error(
        `The MCP server (pid ${pid}) still runs ${GONE_BOUND_MS / 1000} s after it was turned off`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
}

const mcpBenchmark: Benchmark = async () => {
  const bare = new Client({ name: 'bench', version: '1' })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [EVERYTHING_SERVER, 'stdio'],
  })
  await bare.connect(transport)
  try {
    return await withBenchAtelier(
      async (atelier) => {
        atelier.mcp.add(everything, { approve: true })
        const chat = atelier.chats.create({})
        const capabilities = () => atelier.dispatch('chats.capabilities', { id: chat.id })

        const coldStart = performance.now()
        await capabilities()
        const coldMs = performance.now() - coldStart

        // In turn, round by round, so that a slow patch of a shared machine falls on both alike.
        const [ours, reference] = await paired(
          CALLS,
          ROUNDS,
          () =>
            atelier.tools.executor.execute(
              { name: 'everything__echo', arguments: { message: 'call' } },
              scope,
            ),
          () => bare.callTool({ name: 'echo', arguments: { message: 'call' } }),
        )
        const warm = await measure(LISTINGS, ROUNDS, capabilities)
        const listing = await measure(LISTINGS, ROUNDS, () => bare.listTools())

        const pid = pidOf(MARKER)
        const offStart = performance.now()
        await atelier.mcp.setEnabled('everything', false, { approve: false })
        await gone(pid)
        const offMs = performance.now() - offStart

        return [
          {
            name: 'MCP tool call',
            ours: { label: 'everything__echo through the executor', msPerOp: ours },
            reference: { label: 'client.callTool, bare SDK', msPerOp: reference },
          },
          {
            name: 'MCP warm projection',
            ours: { label: 'chats.capabilities, server connected', msPerOp: warm },
            reference: { label: 'one bare tools/list', msPerOp: listing },
            note: `cold (spawn + initialize + list), paid once by the inspector or the first turn: ${coldMs.toFixed(0)} ms`,
          },
          {
            name: 'MCP server off',
            ours: { label: 'setEnabled(false) → process gone', msPerOp: offMs },
            reference: { label: '(absolute)', msPerOp: offMs },
          },
        ]
      },
      { env: { OPENAI_API_KEY: 'bench' } },
    )
  } finally {
    await bare.close()
  }
}

export default mcpBenchmark
