import { Type } from '@sinclair/typebox'
import { LOCAL_USER } from '../src-main/app/create-atelier'
import { ephemeralLedger } from '../src-main/db/freshness-repository'
import { ToolRegistry } from '../src-main/tools/registry'
import type { RegisteredTool, ToolContext } from '../src-main/tools/types'
import { type Benchmark, measure, withBenchAtelier } from './measure'

const CALLS = 20_000
const ROUNDS = 7

const echo: RegisteredTool = {
  definition: {
    name: 'echo',
    description: 'Echoes its text.',
    parameters: Type.Object(
      {
        text: Type.String({ maxLength: 100 }),
        times: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
      },
      { additionalProperties: false },
    ),
  },
  settings: {
    title: 'Echo',
    description: 'Echoes its text.',
    category: 'system',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: {},
    parameterDescriptors: [],
  },
  execute: async (args) => (args as { text: string }).text,
}

const benchmark: Benchmark = async () => {
  const registry = new ToolRegistry()
  registry.register(echo)
  return withBenchAtelier(
    async (atelier) => {
      const scope = { user: LOCAL_USER, workingDirectory: null, mode: 'chat' as const, restrict: false }
      const context: ToolContext = {
        ...scope,
        chatId: undefined,
        signal: new AbortController().signal,
        onUpdate: () => {},
        settings: { enabled: true, parameters: {} },
        protectedPaths: [],
        ledger: ephemeralLedger(),
      }
      const args = { text: 'hello', times: null }
      const executed = await measure(CALLS, ROUNDS, () =>
        atelier.tools.executor.execute({ name: 'echo', arguments: args }, scope),
      )
      const direct = await measure(CALLS, ROUNDS, () => echo.execute({ text: 'hello' }, context))
      return [
        {
          name: 'one tool call',
          ours: { label: 'executeTool()', msPerOp: executed },
          reference: { label: 'execute() directly', msPerOp: direct },
          target: 'target ≤ 50',
        },
      ]
    },
    { registry },
  )
}

export default benchmark
