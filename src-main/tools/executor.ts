/**
 * The tool call pipeline: every call, whatever its source, takes one path —
 * resolve → folder → validate → describe → check → decide → run → shape — each stage in its own module under
 * `pipeline/`. What is common to every call happens here once; a tool's runner only does its job.
 *
 * A turn's scheduler drives the stages one by one (`prepare`, then a `PreparedCall`'s description
 * and checks, `beforeHooks`, its own decision, `run`), so a call has a state between them;
 * `execute` runs them all at once for a call nobody needs to watch (`atelier tool`, the playground).
 */
import { randomUUID } from 'node:crypto'
import type { ToolCallDescription, ToolDisplay, ToolKind, ToolSource } from '../../src-shared/tools'
import { ephemeralLedger, type FreshnessLedger } from '../core/freshness-ledger'
import type { ImageGenerator } from '../core/images'
import type { CodeIntelligence } from './code-intelligence'
import type { CommandJournal } from './command-journal'
import { withHost } from './define-tool'
import { FatalToolError, logFatal, ToolError } from './errors'
import { checkCall, describeCall, previewCall } from './pipeline/describe'
import { assertFolderPresent } from './pipeline/folder'
import {
  type AfterToolHook,
  type BeforeToolHook,
  type HookPermission,
  runHook,
  type ToolHookCall,
} from './pipeline/hooks'
import { resolveTool } from './pipeline/resolve'
import { type CommitState, runWithinBudget } from './pipeline/run'
import { failureOutput, shapeResult, toToolOutput } from './pipeline/shape'
import type { ToolCall, ToolCallScope, ToolExecutionResult } from './pipeline/types'
import { validateArguments } from './pipeline/validate'
import type { ToolRegistry } from './registry'
import { DEFAULT_MAX_RESULT_CHARS } from './result-limits'
import type { CommandSandbox } from './sandbox/command-sandbox'
import { clampIntegerSetting, TIMEOUT_SECONDS } from './settings-policy'
import type { ToolSettingsService } from './tool-settings-service'
import type { RegisteredTool, ToolCallRecord, ToolContext, ToolHost, ToolOutput } from './types'
import type { SearchEndpoints } from './web-search/search-engines'

export type {
  AfterToolHook,
  BeforeToolHook,
  HookPermission,
  ToolCall,
  ToolCallScope,
  ToolExecutionResult,
  ToolHookCall,
}
export { toToolOutput }

/**
 * What tools need from the app: its own folder (never touched), the chats' ledgers, image making,
 * where web_search's engines are, the sandbox, the language servers.
 */
export interface ExecutorServices {
  protectedPaths: string[]
  ledgers: { ledgerFor(chatId: string): FreshnessLedger }
  images?: ImageGenerator
  searchEndpoints?: SearchEndpoints
  sandbox?: CommandSandbox
  journal?: CommandJournal
  codeIntelligence?: CodeIntelligence
}

/**
 * A call that has been resolved and validated, ready for the stages that need no person (its
 * description, its checks) and then to run. Describing and checking resolve real paths and read
 * files, so each is done once, and only when asked for.
 */
export class PreparedCall {
  /** The record and its host as one: what describing, checking and hooks see. */
  readonly context: ToolContext
  private described?: Promise<ToolCallDescription>
  private hooked?: Promise<ToolHookCall>

  constructor(
    readonly call: ToolCall,
    readonly tool: RegisteredTool,
    readonly record: ToolCallRecord,
    readonly host: ToolHost,
    /** Aborts the call's signal: the person's stop, its timeout, a fatal failure beside it. */
    readonly controller: AbortController,
    readonly commit: CommitState,
    readonly timeoutSeconds: number,
    readonly maxResultChars: number,
    /** Where its tool came from: built in, an MCP server, a tool service, a custom module. */
    readonly source: ToolSource,
  ) {
    this.context = withHost(record, host)
  }

  /** What it will do, in words and real paths: what a policy matches and a person reads. */
  describe(): Promise<ToolCallDescription> {
    this.described ??= describeCall(this.tool, this.record.args, this.context)
    return this.described
  }

  /** What it would change (an edit's diff), for a person deciding; nothing is written. */
  preview(): Promise<ToolDisplay | undefined> {
    return previewCall(this.tool, this.record.args, this.context)
  }

  /** Rejects with the ToolError it would fail with anyway (a path outside the folder, a file not read). */
  check(): Promise<void> {
    return checkCall(this.tool, this.record.args, this.context)
  }

  /** The call as hooks and the approval policy see it. */
  hookCall(): Promise<ToolHookCall> {
    this.hooked ??= this.describe().then((description) => ({
      call: this.call,
      args: this.record.args,
      description,
      context: this.context,
      preview: () => this.preview(),
    }))
    return this.hooked
  }
}

