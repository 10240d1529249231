import type { Static, TSchema } from '@sinclair/typebox'
import type { StopReason } from '../../src-shared/agent'
import type { ApprovalMode, PendingActionView } from '../../src-shared/approvals'
import type { ChatMode } from '../../src-shared/contract'
import type { ElicitationQuestion } from '../../src-shared/elicitation'
import type { Answer, Question } from '../../src-shared/questions'
import type { SamplingMessage, SamplingQuestion } from '../../src-shared/sampling'
import type {
  ToolCallDescription,
  ToolDefinition,
  ToolDisplay,
  ToolErrorType,
  ToolKind,
  ToolProgress,
  ToolSettingsMetadata,
  ToolSource,
} from '../../src-shared/tools'
import type { Usage } from '../../src-shared/usage'
import type { FreshnessLedger } from '../core/freshness-ledger'
import type { ImageGenerator } from '../core/images'
import type { CodeIntelligence } from './code-intelligence'
import type { CommandJournal } from './command-journal'
import type { CommandSandbox } from './sandbox/command-sandbox'
import type { SearchEndpoints } from './web-search/search-engines'

export type { FreshnessLedger, ToolDefinition, ToolSettingsMetadata, ToolSource }

/**
 * What a running tool may ask the person, before the scheduler gives it an id and a place in line;
 * or a whole question a subagent's call asks, passed on (its own call, tool and label kept).
 */
export type ToolQuestion =
  | { kind: 'confirmation'; action: PendingActionView }
  | ({ kind: 'elicitation' } & ElicitationQuestion)
  | { kind: 'plan'; plan: string }
  | Question

/** A piece of work the model hands to a subagent: the `task` tool's arguments. */
export interface SubagentTask {
  /** What it is to do, in a few words: what the person sees. */
  description: string
  /** Everything it is told: it sees nothing else of the conversation. */
  prompt: string
  /** The agent profile it runs on, by name. */
  agent: string
}

/**
 * Runs subagents for one call of a turn (the `task` tool): a child turn on an agent profile, in
 * the chat's folder and mode, offered at most the tools this turn was offered.
 */
export interface SubagentHost {
  /**
   * What a task on this profile may do: `read` when its child is offered only reading tools, else
   * `other`. Throws the ToolError the model reads for a profile no task can run on.
   */
  kindOf(agent: string): ToolKind
  /** Runs the child turn to its end: its answer, or an error result when it failed or was stopped. */
  run(task: SubagentTask, signal: AbortSignal): Promise<ToolOutput>
}

/** What the chat's model answered a request sent on a server's behalf, and the tokens it took. */
export interface SampledCompletion {
  text: string
  /** The model that answered, as the server is told it. */
  model: string
  stopReason: StopReason
  usage?: Usage
}

/** The chat's provider and model, asked for one completion without tools. */
export interface ChatModel {
  complete(
    request: { system: string; messages: SamplingMessage[]; maxTokens: number },
    signal: AbortSignal,
  ): Promise<SampledCompletion>
}

/** A person's answer, or why none can come (a run with no terminal to ask on). */
export type AskResult = Answer | { decision: 'unanswered'; reason: string }

/** A tool's settings after defaults < saved < overrides, parameters validated. */
export interface EffectiveToolSettings {
  enabled: boolean
  parameters: Record<string, unknown>
}

/**
 * One call, resolved and validated, as any runner receives it: plain JSON, so it can cross to
 * another process or machine as it is.
 */
export interface ToolCallRecord {
  callId: string
  /** The tool's name as the model called it. */
  tool: string
  /** The arguments after validation against the tool's schema (null stripped as absent). */
  args: unknown
  chatId: string | null
  /** The settings owner; the desktop app uses one local user. */
  user: string
  /** The chat's bound folder, or null when none is bound. */
  workingDirectory: string | null
  /** In `chat` mode the bound folder is not injected into tools. */
  mode: ChatMode
  /** Whether path-taking tools are confined to the bound folder (agent mode). */
  restrict: boolean
  settings: EffectiveToolSettings
  /** Epoch milliseconds by which the call must have ended (its timeout). */
  deadline: number
  /** The provider (its name) and model of the turn that made the call; absent outside a turn. */
  model?: { provider: string; model: string }
}

