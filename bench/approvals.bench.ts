/**
 * What approvals add to a call: the policy judging it (a path rule; a shell command parsed into its
 * sub-commands), and a whole card round trip — asked, answered through the contract, run — against
 * the same call with no gate.
 */
import { realpathSync } from 'node:fs'
import { Type } from '@sinclair/typebox'
import { LOCAL_USER } from '../src-main/app/create-atelier'
import type { ToolCallScope } from '../src-main/tools/executor'
import { ToolRegistry } from '../src-main/tools/registry'
import type { AskApproval } from '../src-main/tools/scheduler/scheduler'
import type { ApprovalMode } from '../src-shared/approvals'
import { type Benchmark, benchTool, measure, sized, withBenchAtelier } from './measure'

const CALLS = sized(2_000, 10)
const ROUNDS = 5

const Parameters = Type.Object({ text: Type.String() }, { additionalProperties: false })

const benchmark: Benchmark = async () => {
  const folder = realpathSync(process.cwd())
  const registry = new ToolRegistry()
  registry.register(
    benchTool({
      name: 'touch',
      description: 'Pretends to edit a file.',
      parameters: Parameters,
      kind: 'edit',
      describe: (args) => ({ summary: args.text, locations: [`${folder}/src/${args.text}`] }),
      execute: async (args) => args.text,
    }),
  )
  registry.register(
    benchTool({
      name: 'sh',
      description: 'Pretends to run a command.',
      parameters: Parameters,
      kind: 'execute',
      describe: (args) => ({
        summary: args.text,
        locations: [folder],
        command: { text: args.text, cwd: folder, syntax: 'posix' as const },
      }),
      execute: async (args) => args.text,
    }),
  )
  return withBenchAtelier(
    async (atelier) => {
      const chat = atelier.chats.create({ mode: 'agent', workingDir: folder })
      const base: ToolCallScope = {
        chatId: chat.id,
        user: LOCAL_USER,
        workingDirectory: folder,
        mode: 'agent',
        restrict: true,
      }
      const { executor } = atelier.tools
      const stop = new AbortController().signal
      // The person, answering each card through the contract as the app does.
      const ask: AskApproval = async (request) => {
        const answered = atelier.questions.ask(request, stop)
        const answer = { chatId: chat.id, questionId: request.id, answer: { decision: 'allow-once' } }
        queueMicrotask(() => void atelier.dispatch('calls.answer', answer))
        return { answer: await answered, waitedMs: 0, asked: true }
      }
      /** A call as a turn makes it: prepared, judged by the gate (asking when it must), run. */
      const gated = (mode: ApprovalMode, name: string, text: string) => {
        const gate = atelier.approvals.gateFor({ chatId: chat.id, folder, mode })
        return async () => {
          const prepared = executor.prepare({ name, arguments: { text } }, base)
          const { refusal } = await gate(await prepared.hookCall(), ask)
          if (refusal) throw new Error(refusal)
          return executor.run(prepared)
        }
      }
      const run = (name: string, text: string) => () => executor.execute({ name, arguments: { text } }, base)

      atelier.approvals.add({ rule: 'touch(src/**)', action: 'allow', scope: 'global' })
      atelier.approvals.add({ rule: 'sh(git status*)', action: 'allow', scope: 'global' })
      atelier.approvals.add({ rule: 'sh(npm test *)', action: 'allow', scope: 'global' })
      const command = 'git status --short && npm test -- --run | tail -n 5'

      const ungated = await measure(CALLS, ROUNDS, run('touch', 'a.ts'))
      const ruled = await measure(CALLS, ROUNDS, gated('ask', 'touch', 'a.ts'))
      const shellUngated = await measure(CALLS, ROUNDS, run('sh', command))
      const shellRuled = await measure(CALLS, ROUNDS, gated('ask', 'sh', command))
      const asked = await measure(CALLS, ROUNDS, gated('ask', 'touch', 'other/a.ts'))
      const untouched = await measure(CALLS, ROUNDS, run('touch', 'other/a.ts'))
      return [
        {
          name: 'edit allowed by a rule',
          ours: { label: 'policy + rule', msPerOp: ruled },
          reference: { label: 'no approvals', msPerOp: ungated },
        },
        {
          name: 'shell command of 3 sub-commands',
          ours: { label: 'parsed + 3 rules', msPerOp: shellRuled },
          reference: { label: 'no approvals', msPerOp: shellUngated },
        },
        {
          name: 'approval card round trip',
          ours: { label: 'ask → answer → run', msPerOp: asked },
          reference: { label: 'no approvals', msPerOp: untouched },
          note: 'answered through calls.answer as the app does',
        },
      ]
    },
    { registry },
  )
}

export default benchmark
