import { type Static, Type } from '@sinclair/typebox'
import { LOCAL_USER } from '../src-main/app/create-atelier'
import { ToolRegistry } from '../src-main/tools/registry'
import { type Benchmark, benchTool, measure, sized, withBenchAtelier } from './measure'

const CALLS = sized(20_000, 10)
const ROUNDS = 7

const Parameters = Type.Object(
  {
    text: Type.String({ maxLength: 100 }),
    times: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
  },
  { additionalProperties: false },
)

const execute = async (args: Static<typeof Parameters>) => args.text

const echo = benchTool({
  name: 'echo',
  description: 'Echoes its text.',
  parameters: Parameters,
  kind: 'read',
  execute,
})

const benchmark: Benchmark = async () => {
  const registry = new ToolRegistry()
  registry.register(echo)
  return withBenchAtelier(
    async (atelier) => {
      const scope = { user: LOCAL_USER, workingDirectory: null, mode: 'chat' as const, restrict: false }
      const args = { text: 'hello', times: null }
      const executed = await measure(CALLS, ROUNDS, () =>
        atelier.tools.executor.execute({ name: 'echo', arguments: args }, scope),
      )
      const direct = await measure(CALLS, ROUNDS, () => execute({ text: 'hello' }))
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
