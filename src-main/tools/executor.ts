/**
 * executeTool: the one place for what every tool call needs — lookup, the enabled check, settings,
 * argument validation, timeout and abort, hooks, result serialization and truncation. A tool's
 * `execute` only does its job.
 */
import type { ChatMode } from '../../src-shared/contract'
import { ephemeralLedger, type FreshnessRepository } from '../db/freshness-repository'
import type { ImageGenerator } from '../providers/image-generation'
import { validateToolArguments } from './arg-parsing'
import { FatalToolError, ToolArgumentError, ToolError, type ToolErrorType } from './errors'
import type { ToolRegistry } from './registry'
import { clampIntegerSetting, TIMEOUT_SECONDS } from './settings-policy'
import type { ToolSettingsService } from './tool-settings-service'
import type { RegisteredTool, ToolContext, ToolOutput } from './types'

/** Larger results are cut, with a notice, so one call cannot flood the model's context. */
export const DEFAULT_MAX_RESULT_CHARS = 100_000
/** How long past its budget a tool that times itself out gets before the executor steps in. */
const OWN_TIMEOUT_GRACE_SECONDS = 5

/** One call as a model made it. `arguments` may be the raw JSON text or already parsed. */
export interface ToolCall {
  id?: string
  name: string
  arguments: unknown
}

/** Where and for whom the call runs. */
export interface ToolCallScope {
  chatId?: string
  user: string
  workingDirectory: string | null
  mode: ChatMode
  restrict: boolean
  /** The user's stop button. */
  signal?: AbortSignal
  onUpdate?: (progress: unknown) => void
}

/** What the model receives (`content`, `isError`) and what only hooks and the UI see. */
export interface ToolExecutionResult {
  content: string
  isError: boolean
  errorType?: ToolErrorType
  data?: unknown
  truncated: boolean
  durationMs: number
}

export interface ToolHookCall {
  call: ToolCall
  args: unknown
  context: ToolContext
}

/** May block a call; the reason is what the model reads. */
export type BeforeToolHook = (
  call: ToolHookCall,
) => undefined | { block: string } | Promise<undefined | { block: string }>
/** May rewrite a result. */
export type AfterToolHook = (
  call: ToolHookCall,
  result: ToolExecutionResult,
) => undefined | ToolExecutionResult | Promise<undefined | ToolExecutionResult>

/** What tools need from the app: its own folder (never touched), the chats' ledgers, image making. */
export interface ExecutorServices {
  protectedPaths: string[]
  freshness: FreshnessRepository
  images?: ImageGenerator
}

class Timeout extends Error {}

export class ToolExecutor {
  private readonly beforeHooks = new Set<BeforeToolHook>()
  private readonly afterHooks = new Set<AfterToolHook>()

  constructor(
    private readonly registry: ToolRegistry,
    private readonly settings: ToolSettingsService,
    private readonly services: ExecutorServices,
    private readonly maxResultChars = DEFAULT_MAX_RESULT_CHARS,
  ) {}

  addBeforeToolHook(hook: BeforeToolHook): () => void {
    this.beforeHooks.add(hook)
    return () => this.beforeHooks.delete(hook)
  }

  addAfterToolHook(hook: AfterToolHook): () => void {
    this.afterHooks.add(hook)
    return () => this.afterHooks.delete(hook)
  }

  /** Runs one call. Every failure comes back as an error result, except FatalToolError, which is thrown. */
  async execute(call: ToolCall, scope: ToolCallScope): Promise<ToolExecutionResult> {
    const started = performance.now()
    const entry = this.registry.get(call.name)
    const maxChars = entry?.tool.maxResultChars ?? this.maxResultChars
    const finish = (output: ToolOutput, errorType?: ToolErrorType) =>
      this.finish(output, errorType, performance.now() - started, maxChars)

    if (!entry) {
      const names = this.registry.list().map((e) => e.tool.definition.name)
      return finish(
        {
          content: `Unknown tool "${call.name}". Available tools: ${names.join(', ') || 'none'}.`,
          isError: true,
        },
        'unknown_tool',
      )
    }
    const { tool } = entry
    const name = tool.definition.name
    const { settings } = this.settings.resolve(scope.user, entry)
    if (!settings.enabled) {
      return finish(
        {
          content: `The tool "${name}" is turned off in Atelier's settings; do not call it again. The user can turn it on in Settings → Tools.`,
          isError: true,
        },
        'not_enabled',
      )
    }

    let args: unknown
    try {
      args = validateToolArguments(name, tool.definition.parameters, call.arguments)
    } catch (error) {
      if (!ToolArgumentError.isInstance(error)) throw error
      return finish(invalidArguments(name, error.message), 'validation_failed')
    }

    const timeoutSeconds =
      tool.maxRuntimeSeconds?.(settings) ??
      clampIntegerSetting(settings.parameters.timeoutSeconds, TIMEOUT_SECONDS)
    const controller = new AbortController()
    const parent = scope.signal
    const abortFromParent = () => controller.abort(parent?.reason)
    if (parent?.aborted) abortFromParent()
    parent?.addEventListener('abort', abortFromParent, { once: true })
    let timer: NodeJS.Timeout | undefined

    const context: ToolContext = {
      chatId: scope.chatId,
      user: scope.user,
      workingDirectory: scope.workingDirectory,
      mode: scope.mode,
      restrict: scope.restrict,
      signal: controller.signal,
      onUpdate: scope.onUpdate ?? (() => {}),
      settings,
      protectedPaths: this.services.protectedPaths,
      ledger: scope.chatId ? this.services.freshness.ledgerFor(scope.chatId) : ephemeralLedger(),
      ...(this.services.images && { images: this.services.images }),
    }
    const hookCall: ToolHookCall = { call, args, context }

    try {
      for (const hook of this.beforeHooks) {
        const verdict = await this.hook(name, 'beforeTool', () => hook(hookCall))
        if (verdict && 'failed' in verdict) return finish(verdict.failed, 'execution_failed')
        if (verdict) {
          return finish(
            { content: `The call to ${name} was blocked: ${verdict.block}`, isError: true },
            'blocked',
          )
        }
      }
      // The budget starts with the tool itself, not with hooks that may wait for a person.
      const backstop = tool.managesOwnTimeout ? OWN_TIMEOUT_GRACE_SECONDS : 0
      timer = setTimeout(() => controller.abort(new Timeout()), (timeoutSeconds + backstop) * 1000)
      const { output, errorType } = await this.run(tool, args, context, timeoutSeconds)
      let result = finish(output, errorType)
      for (const hook of this.afterHooks) {
        const rewritten = await this.hook(name, 'afterTool', () => hook(hookCall, result))
        if (rewritten && 'failed' in rewritten) return finish(rewritten.failed, 'execution_failed')
        result = rewritten ?? result
      }
      return result
    } finally {
      clearTimeout(timer)
      parent?.removeEventListener('abort', abortFromParent)
    }
  }

