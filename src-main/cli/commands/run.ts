import { resolve } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { type Command, InvalidArgumentError, Option } from 'commander'
import { PROVIDER_KIND_NAMES, type ProviderKind, type TurnEvent } from '../../../src-shared/agent'
import { APPROVAL_MODES, type ApprovalMode } from '../../../src-shared/approvals'
import { slashActionOf } from '../../../src-shared/commands'
import type { ChatMode } from '../../../src-shared/contract'
import { MaxIterations } from '../../../src-shared/contract'
import { planChecklist } from '../../../src-shared/plans'
import { countedProgressText } from '../../../src-shared/progress'
import { ContextWindow } from '../../../src-shared/providers'
import { DEFAULT_PROFILE } from '../../agent/agent-profiles'
import { doneByTheApp } from '../../commands/slash-command-service'
import { terminalAsker } from '../approval-prompt'
import { ELICITATION_CHOICES, type ElicitationChoice } from '../headless-elicitation'
import { abortOnSignals, withAtelier } from '../open-atelier'
import { profileModeOption } from './tool'

interface RunOptions {
  provider: ProviderKind
  baseUrl?: string
  model?: string
  hostedSearch?: boolean
  cwd?: string
  mode?: ChatMode
  agent?: string
  maxIterations?: number
  contextWindow?: number
  json?: boolean
  chat?: string
  approval?: ApprovalMode
  elicitation: ElicitationChoice
}

/** Exit code of a turn the person stopped, as shells report an interrupted command. */
const EXIT_STOPPED = 130

function iterations(value: string): number {
  const n = Number(value)
  if (!Value.Check(MaxIterations, n)) {
    const { minimum, maximum } = MaxIterations as { minimum: number; maximum: number }
    throw new InvalidArgumentError(`must be an integer from ${minimum} to ${maximum}`)
  }
  return n
}

function contextWindow(value: string): number {
  const n = Number(value)
  if (!Value.Check(ContextWindow, n)) {
    const { minimum, maximum } = ContextWindow as { minimum: number; maximum: number }
    throw new InvalidArgumentError(`must be a number of tokens from ${minimum} to ${maximum}`)
  }
  return n
}

