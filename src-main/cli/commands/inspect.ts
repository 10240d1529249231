import { type Command, Option } from 'commander'
import type { ApprovalMode } from '../../../src-shared/approvals'
import { PROVIDER_KINDS, type ProviderKind, toolDefsForProvider } from '../../providers/tool-mapper'
import { printJson, withAtelier } from '../open-atelier'
import { approvalOption } from './run'
import { modeOption } from './tool'

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
    .action(
      (options: { provider: ProviderKind; agent?: string; approval?: ApprovalMode }, command: Command) =>
        withAtelier(command, async ({ agent, profiles }) => {
          const profile =
            options.agent === undefined ? profiles.forChat(null) : profiles.byName(options.agent)
          // The same projection a turn makes, MCP servers' tools included.
          const { definitions } = await agent.projection(profile, options.approval ?? profile.approvalMode)
          printJson(toolDefsForProvider(options.provider, definitions))
        }),
    )
}
