import type { TSchema } from '@sinclair/typebox'
import type { RegisteredTool, ToolContext, ToolRunner, ToolSpec } from './types'

/**
 * A tool written in this process: its TypeBox schema types the arguments `execute` and `describe`
 * receive, and it runs in process. `registerTool(defineTool({...}))` is all a built-in needs.
 */
export function defineTool<Parameters extends TSchema>(spec: ToolSpec<Parameters>): RegisteredTool {
  const { name, description, parameters, describe, execute, ...rest } = spec
  return {
    ...rest,
    definition: { name, description, parameters },
    // The executor has validated the arguments against `parameters`: they are that type now.
    ...(describe && { describe: async (args, context) => describe(args as never, context) }),
    runner: inProcess((args, context) => execute(args as never, context)),
  }
}

/** Runs a function of this process, given the record and its host as one context. */
export function inProcess(execute: (args: unknown, context: ToolContext) => Promise<unknown>): ToolRunner {
  return { run: (call, host) => execute(call.args, { ...call, ...host }) }
}
