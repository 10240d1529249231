/**
 * Custom tools (issue 16): what the host process costs. Each tool module runs in a host process of
 * its tool folder, so a call crosses a process boundary twice; the references do the same work in
 * Atelier's own process:
 * - a call round trip through the executor: a custom tool returning its argument, against a tool
 *   registered in process doing the same (both through the full executor);
 * - `api.exec('true')` from a custom tool (the program runs in the app, the host waits for it),
 *   against the same tool shape running `true` in process with Atelier's command runner;
 * - loading a folder of one module (a host started, jiti compiling the TypeScript, the factory
 *   run), against starting a bare Node child that answers one message.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { LOCAL_USER } from '../src-main/app/create-atelier'
import { EXEC_MAX_OUTPUT_BYTES } from '../src-main/tools/custom/tool-host-process'
import type { ToolCallScope } from '../src-main/tools/executor'
import { runShellCommand } from '../src-main/tools/processes'
import { type Benchmark, benchTool, paired, sized, withBenchAtelier } from './measure'

const CALLS = sized(500, 5)
const EXEC_CALLS = sized(100, 2)
const LOADS = sized(10, 1)
/** Calls of each side before any is timed: V8 optimises both sides' code over the first ones. */
const WARM_UP = sized(2000, 0)
const ROUNDS = 5

const MODULE = `
export default (api) => [
  {
    name: 'echo_custom',
    label: 'Echo',
    description: 'Returns its text.',
    parameters: api.typebox.Type.Object({ text: api.typebox.Type.String() }),
    execute: async (_id, params) => ({ content: [{ type: 'text', text: params.text }] }),
  },
  {
    name: 'true_custom',
    label: 'True',
    description: 'Runs true.',
    parameters: api.typebox.Type.Object({}),
    execute: async (_id, _params, _update, _ctx, signal) => {
      const result = await api.exec('true', [], { signal })
      return { content: [{ type: 'text', text: String(result.code) }] }
    },
  },
]
`

const inProcessTool = (name: string, execute: () => Promise<string>) =>
  benchTool({
    name,
    description: 'The in-process reference.',
    parameters: Type.Object({ text: Type.Optional(Type.String()) }),
    execute,
  })

const scope: ToolCallScope = { user: LOCAL_USER, workingDirectory: null, mode: 'chat', restrict: false }

/** A Node child that answers one message: the floor under any host process start. */
function bareChild(): Promise<void> {
  return new Promise((resolve, reject) => {
    const answer = "process.on('message', () => { process.send('ok'); process.exit(0) })"
    const child = spawn(process.execPath, ['-e', answer], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] })
    child.once('message', () => resolve())
    child.once('error', reject)
    child.send('hello')
  })
}

const benchmark: Benchmark = async () => {
  const home = mkdtempSync(join(tmpdir(), 'atelier-bench-home-'))
  const folder = join(home, '.atelier', 'tools')
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, 'bench.ts'), MODULE)
  try {
    return await withBenchAtelier(
      async (atelier) => {
        const { executor, registry } = atelier.tools
        registry.register(inProcessTool('echo_inline', async () => 'hello'))
        registry.register(
          inProcessTool('true_inline', async () => {
            const result = await runShellCommand({
              file: 'true',
              args: [],
              cwd: home,
              env: process.env,
              timeoutMs: 10_000,
              maxOutputBytes: EXEC_MAX_OUTPUT_BYTES,
              signal: new AbortController().signal,
            })
            return String(result.exitCode)
          }),
        )
        await atelier.customTools.prepare(null)
        const call = async (name: string, args: unknown) => {
          const result = await executor.execute({ name, arguments: args }, scope)
          if (result.isError) throw new Error(`${name} failed: ${result.content}`)
        }
        for (let i = 0; i < WARM_UP; i++) await call('echo_custom', { text: 'hello' })
        for (let i = 0; i < WARM_UP; i++) await call('echo_inline', { text: 'hello' })
        const [callOurs, callReference] = await paired(
          CALLS,
          ROUNDS,
          () => call('echo_custom', { text: 'hello' }),
          () => call('echo_inline', { text: 'hello' }),
        )
        const [execOurs, execReference] = await paired(
          EXEC_CALLS,
          ROUNDS,
          () => call('true_custom', {}),
          () => call('true_inline', {}),
        )
        const [loadOurs, loadReference] = await paired(
          LOADS,
          ROUNDS,
          async () => {
            await atelier.customTools.reload(null)
            if (!registry.get('echo_custom')) throw new Error('The folder did not load.')
          },
          bareChild,
        )
        return [
          {
            name: 'custom tool call round trip',
            ours: { label: 'custom tool (host process)', msPerOp: callOurs },
            reference: { label: 'in-process tool', msPerOp: callReference },
          },
          {
            name: 'custom tool api.exec("true")',
            ours: { label: 'custom tool + api.exec', msPerOp: execOurs },
            reference: { label: 'in-process runner', msPerOp: execReference },
          },
          {
            name: 'custom tool folder load (1 .ts module)',
            ours: { label: 'host start + jiti + factory', msPerOp: loadOurs },
            reference: { label: 'bare node child', msPerOp: loadReference },
            note: 'the host runs through tsx here (from source); the app runs the built host',
          },
        ]
      },
      { home },
    )
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

export default benchmark
