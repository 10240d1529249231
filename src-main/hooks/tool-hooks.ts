/**
 * The person's PreToolUse and PostToolUse hooks as stages of every tool call: before it (they may
 * block it, ask the person, or spare the mode's question) and after it, failed calls included (they
 * may add what the model reads). A PostToolUse hook that rewrites a file the call edited (a
 * formatter) leaves the chat's freshness ledger holding the file as it is now, so the next edit is
 * not refused as made on a stale read.
 */
import { readFile } from 'node:fs/promises'
import type { AfterToolHook, BeforeToolHook, ToolHookCall } from '../tools/executor'
import { sha256 } from '../tools/files'
import type { HookOccasion, HookService } from './hook-service'

/**
 * The call's arguments as a hook reads them: Atelier's own, and for a file tool also Claude Code's
 * `file_path` (the real, absolute path), so its hooks' `jq -r .tool_input.file_path` works here.
 */
function toolInputOf({ args, description }: ToolHookCall): unknown {
  const [location] = description.locations
  const named =
    typeof args === 'object' && args !== null && typeof (args as { path?: unknown }).path === 'string'
  return named && location && !('file_path' in args) ? { ...args, file_path: location } : args
}

/** The occasion of a tool event: where the call runs and what it was asked to do. */
function occasionOf(
  event: 'PreToolUse' | 'PostToolUse',
  call: ToolHookCall,
  input: Record<string, unknown> = {},
): HookOccasion {
  const { context } = call
  return {
    event,
    folder: context.mode === 'agent' ? context.workingDirectory : null,
    ...(context.chatId && { chatId: context.chatId }),
    callId: context.callId,
    matchOn: context.tool,
    input: { tool_name: context.tool, tool_input: toolInputOf(call), tool_use_id: context.callId, ...input },
    signal: context.signal,
  }
}

export function preToolUseHook(hooks: HookService): BeforeToolHook {
  return async (call) => {
    const outcome = await hooks.run(occasionOf('PreToolUse', call))
    const reason = outcome.reason ?? ''
    switch (outcome.decision) {
      case 'block':
      case 'stop':
        return { block: reason }
      case 'ask':
      case 'allow':
        return { permission: outcome.decision, reason }
      default:
        return undefined
    }
  }
}

export function postToolUseHook(hooks: HookService): AfterToolHook {
  return async (call, result) => {
    const { context, description } = call
    const folder = context.mode === 'agent' ? context.workingDirectory : null
    if (!hooks.has('PostToolUse', folder)) return undefined
    const edited = description.kind === 'edit' && !result.isError ? description.locations : []
    const before = await Promise.all(edited.map((path) => context.ledger.get(path)))
    const { errorType, content, isError } = result
    const response = { content, isError, ...(errorType && { errorType }) }
    const outcome = await hooks.run(occasionOf('PostToolUse', call, { tool_response: response }))
    const notes: string[] = []
    for (const [index, path] of edited.entries()) {
      const now = await readFile(path).then(sha256, () => undefined)
      const recorded = before[index]
      if (recorded === undefined || now === undefined || now === recorded) continue
      await context.ledger.record(path, now)
      notes.push(
        `A hook changed ${path} after this edit (a formatter): read it again before quoting its text.`,
      )
    }
    if (outcome.decision === 'block') notes.push(`A PostToolUse hook says: ${outcome.reason}`)
    if (outcome.context) notes.push(outcome.context)
    if (notes.length === 0) return undefined
    return { ...result, content: [result.content, ...notes].join('\n\n') }
  }
}