/** What the host lends a running call: the ways back to the person, the chat and the app. */
export interface ToolHost {
  /** Aborted on the person's stop or the timeout; long work must pass it on. */
  signal: AbortSignal
  /** Streams progress to whoever watches the call (the UI, the CLI). */
  onUpdate(progress: ToolProgress): void
  /** What this chat has read, by real path and sha256: the guard on overwriting files. */
  ledger: FreshnessLedger
  /**
   * The call is past its point of no return: called right after a last check of `signal`, just
   * before the step that makes its change (an atomic write's rename). A stop after it waits for the
   * call to say what it did, so what follows must be short and finite (an fsync, a ledger row).
   */
  beginCommit(): void
  /** Part of every path policy whatever the settings say: the app's own data folder. */
  protectedPaths: readonly string[]
  /** Makes images with the person's providers (generate_image); absent where none is wired. */
  images?: ImageGenerator
  /** Where web_search's keyed engines are; absent: their public APIs (see `SEARCH_ENDPOINTS`). */
  searchEndpoints?: SearchEndpoints
  /** Confines the commands a tool starts (the shells); absent where none is wired: they run as they are. */
  sandbox?: CommandSandbox
  /** Records the commands a tool runs while they run (the shells), for after a crash; absent where none is wired. */
  journal?: CommandJournal
  /** The language servers, for the code tools; absent where none is wired. */
  codeIntelligence?: CodeIntelligence
  /** Stops the whole turn (a custom tool's `ctx.abort()`); absent outside a turn. */
  abortTurn?: (reason: string) => void
  /**
   * Puts the chat in another approval mode, from the turn's next model request on: its tools, its
   * approvals and what the system prompt says of them (an approved plan); absent outside a turn.
   */
  switchApprovalMode?: (mode: ApprovalMode) => Promise<void>
  /**
   * Asks the person something while the call runs — whether to apply a change the tool proposes, an
   * MCP server's form — on the call's own card; absent where nobody watches (the playground,
   * `atelier tool`). Resolves with the answer, or `unanswered` when nobody can answer (a run with no
   * terminal); rejects when the call is stopped first.
   */
  ask?: (question: ToolQuestion, signal: AbortSignal) => Promise<AskResult>
  /**
   * An MCP server's sampling request: shown to the person on the call's card and, once approved as
   * they left it, sent to the chat's model; the completion, or undefined when they declined. Absent
   * outside a turn (the playground, `atelier tool`): there is no chat's model to ask.
   */
  sample?: (question: SamplingQuestion, signal: AbortSignal) => Promise<SampledCompletion | undefined>
  /** Runs subagents (the `task` tool); absent outside a turn. */
  subagents?: SubagentHost
}

/** Everything an in-process tool may know about the call it is serving: the record and its host. */
export type ToolContext = ToolCallRecord & ToolHost

/**
 * A call in words and paths. Its kind is the tool's unless the call says otherwise: a task's is
 * its profile's, which the approval policy judges it by.
 */
export type CallDescription = Omit<ToolCallDescription, 'kind'> & { kind?: ToolKind }

/** A result with more control than a plain string. Only `content` reaches the model. */
export interface ToolOutput {
  content: string
  isError?: boolean
  /** How an error result failed, when the tool knows better than `execution_failed`. */
  errorType?: ToolErrorType
  /** The tool cut its own output (a window of a file, a capped stream). */
  truncated?: boolean
  /** How the UI shows the result. */
  display?: ToolDisplay
  /** For hooks and the UI; never sent to the model. */
  data?: unknown
}

/**
 * Runs a call that has been resolved, validated, described and allowed. Built-ins run in process;
 * a broker, a child process or an isolated worker implement the same interface. It resolves with
 * what the tool returned (a string, a ToolOutput, or a value to serialize) and rejects with a
 * ToolError, a FatalToolError or any other failure; deadlines and shaping are the executor's.
 */
export interface ToolRunner {
  run(call: ToolCallRecord, host: ToolHost): Promise<unknown>
}

export interface RegisteredTool {
  definition: ToolDefinition
  /** Tailors the definition to the effective settings (e.g. a limit in the description). */
  buildDefinition?: (settings: EffectiveToolSettings) => ToolDefinition
  settings: ToolSettingsMetadata
  /** What its calls do, for the decide stage: reads, edits, executes, reaches the network. */
  kind: ToolKind
  /** The approval modes a turn offers it in (propose_plan: plan only); absent, every mode. */
  modes?: readonly ApprovalMode[]
  /** A call in words and paths, before it runs; by default the kind and the tool's name. */
  describe?: (args: unknown, context: ToolContext) => Promise<CallDescription>
  /**
   * Its calls run beside the response's other calls whatever their kind, as reads do: each orders
   * its own work (a task's child turn has a scheduler of its own).
   */
  concurrent?: boolean
  /** What the call would change, shown to a person deciding on it; nothing is written. */
  preview?: (args: unknown, context: ToolContext) => Promise<ToolDisplay | undefined>
  /**
   * Throws the ToolError the call would fail with whoever allowed it (a path outside the folder, a
   * file not read in this chat, an edit that does not apply): checked before anyone is asked.
   * Nothing is written; `execute` checks again.
   */
  check?: (args: unknown, context: ToolContext) => Promise<void>
  /**
   * Results longer than this are cut with a notice (default: the executor's cap). A tool whose
   * whole output must reach the model, like read_file's byte views, sets its own.
   */
  maxResultChars?: number
  /**
   * The tool enforces `timeoutSeconds` itself (the shells kill their process group and report
   * `timed_out`); the executor's own deadline then only backs it up, a little later.
   */
  managesOwnTimeout?: boolean
  /**
   * The longest a call may run, when the tool's own deadline can outlast `timeoutSeconds` (an MCP
   * call's timeout restarts with each progress notification, under this cap). Default: timeoutSeconds.
   */
  maxRuntimeSeconds?: (settings: EffectiveToolSettings) => number
  runner: ToolRunner
}

/** A tool written in this process, its arguments typed by its TypeBox schema. */
export interface ToolSpec<Parameters extends TSchema>
  extends Omit<RegisteredTool, 'definition' | 'describe' | 'preview' | 'check' | 'runner'> {
  name: string
  description: string
  parameters: Parameters
  describe?: (args: Static<Parameters>, context: ToolContext) => Promise<CallDescription> | CallDescription
  preview?: (args: Static<Parameters>, context: ToolContext) => Promise<ToolDisplay | undefined>
  check?: (args: Static<Parameters>, context: ToolContext) => Promise<void>
  /** Receives arguments that already passed the schema. */
  execute: (args: Static<Parameters>, context: ToolContext) => Promise<unknown>
}