export function registerRunCommand(program: Command): void {
  program
    .command('run <prompt>')
    .description('run one agent turn in a folder and print the answer (tool activity goes to stderr)')
    .addOption(
      new Option('--provider <kind>', 'the wire format').choices(PROVIDER_KIND_NAMES).makeOptionMandatory(),
    )
    .option('--base-url <url>', "the provider's endpoint (e.g. a local OpenAI-compatible server)")
    .option('--model <model>', "the model (default: the provider's default model)")
    .option(
      '--hosted-search',
      "use the provider's own web search (Responses, Gemini, Anthropic; default: the provider's switch)",
    )
    .option('--no-hosted-search', "do not use the provider's own web search")
    .option('--cwd <dir>', 'the working folder (default: the current directory)')
    .addOption(profileModeOption())
    .option('--agent <name>', "the agent profile (`atelier agents list`; default: the chat's, else Default)")
    .option(
      '--max-iterations <n>',
      'model responses allowed in this turn (default: the setting, 50)',
      iterations,
    )
    .option(
      '--context-window <tokens>',
      "the model's context window for this run (default: the provider's setting, its model listing, or the table of well-known models)",
      contextWindow,
    )
    .addOption(approvalOption())
    .addOption(
      new Option(
        '--elicitation <answer>',
        "an MCP server's form or sampling request: decline it, accept the form's defaults and send the request as asked, or ask on the terminal",
      )
        .choices(ELICITATION_CHOICES)
        .default('decline'),
    )
    .option('--json', 'print the neutral stream events as NDJSON on stdout')
    .option('--chat <id>', 'continue that chat (created if absent) instead of starting a new one')
    .action((prompt: string, options: RunOptions, command: Command) =>
      withAtelier(command, async ({ chats, agent, providers, profiles, customTools }) => {
        // Refused before anything is written, like the provider below.
        const action = slashActionOf(prompt)
        if (action) throw doneByTheApp(action)
        const profile = options.agent === undefined ? undefined : profiles.byName(options.agent)
        const mode = options.mode ?? (profile ?? DEFAULT_PROFILE).defaultMode
        const folder = { workingDir: resolve(options.cwd ?? process.cwd()), mode }
        const provider = {
          kind: options.provider,
          ...(options.baseUrl && { baseUrl: options.baseUrl }),
          ...(options.model && { model: options.model }),
          ...(options.hostedSearch !== undefined && { hostedSearch: options.hostedSearch }),
        }
        // Refused before anything is written: a provider without a key or a model leaves no empty chat.
        providers.resolveKind(provider.kind, provider)
        const opened = options.chat ? chats.ensure(options.chat, folder) : chats.create(folder)
        // As choosing a profile in the app does: the chat takes it, and its mode unless --mode says otherwise.
        const chat = profile ? chats.configure({ id: opened.id, agent: profile.id, mode }) : opened
        if (chat.mode === 'agent' && chat.workingDir) {
          const { trustNeeded } = customTools.list(chat.workingDir)
          if (trustNeeded) {
            const why = trustNeeded.changedSinceTrusted
              ? 'they changed since the folder was trusted'
              : 'the folder is not trusted'
            process.stderr.write(
              `This folder's ${trustNeeded.files.length} custom tool file(s) are not loaded: ${why} (atelier folders trust ${trustNeeded.folder}).\n`,
            )
          }
        }
        const stop = new AbortController()
        const release = abortOnSignals(stop)
        const print = options.json ? printJsonLine : printerForPerson()
        let planned = false
        try {
          const { done } = agent.begin({
            chatId: chat.id,
            prompt,
            provider,
            ...(options.maxIterations && { maxIterations: options.maxIterations }),
            ...(options.contextWindow && { contextWindow: options.contextWindow }),
            ...(options.approval && { approvalMode: options.approval }),
            asker: terminalAsker(options.elicitation),
            signal: stop.signal,
            onEvent: (event) => {
              print(event)
              // Nobody here can approve a plan: printed, it is the run's answer, and nothing runs after it.
              if (isUnreviewedPlan(event)) {
                planned = true
                stop.abort(new Error('The plan is proposed.'))
              }
            },
          })
          const turn = await done
          if (planned) return
          if (turn.status === 'stopped') process.exitCode = EXIT_STOPPED
          else if (turn.status !== 'completed') process.exitCode = 1
        } finally {
          release()
        }
      }),
    )
}

/** `--approval` left unset when absent, so the chat's or its profile's mode (by default `ask`) applies. */
export const approvalOption = () =>
  new Option(
    '--approval <mode>',
    "what runs without asking: ask (reads), accept-edits (and edits in the folder), read-only, full-auto, plan (reads, then the plan is printed and nothing runs) (default: the chat's or agent profile's mode, ask)",
  ).choices(APPROVAL_MODES)

/** A plan proposed in plan mode that nobody could answer: the end of a headless `--approval plan` run. */
function isUnreviewedPlan(event: TurnEvent): boolean {
  if (event.type !== 'tool_call' || event.call.result?.display?.kind !== 'proposed-plan') return false
  return event.call.decisions.some(({ kind, by }) => kind === 'plan' && by === 'nobody')
}

function printJsonLine(event: TurnEvent): void {
  process.stdout.write(`${JSON.stringify(event)}\n`)
}

type Write = (text: string) => void

const toStdout: Write = (text) => process.stdout.write(text)
const toStderr: Write = (text) => process.stderr.write(text)

/**
 * The answer on stdout, so it can be piped; what the agent does on stderr, so it can be watched:
 * each call as it is made, its count as it moves, and how it ended. A subagent's activity is
 * printed the same way, indented under its task; its answer is the task's result, not the run's.
 */
