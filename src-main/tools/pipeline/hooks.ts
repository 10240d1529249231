/** The hooks around a call: before it runs (may block it) and after (may rewrite its result). */
import { errorMessage } from '../../../src-shared/errors'
import type { ToolCallDescription, ToolDisplay } from '../../../src-shared/tools'
import { FatalToolError, ToolError } from '../errors'
import type { ToolContext } from '../types'
import type { ToolCall, ToolExecutionResult } from './types'

export interface ToolHookCall {
  call: ToolCall
  /** The validated arguments. */
  args: unknown
  description: ToolCallDescription
  context: ToolContext
  /** What the call would change (an edit's diff), made on demand; nothing is written. */
  preview(): Promise<ToolDisplay | undefined>
}

/**
 * What a before-tool hook may say of a call besides blocking it: that it may run without asking the
 * person, or that the person must be asked. The approval gate weighs it (see approvals/policy.ts):
 * an `allow` never outweighs a deny rule, a protected path or the sandbox.
 */
export interface HookPermission {
  permission: 'allow' | 'ask'
  reason: string
}

/** May block a call, with the reason the model reads; may take its time (a person deciding). */
export type BeforeToolHook = (
  call: ToolHookCall,
) => undefined | { block: string } | HookPermission | Promise<undefined | { block: string } | HookPermission>
/** May rewrite a result. */
export type AfterToolHook = (
  call: ToolHookCall,
  result: ToolExecutionResult,
) => undefined | ToolExecutionResult | Promise<undefined | ToolExecutionResult>

/** A hook's answer; a hook that throws fails the call, since a hook's bug must not escape as a rejection. */
export async function runHook<T>(
  name: string,
  kind: 'beforeTool' | 'afterTool',
  hook: () => T | Promise<T>,
): Promise<T> {
  try {
    return await hook()
  } catch (error) {
    if (FatalToolError.isInstance(error)) throw error
    const message = errorMessage(error)
    throw new ToolError('execution_failed', `The ${kind} hook for ${name} failed: ${message}`)
  }
}