/** Which calls a hook is for, known before the call is described: its tool, its kind, its chat. */
export type HookFilter = (call: { tool: string; kind: ToolKind; chatId: string | null }) => boolean

/** The hooks of a map that are for this call. */
function hooksFor<Hook>(hooks: Map<Hook, HookFilter | undefined>, prepared: PreparedCall): Hook[] {
  const call = { tool: prepared.record.tool, kind: prepared.tool.kind, chatId: prepared.record.chatId }
  return [...hooks].flatMap(([hook, when]) => (!when || when(call) ? [hook] : []))
}

export class ToolExecutor {
  private readonly beforeHooks = new Map<BeforeToolHook, HookFilter | undefined>()
  private readonly afterHooks = new Map<AfterToolHook, HookFilter | undefined>()

  constructor(
    private readonly registry: ToolRegistry,
    private readonly settings: ToolSettingsService,
    private readonly services: ExecutorServices,
    private readonly maxResultChars = DEFAULT_MAX_RESULT_CHARS,
  ) {}

  /** `when`: the calls it is for; the others do not pay for describing themselves to it. */
  addBeforeToolHook(hook: BeforeToolHook, when?: HookFilter): () => void {
    this.beforeHooks.set(hook, when)
    return () => this.beforeHooks.delete(hook)
  }

  /** `when`: as for addBeforeToolHook. */
  addAfterToolHook(hook: AfterToolHook, when?: HookFilter): () => void {
    this.afterHooks.set(hook, when)
    return () => this.afterHooks.delete(hook)
  }

  /**
   * Runs one call through every stage; nobody is asked anything. Every failure comes back as an
   * error result, except FatalToolError, which is thrown.
   */
  async execute(call: ToolCall, scope: ToolCallScope): Promise<ToolExecutionResult> {
    try {
      let prepared: PreparedCall
      try {
        prepared = this.prepare(call, scope)
        if (this.beforeHooks.size > 0) await this.runBeforeHooks(prepared)
      } catch (error) {
        return this.failed(call.name, error, scope.signal)
      }
      return await this.run(prepared, scope.signal)
    } catch (error) {
      // Only a fatal failure gets here; a turn's scheduler logs its own.
      if (FatalToolError.isInstance(error)) logFatal(call.name, error)
      throw error
    }
  }

  /**
   * Stages 1 and 2: the call names a tool this turn may use, and its arguments fit the tool's
   * schema. Throws the ToolError the model reads otherwise.
   */
  prepare(call: ToolCall, scope: ToolCallScope): PreparedCall {
    const folder = scope.mode === 'agent' ? scope.workingDirectory : null
    const { entry, settings } = resolveTool(
      this.registry,
      this.settings,
      call.name,
      scope.user,
      scope.offered,
      folder,
    )
    assertFolderPresent(folder)
    const { tool } = entry
    const args = validateArguments(tool, call.arguments)
    const timeoutSeconds =
      tool.maxRuntimeSeconds?.(settings) ??
      clampIntegerSetting(settings.parameters.timeoutSeconds, TIMEOUT_SECONDS)
    const controller = new AbortController()
    const commit: CommitState = { begun: false }
    const record: ToolCallRecord = {
      callId: call.id ?? randomUUID(),
      tool: call.name,
      args,
      chatId: scope.chatId ?? null,
      user: scope.user,
      workingDirectory: scope.workingDirectory,
      mode: scope.mode,
      restrict: scope.restrict,
      settings,
      // Set when the call starts to run (see runWithinBudget): a wait for a person is not its budget.
      deadline: 0,
      ...(scope.model && { model: scope.model }),
    }
    const host: ToolHost = {
      signal: controller.signal,
      beginCommit: () => {
        commit.begun = true
      },
      onUpdate: scope.onUpdate ?? (() => {}),
      ledger: scope.chatId ? this.services.ledgers.ledgerFor(scope.chatId) : ephemeralLedger(),
      protectedPaths: this.services.protectedPaths,
      images: this.services.images,
      ...(this.services.searchEndpoints && { searchEndpoints: this.services.searchEndpoints }),
      ...(!scope.unsandboxed && { sandbox: this.services.sandbox }),
      ...(this.services.journal && { journal: this.services.journal }),
      ...(this.services.codeIntelligence && { codeIntelligence: this.services.codeIntelligence }),
      ...(scope.abortTurn && { abortTurn: scope.abortTurn }),
      ...(scope.ask && { ask: scope.ask }),
      ...(scope.switchApprovalMode && { switchApprovalMode: scope.switchApprovalMode }),
      ...(scope.subagents && { subagents: scope.subagents }),
      ...(scope.sample && { sample: scope.sample }),
    }
    const maxChars = tool.maxResultChars ?? this.maxResultChars
    return new PreparedCall(
      call,
      tool,
      record,
      host,
      controller,
      commit,
      timeoutSeconds,
      maxChars,
      entry.source,
    )
  }