function printerForPerson(out: Write = toStdout, err: Write = toStderr): (event: TurnEvent) => void {
  const counts = new Map<string, string>()
  const subagents = new Map<string, (event: TurnEvent) => void>()
  let planned = false
  return (event) => {
    planned ||= isUnreviewedPlan(event)
    switch (event.type) {
      case 'subagent': {
        let print = subagents.get(event.parentCallId)
        if (!print) {
          print = printerForPerson(
            () => {},
            (text) => err(text.replace(/^(?=.)/gm, '    ')),
          )
          subagents.set(event.parentCallId, print)
        }
        print(event.event)
        break
      }
      case 'text_delta':
        out(event.text)
        break
      case 'tool_call_completed':
        err(`\n→ ${event.name} ${event.arguments}\n`)
        break
      case 'tool_call': {
        const { call } = event
        // Counted progress only; other progress (a command's output) stays in the app.
        const counted = call.progress?.counted && countedProgressText(call.progress.counted)
        if (counted && counts.get(call.id) !== counted) {
          counts.set(call.id, counted)
          err(`  ⋯ ${counted}\n`)
        }
        if (!call.result) break
        const unasked = call.decisions.find(({ kind, by }) => kind === 'approval' && by === 'nobody')
        if (unasked) {
          err(`  ✗ needs approval, and this run cannot ask (see --approval): ${unasked.message ?? ''}\n`)
        }
        const { isError, content, durationMs, display } = call.result
        const mark = isError ? `✗ ${call.name}: ${firstLine(content)}` : `✓ ${call.name}`
        err(`${mark} (${Math.round(durationMs)} ms)\n`)
        if (display?.kind === 'plan') err(`${indented(planChecklist(display.steps))}\n`)
        if (display?.kind === 'proposed-plan') {
          // The plan is what a plan-mode run answers: on stdout, where the answer goes.
          if (!display.approvedMode) out(`${display.plan.trimEnd()}\n`)
          else err(`  approved, going on in ${display.approvedMode} mode\n`)
        }
        break
      }
      case 'web_search': {
        const queries = event.queries.map((query) => `"${query}"`).join(', ')
        const pages = event.sources.length === 1 ? '1 page' : `${event.sources.length} pages`
        process.stderr.write(`\n→ web search by the provider ${queries} (${pages})\n`)
        break
      }
      case 'message':
        // The pages the answer cites belong with it, on stdout.
        for (const part of event.message.role === 'assistant' ? event.message.parts : []) {
          if (part.type !== 'citations') continue
          const lines = part.sources.map(
            ({ url, title }, index) => `${index + 1}. ${title ? `${title} — ` : ''}${url}`,
          )
          process.stdout.write(`\n\nSources:\n${lines.join('\n')}`)
        }
        break
      case 'servers_unavailable':
        for (const { name, error } of event.servers) {
          err(`MCP server “${name}” is unavailable, so its tools are not offered: ${error}.\n`)
        }
        break
      case 'retry':
        err(`\n${event.message} — retrying in ${(event.delayMs / 1000).toFixed(1)} s\n`)
        break
      case 'compaction_completed': {
        const { compaction } = event
        const how = compaction.summary ? 'summarized the earlier conversation' : 'elided older tool outputs'
        err(`  ⋯ context compacted: ${how} (${compaction.tokensBefore} → ${compaction.tokensAfter} tokens)\n`)
        break
      }
      case 'turn_completed':
        out('\n')
        if (event.status === 'stopped' && !planned) err('Stopped.\n')
        break
      case 'turn_error':
        out('\n')
        err(`atelier: ${event.message} (${event.code})\n`)
        break
    }
  }
}

function indented(text: string): string {
  return text.replace(/^/gm, '  ')
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? ''
  return line.length > 200 ? `${line.slice(0, 200)}…` : line
}