  /** A hook's answer, or the failure of a hook that threw: a hook's bug must not escape as a rejection. */
  private async hook<T>(
    name: string,
    kind: 'beforeTool' | 'afterTool',
    run: () => T | Promise<T>,
  ): Promise<T | { failed: ToolOutput }> {
    try {
      return await run()
    } catch (error) {
      if (FatalToolError.isInstance(error)) throw error
      const message = error instanceof Error ? error.message : String(error)
      return { failed: { content: `The ${kind} hook for ${name} failed: ${message}`, isError: true } }
    }
  }

  /** Runs the tool within its budget; failures come back as outputs, except FatalToolError. */
  private async run(
    tool: RegisteredTool,
    args: unknown,
    context: ToolContext,
    timeoutSeconds: number,
  ): Promise<{ output: ToolOutput; errorType?: ToolErrorType }> {
    const name = tool.definition.name
    const { signal } = context
    // A tool that ignores its signal still cannot hold the turn past its budget. One that handles
    // its own stop (a shell reporting `aborted` with the output so far) is given a moment to answer.
    const answerWithin = tool.managesOwnTimeout ? OWN_TIMEOUT_GRACE_SECONDS * 1000 : 0
    let giveUp: NodeJS.Timeout | undefined
    const stopped = new Promise<never>((_, reject) => {
      const later = () => {
        giveUp = setTimeout(() => reject(signal.reason), answerWithin)
      }
      signal.addEventListener('abort', later, { once: true })
    })
    try {
      signal.throwIfAborted()
      const output = toToolOutput(await Promise.race([tool.execute(args, context), stopped]))
      return output.isError ? { output, errorType: output.errorType ?? 'execution_failed' } : { output }
    } catch (error) {
      if (FatalToolError.isInstance(error)) throw error
      if (signal.aborted && signal.reason instanceof Timeout) {
        const content = `${name} timed out after ${timeoutSeconds}s and was stopped.`
        return { output: { content, isError: true }, errorType: 'timeout' }
      }
      if (signal.aborted) {
        return {
          output: { content: `${name} was cancelled by the user.`, isError: true },
          errorType: 'aborted',
        }
      }
      if (ToolArgumentError.isInstance(error)) {
        return { output: invalidArguments(name, error.message), errorType: 'validation_failed' }
      }
      if (ToolError.isInstance(error))
        return { output: { content: error.message, isError: true }, errorType: error.type }
      const message = error instanceof Error ? error.message : String(error)
      return {
        output: { content: `${name} failed: ${message}`, isError: true },
        errorType: 'execution_failed',
      }
    } finally {
      clearTimeout(giveUp)
      stopped.catch(() => {})
    }
  }

  private finish(
    output: ToolOutput,
    errorType: ToolErrorType | undefined,
    durationMs: number,
    maxChars: number,
  ): ToolExecutionResult {
    const { content, truncated } = truncate(output.content, maxChars)
    return {
      content,
      isError: output.isError ?? false,
      ...(errorType && { errorType }),
      ...(output.data !== undefined && { data: output.data }),
      truncated,
      durationMs,
    }
  }
}

function invalidArguments(name: string, problem: string): ToolOutput {
  return {
    content: `Invalid arguments for ${name}: ${problem}. Fix the arguments and call ${name} again.`,
    isError: true,
  }
}

function isToolOutput(value: unknown): value is ToolOutput {
  if (typeof value !== 'object' || value === null || typeof (value as ToolOutput).content !== 'string')
    return false
  return Object.keys(value).every((key) => ['content', 'isError', 'errorType', 'data'].includes(key))
}

/** A string is the observation itself; a ToolOutput is taken as is; anything else is JSON. */
export function toToolOutput(value: unknown): ToolOutput {
  if (typeof value === 'string') return { content: value }
  if (isToolOutput(value)) return value
  if (value === undefined || value === null) return { content: '(no output)' }
  try {
    return { content: JSON.stringify(value, null, 2) ?? String(value) }
  } catch {
    return { content: String(value) }
  }
}

function truncate(content: string, max: number): { content: string; truncated: boolean } {
  if (content.length <= max) return { content, truncated: false }
  // Never split a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(content[max - 1] ?? '') ? max - 1 : max
  return {
    content: `${content.slice(0, end)}\n\n[Output truncated: showing ${end} of ${content.length} characters. Ask for less — a narrower range, pattern or path — to see the rest.]`,
    truncated: true,
  }
}
