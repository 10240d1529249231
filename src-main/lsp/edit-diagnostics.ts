/**
 * Diagnostics after edits: when write_file or edit_file changes a file a language server serves,
 * the result the model reads ends with the errors the edit brought — those not there before it —
 * so it learns what it broke before it moves on. The file's diagnostics before the edit are asked
 * for when the call is about to be decided (a before-tool hook that blocks nothing), those after it
 * once it has run (an after-tool hook), within a wait budget; past the budget the result says they
 * are pending, and they come with the chat's next result.
 */
import { relative } from 'node:path'
import type { Diagnostic } from 'vscode-languageserver-protocol/node'
import type { CodeIntelligenceSettings, FileDiagnostic } from '../../src-shared/code-intelligence'
import { errorMessage } from '../../src-shared/errors'
import type {
  AfterToolHook,
  BeforeToolHook,
  HookFilter,
  ToolExecutionResult,
  ToolHookCall,
} from '../tools/executor'
import { isInside } from '../tools/paths'
import type { LanguageServerService } from './language-servers'
import { toFileDiagnostic } from './lsp-results'

/** The tools whose results report the diagnostics they brought. */
const EDITING_TOOLS = new Set(['write_file', 'edit_file'])
/** The most diagnostics one result lists; the rest are counted. */
export const MAX_REPORTED = 20

/** One line a diagnostic: `path:line:col severity message (source)`. */
export function formatDiagnostic(diagnostic: FileDiagnostic, folder: string | null): string {
  const path =
    folder && isInside(folder, diagnostic.path) ? relative(folder, diagnostic.path) : diagnostic.path
  const source = diagnostic.source ? ` (${diagnostic.source})` : ''
  const message = diagnostic.message.replace(/\s*\n\s*/g, ' ')
  return `${path}:${diagnostic.line}:${diagnostic.column} ${diagnostic.severity} ${message}${source}`
}

/** At most MAX_REPORTED lines, then how many more there are. */
export function formatDiagnostics(diagnostics: readonly FileDiagnostic[], folder: string | null): string {
  const lines = diagnostics.slice(0, MAX_REPORTED).map((diagnostic) => formatDiagnostic(diagnostic, folder))
  const more = diagnostics.length - MAX_REPORTED
  if (more > 0) lines.push(`… and ${more} more`)
  return lines.join('\n')
}

/** What an edit brought: the diagnostics after it that are not matched by one before it (same severity, code and message). */
export function newDiagnostics(before: readonly Diagnostic[], after: readonly Diagnostic[]): Diagnostic[] {
  const key = (diagnostic: Diagnostic) =>
    `${diagnostic.severity ?? 1}\0${diagnostic.code ?? ''}\0${diagnostic.message}`
  // Matched by what they say, not where: an edit moves the lines below it.
  const remaining = new Map<string, number>()
  for (const diagnostic of before) remaining.set(key(diagnostic), (remaining.get(key(diagnostic)) ?? 0) + 1)
  return after.filter((diagnostic) => {
    const left = remaining.get(key(diagnostic)) ?? 0
    if (left === 0) return true
    remaining.set(key(diagnostic), left - 1)
    return false
  })
}

/** How one edited file's check ended: its new diagnostics, or why there are none to tell. */
type EditCheck = { found: FileDiagnostic[] } | { failed: string }

export class EditDiagnostics {
  /** Each editing call's "before", begun when it is about to be decided. */
  private readonly baselines = new WeakMap<ToolHookCall, Promise<Diagnostic[]>>()
  /** Checks that outlasted their budget, by chat: their text once they have ended, for the next result. */
  private readonly pending = new Map<string, Set<{ text?: string }>>()

  constructor(
    private readonly servers: LanguageServerService,
    private readonly settings: () => CodeIntelligenceSettings,
  ) {}

  /** The calls the before hook is for: edits of files. */
  readonly beforeWhen: HookFilter = ({ tool }) => EDITING_TOOLS.has(tool)

  /** The calls the after hook is for: edits, commands, and any call of a chat with diagnostics pending. */
  readonly afterWhen: HookFilter = ({ tool, kind, chatId }) =>
    EDITING_TOOLS.has(tool) || kind === 'execute' || (chatId !== null && this.pending.has(chatId))

  /** Starts reading the edited file's diagnostics as they are before the edit; blocks nothing. */
  readonly before: BeforeToolHook = (call) => {
    const target = this.target(call)
    if (!target) return undefined
    const baseline = this.servers.fileDiagnostics(target.folder, target.path)
    baseline.catch(() => {})
    this.baselines.set(call, baseline)
    return undefined
  }

  /**
   * Appends the edit's new diagnostics (or that they are pending) — after a command, those of the
   * files it changed that a server had open — and any that were pending for this chat.
   */
  readonly after: AfterToolHook = async (call, result) => {
    const target = this.target(call)
    const checked = target && !result.isError ? await this.check(call, target, result) : result
    const commanded = this.commandFolder(call)
    const rechecked = commanded ? await this.checkChangedFiles(call, commanded, checked) : checked
    return this.withDelivered(call.context.chatId, rechecked)
  }

