import type { TSchema } from '@sinclair/typebox'
import type { RegisteredTool, ToolCallRecord, ToolContext, ToolHost, ToolRunner, ToolSpec } from './types'

/**
 * A tool written in this process: its TypeBox schema types the arguments `execute` and `describe`
 * receive, and it runs in process. `registerTool(defineTool({...}))` is all a built-in needs.
 */
export function defineTool<Parameters extends TSchema>(spec: ToolSpec<Parameters>): RegisteredTool {
  const { name, description, parameters, describe, preview, check, execute, ...rest } = spec
  return {
    ...rest,
    definition: { name, description, parameters },
    // The executor has validated the arguments against `parameters`: they are that type now.
    ...(describe && { describe: async (args, context) => describe(args as never, context) }),
    ...(preview && { preview: (args, context) => preview(args as never, context) }),
    ...(check && { check: (args, context) => check(args as never, context) }),
    runner: inProcess((args, context) => execute(args as never, context)),
  }
}

/** Runs a function of this process, given the record and its host as one context. */
export function inProcess(execute: (args: unknown, context: ToolContext) => Promise<unknown>): ToolRunner {
  return { run: (call, host) => execute(call.args, withHost(call, host)) }
}

/**
 * The record and its host as one context. Written out field by field: every call passes here, and
 * spreading two objects into one costs more than the rest of the executor's work.
 */
export function withHost(call: ToolCallRecord, host: ToolHost): ToolContext {
  return {
    callId: call.callId,
    tool: call.tool,
    args: call.args,
    chatId: call.chatId,
    user: call.user,
    workingDirectory: call.workingDirectory,
    mode: call.mode,
    restrict: call.restrict,
    settings: call.settings,
    deadline: call.deadline,
    signal: host.signal,
    onUpdate: host.onUpdate,
    ledger: host.ledger,
    beginCommit: host.beginCommit,
    protectedPaths: host.protectedPaths,
    images: host.images,
    searchEndpoints: host.searchEndpoints,
    sandbox: host.sandbox,
    journal: host.journal,
    codeIntelligence: host.codeIntelligence,
    ask: host.ask,
    switchApprovalMode: host.switchApprovalMode,
    subagents: host.subagents,
    sample: host.sample,
  }
}
