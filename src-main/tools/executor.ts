/**
 * The tool call pipeline: every call, whatever its source, takes one path —
 * resolve → validate → describe → decide → run → shape — each stage in its own module under
 * `pipeline/`. What is common to every call happens here once; a tool's runner only does its job.
 */
import { randomUUID } from 'node:crypto'
import { ephemeralLedger, type FreshnessLedger } from '../core/freshness-ledger'
import type { ImageGenerator } from '../core/images'
import { withHost } from './define-tool'
import { FatalToolError } from './errors'
import { type CallGate, decide } from './pipeline/decide'
import { describeCall, previewCall } from './pipeline/describe'
import { type AfterToolHook, type BeforeToolHook, runHook, type ToolHookCall } from './pipeline/hooks'
import { resolveTool } from './pipeline/resolve'
import { runWithinBudget } from './pipeline/run'
import { failureOutput, shapeResult, toToolOutput } from './pipeline/shape'
import type { ToolCall, ToolCallScope, ToolExecutionResult } from './pipeline/types'
import { validateArguments } from './pipeline/validate'
import type { ToolRegistry } from './registry'
import { DEFAULT_MAX_RESULT_CHARS } from './result-limits'
import { clampIntegerSetting, TIMEOUT_SECONDS } from './settings-policy'
import type { ToolSettingsService } from './tool-settings-service'
import type { ToolCallRecord, ToolHost } from './types'

export type {
  AfterToolHook,
  BeforeToolHook,
  CallGate,
  ToolCall,
  ToolCallScope,
  ToolExecutionResult,
  ToolHookCall,
}
export { toToolOutput }

/** What tools need from the app: its own folder (never touched), the chats' ledgers, image making. */
export interface ExecutorServices {
  protectedPaths: string[]
  ledgers: { ledgerFor(chatId: string): FreshnessLedger }
  images?: ImageGenerator
}

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
    const name = call.name
    let maxChars = this.maxResultChars
    const parent = scope.signal
    const controller = new AbortController()
    const abortFromParent = () => controller.abort(parent?.reason)
    let timeoutSeconds: number | undefined
    try {
      const { entry, settings } = resolveTool(
        this.registry,
        this.settings,
        name,
        scope.user,
        scope.offered,
        scope.mode === 'agent' ? scope.workingDirectory : null,
      )
      const { tool } = entry
      maxChars = tool.maxResultChars ?? maxChars
      const args = validateArguments(tool, call.arguments)
      timeoutSeconds =
        tool.maxRuntimeSeconds?.(settings) ??
        clampIntegerSetting(settings.parameters.timeoutSeconds, TIMEOUT_SECONDS)

      if (parent?.aborted) abortFromParent()
      parent?.addEventListener('abort', abortFromParent, { once: true })
      const record: ToolCallRecord = {
        callId: call.id ?? randomUUID(),
        tool: name,
        args,
        chatId: scope.chatId ?? null,
        user: scope.user,
        workingDirectory: scope.workingDirectory,
        mode: scope.mode,
        restrict: scope.restrict,
        settings,
        deadline: Date.now() + timeoutSeconds * 1000,
      }
      const commit = { begun: false }
      const host: ToolHost = {
        signal: controller.signal,
        beginCommit: () => {
          commit.begun = true
        },
        onUpdate: scope.onUpdate ?? (() => {}),
        ledger: scope.chatId ? this.services.ledgers.ledgerFor(scope.chatId) : ephemeralLedger(),
        protectedPaths: this.services.protectedPaths,
        images: this.services.images,
        ...(scope.abortTurn && { abortTurn: scope.abortTurn }),
        ...(scope.confirmAction && {
          confirm: (action, signal) =>
            scope.confirmAction?.(action, { callId: record.callId, tool: name, args }, signal) ??
            Promise.resolve(false),
        }),
        ...(scope.elicit && {
          elicit: (question, signal) =>
            scope.elicit?.(question, { callId: record.callId, tool: name }, signal) ??
            Promise.resolve({ action: 'decline' as const }),
        }),
      }
      const context = withHost(record, host)
      // Describing resolves real paths (I/O the tool does again): only done for a reader of it.
      let described: ToolHookCall | undefined
      const hookCall = async () =>
        (described ??= {
          call,
          args,
          description: await describeCall(tool, args, context),
          context,
          preview: () => previewCall(tool, args, context),
        })
      if (this.beforeHooks.size > 0 || scope.gate)
        await decide(this.beforeHooks, scope.gate, await hookCall())

      const returned = await runWithinBudget(tool, record, host, controller, timeoutSeconds, commit)
      let result = shapeResult(toToolOutput(returned), performance.now() - started, maxChars)
      for (const hook of this.afterHooks) {
        const hooked = await hookCall()
        result = (await runHook(name, 'afterTool', () => hook(hooked, result))) ?? result
      }
      return result
    } catch (error) {
      if (FatalToolError.isInstance(error)) throw error
      const output = failureOutput(name, error, controller.signal, timeoutSeconds)
      return shapeResult(output, performance.now() - started, maxChars)
    } finally {
      parent?.removeEventListener('abort', abortFromParent)
    }
  }
}