  /**
   * Stage 4's first half: the before-tool hooks, any of which may block the call (ToolError
   * `blocked`). Resolves with what they said of asking the person, an `ask` over an `allow`, for
   * the approval gate to weigh.
   */
  async runBeforeHooks(prepared: PreparedCall): Promise<HookPermission | undefined> {
    const hooks = hooksFor(this.beforeHooks, prepared)
    if (hooks.length === 0) return undefined
    const call = await prepared.hookCall()
    let permission: HookPermission | undefined
    for (const hook of hooks) {
      const verdict = await runHook(prepared.record.tool, 'beforeTool', () => hook(call))
      if (verdict && 'block' in verdict) {
        throw new ToolError('blocked', `The call to ${prepared.record.tool} was blocked: ${verdict.block}`)
      }
      if (verdict && permission?.permission !== 'ask') permission = verdict
    }
    return permission
  }

  /**
   * Stages 5 and 6: the call runs within its budget — the deadline starts now, after any wait for
   * a person — and whatever it returned or threw becomes the typed result, after-tool hooks last.
   * `signal` is the person's stop. Only FatalToolError escapes.
   */
  async run(prepared: PreparedCall, signal?: AbortSignal): Promise<ToolExecutionResult> {
    const started = performance.now()
    const { controller, record, tool, host } = prepared
    // Linked only now: the wait for a person before this is the scheduler's to stop.
    const abortFromParent = () => controller.abort(signal?.reason)
    if (signal?.aborted) abortFromParent()
    signal?.addEventListener('abort', abortFromParent, { once: true })
    try {
      // Again now: a wait for a person since `prepare` may have been long enough for it to go.
      assertFolderPresent(record.mode === 'agent' ? record.workingDirectory : null)
      const returned = await runWithinBudget(
        tool,
        record,
        host,
        controller,
        prepared.timeoutSeconds,
        prepared.commit,
      )
      const output = toToolOutput(returned, record.tool)
      if (output.isError && output.errorType === 'fatal') throw fatalOf(output)
      const result = shapeResult(output, performance.now() - started, prepared.maxResultChars)
      return await this.runAfterHooks(prepared, result)
    } catch (error) {
      if (FatalToolError.isInstance(error)) throw error
      const output = failureOutput(record.tool, error, controller.signal, prepared.timeoutSeconds)
      const result = shapeResult(output, performance.now() - started, prepared.maxResultChars)
      // A call that ran and failed is shown to the after-tool hooks too (a log, a PostToolUse hook).
      return signal?.aborted ? result : await this.runAfterHooks(prepared, result)
    } finally {
      signal?.removeEventListener('abort', abortFromParent)
    }
  }

  /** Stage 6's end: each after-tool hook may rewrite the result; one that fails makes it an error result. */
  private async runAfterHooks(
    prepared: PreparedCall,
    ran: ToolExecutionResult,
  ): Promise<ToolExecutionResult> {
    const hooks = hooksFor(this.afterHooks, prepared)
    if (hooks.length === 0) return ran
    const { record } = prepared
    let result = ran
    try {
      const call = await prepared.hookCall()
      for (const hook of hooks) {
        result = (await runHook(record.tool, 'afterTool', () => hook(call, result))) ?? result
      }
      return result
    } catch (error) {
      if (FatalToolError.isInstance(error)) throw error
      const output = failureOutput(record.tool, error, prepared.controller.signal)
      return shapeResult(output, ran.durationMs, prepared.maxResultChars)
    }
  }

  /** The result of a call that failed before it ran: refused, invalid, blocked, denied, stopped. */
  failed(name: string, error: unknown, stopped?: AbortSignal): ToolExecutionResult {
    if (FatalToolError.isInstance(error)) throw error
    return shapeResult(failureOutput(name, error, stopped), 0, this.maxResultChars)
  }
}

/**
 * The fatal envelope a runner in another process returns (a tool service's `fatal` error): its
 * content is the message for the person, its `data.cause` what the log keeps.
 */
function fatalOf(output: ToolOutput): FatalToolError {
  const cause = (output.data as { cause?: unknown } | undefined)?.cause
  return new FatalToolError(output.content, cause === undefined ? undefined : { cause })
}
