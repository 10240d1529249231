/**
 * What the person's hooks cost a tool call: the same call through the executor with one no-op
 * PreToolUse hook (`true`, run as argv with no shell), and with a hooks file whose only hook matches
 * another tool — each against the call with no hooks at all.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Static, Type } from '@sinclair/typebox'
import { LOCAL_USER } from '../src-main/app/create-atelier'
import { ToolRegistry } from '../src-main/tools/registry'
import type { HookTable } from '../src-shared/hooks'
import { type Benchmark, benchTool, measure, sized, withBenchAtelier } from './measure'

const SPAWNED_CALLS = sized(300, 3)
const MATCHED_CALLS = sized(5_000, 10)
const ROUNDS = 5

const Parameters = Type.Object({ text: Type.String({ maxLength: 100 }) }, { additionalProperties: false })
const execute = async (args: Static<typeof Parameters>) => args.text
const echo = benchTool({
  name: 'echo',
  description: 'Echoes its text.',
  parameters: Parameters,
  kind: 'read',
  execute,
})

/** A home folder whose `~/.atelier/hooks.json` holds `hooks`. */
function homeWith(hooks: HookTable): string {
  const home = mkdtempSync(join(tmpdir(), 'atelier-bench-home-'))
  mkdirSync(join(home, '.atelier'))
  writeFileSync(join(home, '.atelier', 'hooks.json'), JSON.stringify({ hooks }))
  return home
}

/** Milliseconds per call of `echo` through the executor, with the hooks of `home`. */
function perCall(home: string, calls: number): Promise<number> {
  const registry = new ToolRegistry()
  registry.register(echo)
  return withBenchAtelier(
    (atelier) => {
      const scope = { user: LOCAL_USER, workingDirectory: null, mode: 'chat' as const, restrict: false }
      return measure(calls, ROUNDS, () =>
        atelier.tools.executor.execute({ name: 'echo', arguments: { text: 'hi' } }, scope),
      )
    },
    { registry, home },
  )
}

const benchmark: Benchmark = async () => {
  const noop = { type: 'command' as const, command: 'true' }
  const homes = {
    none: homeWith({}),
    noop: homeWith({ PreToolUse: [{ matcher: 'echo', hooks: [noop] }] }),
    other: homeWith({ PreToolUse: [{ matcher: 'bash', hooks: [noop] }] }),
  }
  try {
    const bare = await perCall(homes.none, SPAWNED_CALLS)
    const hooked = await perCall(homes.noop, SPAWNED_CALLS)
    const bareMany = await perCall(homes.none, MATCHED_CALLS)
    const unmatched = await perCall(homes.other, MATCHED_CALLS)
    return [
      {
        name: 'a call with a no-op PreToolUse hook',
        ours: { label: 'one `true` hook', msPerOp: hooked },
        reference: { label: 'no hooks', msPerOp: bare },
        note: 'a process per call',
      },
      {
        name: "a call no hook's matcher matches",
        ours: { label: 'hooks for another tool', msPerOp: unmatched },
        reference: { label: 'no hooks', msPerOp: bareMany },
      },
    ]
  } finally {
    for (const home of Object.values(homes)) rmSync(home, { recursive: true, force: true })
  }
}

export default benchmark
