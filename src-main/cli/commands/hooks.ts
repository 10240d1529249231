import { resolve } from 'node:path'
import { type Command, Option } from 'commander'
import {
  HOOK_EVENTS,
  type HookEntry,
  type HookEvent,
  type HookRun,
  type HookScope,
} from '../../../src-shared/hooks'
import { printJson, withAtelier } from '../open-atelier'

interface PlaceOptions {
  cwd?: string
}

/** A hook's id starts with its scope (`user:PreToolUse:0:0`); a project's lives in the --cwd folder. */
function placeOf(id: string, options: PlaceOptions): { scope: HookScope; folder?: string } {
  const scope: HookScope = id.startsWith('project:') ? 'project' : 'user'
  return scope === 'project' ? { scope, folder: resolve(options.cwd ?? process.cwd()) } : { scope }
}

export function registerHooksCommand(program: Command): void {
  const hooks = program
    .command('hooks')
    .description(
      "your own commands at the agent's lifecycle points (~/.atelier/hooks.json, .atelier/hooks.json)",
    )

  hooks
    .command('list')
    .description("your hooks, then the --cwd project's (listed, not run, until the folder is trusted)")
    .option('--cwd <dir>', 'the project folder (default: the current directory)')
    .option('--json', 'as JSON')
    .action((options: PlaceOptions & { json?: boolean }, command: Command) =>
      withAtelier(command, ({ hooks: { service } }) => {
        const entries = service.list({ folder: resolve(options.cwd ?? process.cwd()) })
        if (options.json) return printJson(entries)
        if (entries.length === 0) return void process.stdout.write('no hooks\n')
        for (const entry of entries) process.stdout.write(`${describeHook(entry)}\n`)
      }),
    )

  hooks
    .command('add <event> <command>')
    .description(`add a hook; events: ${HOOK_EVENTS.join(', ')}`)
    .option(
      '--matcher <pattern>',
      "tool names (bash, edit_file|write_file, mcp__.*) or the event's own value",
    )
    .option('--timeout <seconds>', 'how long it may run (default 60)', Number)
    .addOption(
      new Option('--scope <scope>', 'user: ~/.atelier/hooks.json; project: .atelier/hooks.json of --cwd')
        .choices(['user', 'project'])
        .default('user'),
    )
    .option('--cwd <dir>', 'the project folder of a project hook (default: the current directory)')
    .action(
      (
        event: string,
        line: string,
        options: PlaceOptions & { matcher?: string; timeout?: number; scope: HookScope },
        command: Command,
      ) =>
        withAtelier(command, ({ hooks: { service } }) => {
          if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
            command.error(`event must be one of ${HOOK_EVENTS.join(', ')}, not "${event}"`)
          }
          const added = service.add({
            scope: options.scope,
            ...(options.scope === 'project' && { folder: resolve(options.cwd ?? process.cwd()) }),
            event: event as HookEvent,
            command: line,
            ...(options.matcher !== undefined && { matcher: options.matcher }),
            ...(options.timeout !== undefined && { timeout: options.timeout }),
          })
          process.stdout.write(`added ${describeHook(added)}\n`)
        }),
    )

  hooks
    .command('remove <id>')
    .description('take a hook out of its file (`hooks list` shows the ids)')
    .option('--cwd <dir>', "the project folder of a project's hook (default: the current directory)")
    .action((id: string, options: PlaceOptions, command: Command) =>
      withAtelier(command, ({ hooks: { service } }) => {
        service.remove({ ...placeOf(id, options), id })
        process.stdout.write(`removed ${id}\n`)
      }),
    )

  hooks
    .command('test <id>')
    .description('run one hook with a sample input for its event (or --input), and show what it decided')
    .option('--cwd <dir>', "the project folder of a project's hook (default: the current directory)")
    .option('--input <json>', "the event's fields to send instead of the sample")
    .option('--json', 'as JSON')
    .action((id: string, options: PlaceOptions & { input?: string; json?: boolean }, command: Command) =>
      withAtelier(command, async ({ hooks: { service } }) => {
        const input =
          options.input === undefined ? undefined : (JSON.parse(options.input) as Record<string, unknown>)
        const run = await service.test({ ...placeOf(id, options), id, ...(input && { input }) })
        if (options.json) return printJson(run)
        process.stdout.write(describeRun(run))
      }),
    )

  hooks
    .command('import <file>')
    .description(
      "add the hooks of Claude Code's or Gemini CLI's settings.json, mapped to Atelier's events and tools",
    )
    .addOption(
      new Option(
        '--from <tool>',
        'whose file it is (default: gemini for a .gemini folder, else claude)',
      ).choices(['claude', 'gemini']),
    )
    .addOption(
      new Option('--scope <scope>', 'where to add them').choices(['user', 'project']).default('user'),
    )
    .option('--cwd <dir>', 'the project folder for --scope project (default: the current directory)')
    .action(
      (
        file: string,
        options: PlaceOptions & { from?: 'claude' | 'gemini'; scope: HookScope },
        command: Command,
      ) =>
        withAtelier(command, ({ hooks: { service } }) => {
          const from = resolve(file)
          const result = service.import({
            from,
            dialect: options.from ?? (/[\\/]\.gemini[\\/]/.test(from) ? 'gemini' : 'claude'),
            scope: options.scope,
            ...(options.scope === 'project' && { folder: resolve(options.cwd ?? process.cwd()) }),
          })
          for (const entry of result.added) process.stdout.write(`added ${describeHook(entry)}\n`)
          for (const { what, why } of result.skipped) process.stdout.write(`not mapped: ${what}: ${why}\n`)
        }),
    )
}

function describeHook(entry: HookEntry): string {
  const matcher = entry.matcher ? ` [${entry.matcher}]` : ''
  const state = entry.runs ? '' : '  (not run: the folder is not trusted)'
  const problem = entry.problem ? `  (${entry.problem})` : ''
  return `${entry.id}  ${entry.event}${matcher}  ${entry.command}  (${entry.timeoutSeconds} s)${state}${problem}`
}

function describeRun(run: HookRun): string {
  const lines = [
    `decision: ${run.decision}`,
    `exit code: ${run.exitCode ?? 'none'}`,
    `took: ${run.durationMs} ms`,
    ...(run.reason ? [`reason: ${run.reason}`] : []),
    ...(run.context ? [`context for the model: ${run.context}`] : []),
    ...(run.output ? ['output:', run.output] : []),
  ]
  return `${lines.join('\n')}\n`
}
