import { resolve } from 'node:path'
import { type Command, Option } from 'commander'
import type { ChatMode } from '../../../src-shared/contract'
import { LOCAL_USER } from '../../app/create-atelier'
import { answerHeadless } from '../headless-elicitation'
import { abortOnSignals, withAtelier } from '../open-atelier'

interface ToolOptions {
  cwd?: string
  mode: ChatMode
  restrict: boolean
  sandbox: boolean
  chat?: string
}

const MODE_HELP = 'agent: tools work in the folder; chat: the folder is not injected'

export const modeOption = () =>
  new Option('--mode <mode>', MODE_HELP).choices(['agent', 'chat']).default('agent')

/** `--mode` left unset when absent, so that the agent profile's own mode can apply. */
export const profileModeOption = () =>
  new Option('--mode <mode>', `${MODE_HELP} (default: the agent profile's mode)`).choices(['agent', 'chat'])

export function registerToolCommand(program: Command): void {
  program
    .command('tool <name> [json-args]')
    .description('run one tool through the full executor and print exactly what the model would receive')
    .option('--cwd <dir>', 'the working folder (default: the current directory)')
    .addOption(modeOption())
    .option('--no-restrict', 'in agent mode, do not confine paths to the working folder')
    .option('--no-sandbox', 'run commands outside the sandbox, as they would run in this terminal')
    .option('--chat <id>', "run in that chat's context (created if absent), so calls share its state")
    .action((name: string, jsonArgs: string | undefined, options: ToolOptions, command: Command) =>
      withAtelier(command, async ({ chats, tools, mcp, services, customTools }) => {
        const requested = { workingDir: resolve(options.cwd ?? process.cwd()), mode: options.mode }
        const chat = options.chat ? chats.ensure(options.chat, requested) : undefined
        const { workingDir, mode } = chat ?? requested
        // A tool a module, server or service brings exists once they are loaded or connected, as in a turn.
        if (!tools.registry.get(name)) await customTools.prepare(mode === 'agent' ? workingDir : null)
        if (!tools.registry.get(name)) {
          await mcp.prepare(mode === 'agent' ? workingDir : null)
          await services.discover()
        }
        // A stopped shell takes its whole process group with it.
        const stop = new AbortController()
        const release = abortOnSignals(stop)
        try {
          const result = await tools.executor.execute(
            { name, arguments: jsonArgs ?? '{}' },
            {
              chatId: chat?.id,
              user: LOCAL_USER,
              workingDirectory: workingDir,
              mode,
              restrict: mode === 'agent' && options.restrict,
              unsandboxed: !options.sandbox,
              signal: stop.signal,
              ask: async (question) => answerHeadless(question),
              onUpdate: (progress) =>
                process.stderr.write(
                  `${typeof progress === 'string' ? progress : JSON.stringify(progress)}\n`,
                ),
            },
          )
          if (result.isError) {
            const type = result.errorType ?? 'execution_failed'
            process.stdout.write(`${JSON.stringify({ error: { type, message: result.content } })}\n`)
            process.exitCode = 1
          } else {
            process.stdout.write(result.content.endsWith('\n') ? result.content : `${result.content}\n`)
          }
        } finally {
          release()
        }
      }),
    )
}
