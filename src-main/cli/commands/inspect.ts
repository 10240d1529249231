import { resolve } from 'node:path'
import { type Command, Option } from 'commander'
import type { ApprovalMode } from '../../../src-shared/approvals'
import type { ChatMode } from '../../../src-shared/contract'
import { PROVIDER_KINDS, type ProviderKind, toolDefsForProvider } from '../../providers/tool-mapper'
import { printJson, withAtelier } from '../open-atelier'
import { approvalOption } from './run'
import { modeOption } from './tool'

interface InspectOptions {
  provider: ProviderKind
  agent?: string
  approval?: ApprovalMode
  cwd?: string
  mode: ChatMode
}

export function registerInspectCommand(program: Command): void {
  program
    .command('inspect')
    .description('print the exact tool list (wire format) that a turn would send to a provider')
    .addOption(
      new Option('--provider <kind>', 'the wire format').choices(PROVIDER_KINDS).makeOptionMandatory(),
    )
    .option('--model <model>', 'the model the turn would use')
    .option('--cwd <dir>', 'the working folder the turn would use')
    .addOption(modeOption())
    .option('--agent <name>', 'the agent profile the turn would use (default: Default)')
    .addOption(approvalOption())
    .action((options: InspectOptions, command: Command) =>
      withAtelier(command, async ({ projection, profiles }) => {
        const profile = options.agent === undefined ? profiles.forChat(null) : profiles.byName(options.agent)
        const folder = options.mode === 'agent' ? resolve(options.cwd ?? process.cwd()) : null
        // The same projection a turn makes, MCP servers' and this folder's custom tools included.
        const { definitions } = await projection.projection(
          profile,
          options.approval ?? profile.approvalMode,
          folder,
        )
        printJson(toolDefsForProvider(options.provider, definitions))
      }),
    )
}
