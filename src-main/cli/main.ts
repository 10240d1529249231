import { Command, CommanderError, InvalidArgumentError } from 'commander'
import { toErrorPayload } from '../../src-shared/errors'
import { APP_VERSION } from '../app/create-atelier'
import { PRODUCT_NAME } from '../app/data-dir'
import { registerAgentsCommand } from './commands/agents'
import { registerChatsCommand } from './commands/chats'
import { addChatSearchCommand } from './commands/chats-search'
import { registerCheckpointsCommand } from './commands/checkpoints'
import { registerCustomToolsCommand } from './commands/custom-tools'
import { registerDatabaseCommand } from './commands/database'
import { registerHooksCommand } from './commands/hooks'
import { registerInspectCommand } from './commands/inspect'
import { registerLspCommand } from './commands/lsp'
import { registerMcpCommand } from './commands/mcp'
import { registerPermissionsCommand } from './commands/permissions'
import { registerRunCommand } from './commands/run'
import { registerSandboxCommand } from './commands/sandbox'
import { registerServicesCommand } from './commands/services'
import { registerSettingsCommand } from './commands/settings'
import { registerToolCommand } from './commands/tool'
import { registerToolsCommand } from './commands/tools'
import { registerWebCommand } from './commands/web'

/** The headless face of Atelier: same services and data folder as the desktop app. */
export function buildProgram(): Command {
  const program = new Command('atelier')
    .description(`${PRODUCT_NAME}: a local agent that works in your project folder.`)
    .version(APP_VERSION, '-v, --version', 'print the version')
    .option(
      '--data-dir <dir>',
      'where Atelier keeps its database (default: $ATELIER_DATA_DIR, else the desktop app’s folder)',
    )
    .showHelpAfterError()
  registerRunCommand(program)
  addChatSearchCommand(registerChatsCommand(program))
  registerToolCommand(program)
  registerToolsCommand(program)
  registerSettingsCommand(program)
  registerInspectCommand(program)
  registerMcpCommand(program)
  registerAgentsCommand(program)
  registerPermissionsCommand(program)
  registerHooksCommand(program)
  registerServicesCommand(program)
  registerCustomToolsCommand(program)
  registerSandboxCommand(program)
  registerLspCommand(program)
  registerCheckpointsCommand(program)
  registerDatabaseCommand(program)
  registerWebCommand(program)
  return program
}

export async function main(argv: string[] = process.argv): Promise<void> {
  const program = buildProgram().exitOverride()
  try {
    await program.parseAsync(argv)
  } catch (error) {
    // Commander has said what was wrong with the command line, except for an argument an action refused.
    if (error instanceof InvalidArgumentError) process.stderr.write(`atelier: ${error.message}\n`)
    if (error instanceof CommanderError) process.exit(error.exitCode)
    const { code, message } = toErrorPayload(error)
    process.stderr.write(`atelier: ${message} (${code})\n`)
    process.exit(1)
  }
}