  /** The folder a command ran in, when it is one the language servers work in. */
  private commandFolder({ context, description }: ToolHookCall): string | undefined {
    const folder = context.workingDirectory
    const inAgentFolder = context.mode === 'agent' && folder !== null
    return description.kind === 'execute' && inAgentFolder && this.settings().enabled ? folder : undefined
  }

  /** After a command: the files it changed that a server had open, each checked as an edit is. */
  private async checkChangedFiles(
    call: ToolHookCall,
    folder: string,
    result: ToolExecutionResult,
  ): Promise<ToolExecutionResult> {
    let checked = result
    for (const { path, before } of this.servers.changedOnDisk(folder)) {
      checked = await this.check(call, { folder, path }, checked, Promise.resolve(before))
    }
    return checked
  }

  private target(call: ToolHookCall): { folder: string; path: string } | undefined {
    const { context, description } = call
    const [path] = description.locations
    if (!EDITING_TOOLS.has(context.tool) || context.mode !== 'agent' || !context.workingDirectory || !path) {
      return undefined
    }
    return this.servers.serverFor(path) ? { folder: context.workingDirectory, path } : undefined
  }

  private async check(
    call: ToolHookCall,
    { folder, path }: { folder: string; path: string },
    result: ToolExecutionResult,
    baseline: Promise<Diagnostic[]> = this.baselines.get(call) ?? Promise.resolve([]),
  ): Promise<ToolExecutionResult> {
    const settings = this.settings()
    const severities = new Set(settings.warnings ? [1, 2] : [1])
    const shown = relative(folder, path) || path
    // The "before" must be in hand before the server is given the new text, or it could answer for the new one.
    const checking: Promise<EditCheck> = (async () => {
      try {
        const before = await baseline
        const after = await this.servers.fileDiagnostics(folder, path)
        const brought = newDiagnostics(before, after).filter((diagnostic) =>
          severities.has(diagnostic.severity ?? 1),
        )
        return { found: brought.map((diagnostic) => toFileDiagnostic(path, diagnostic)) }
      } catch (error) {
        return { failed: errorMessage(error) }
      }
    })()
    let timer: NodeJS.Timeout | undefined
    const budget = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), settings.waitSeconds * 1000)
    })
    const outcome = await Promise.race([checking, budget])
    clearTimeout(timer)
    if (outcome) return withCheck(result, outcome, shown, folder)
    const chatId = call.context.chatId
    if (chatId) this.deliverLater(chatId, checking, shown, folder)
    const later = chatId ? ' they will come with the next result' : ' run the diagnostics tool to see them'
    return append(
      result,
      `Diagnostics for ${shown} are pending: the language server is still working (waited ${settings.waitSeconds} s);${later}.`,
    )
  }

  /** Keeps a late check's text for the chat's next result. */
  private deliverLater(chatId: string, checking: Promise<EditCheck>, shown: string, folder: string): void {
    const entry: { text?: string } = {}
    const waiting = this.pending.get(chatId) ?? new Set()
    waiting.add(entry)
    this.pending.set(chatId, waiting)
    checking.then((outcome) => {
      entry.text =
        describeCheck(outcome, shown, folder, 'pending ') ?? `No new errors in ${shown} (pending before).`
    })
  }

  /** The result with the pending diagnostics that have come in since, for its chat. */
  private withDelivered(chatId: string | null, result: ToolExecutionResult): ToolExecutionResult {
    const waiting = chatId ? this.pending.get(chatId) : undefined
    if (!chatId || !waiting) return result
    const ready = [...waiting].filter((entry) => entry.text !== undefined)
    for (const entry of ready) waiting.delete(entry)
    if (waiting.size === 0) this.pending.delete(chatId)
    return ready.reduce((shaped, entry) => append(shaped, entry.text ?? ''), result)
  }
}

/** The text a check adds to a result, or none when it found nothing new. */
function describeCheck(outcome: EditCheck, shown: string, folder: string, pending = ''): string | undefined {
  if ('failed' in outcome) return `No diagnostics for ${shown}: ${outcome.failed}`
  if (outcome.found.length === 0) return undefined
  const count = outcome.found.length
  return `The change brought ${count} new ${pending}problem${count === 1 ? '' : 's'} in ${shown}:\n${formatDiagnostics(outcome.found, folder)}`
}

function withCheck(
  result: ToolExecutionResult,
  outcome: EditCheck,
  shown: string,
  folder: string,
): ToolExecutionResult {
  const text = describeCheck(outcome, shown, folder)
  if (text === undefined) return result
  const display =
    result.display?.kind === 'diff' && 'found' in outcome
      ? { ...result.display, diagnostics: outcome.found.map((found) => ({ ...found, path: shown })) }
      : result.display
  return { ...append(result, text), ...(display && { display }) }
}

function append(result: ToolExecutionResult, text: string): ToolExecutionResult {
  return { ...result, content: `${result.content}\n\n${text}` }
}
